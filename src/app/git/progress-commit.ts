/**
 * Progress commits (docs/git.md): when a step completes, is skipped, fails
 * for good, a decision is answered or a boundary is reached, the command
 * commits what the step did — what changed in the work tree since the step
 * started (or, with `commit: evidence`, only the state and the step's
 * evidence) — with the pointer and the journal, and nothing the person had
 * changed or staged before the step.
 *
 * On by default in a repository with a first commit (`commit: false` in
 * `.autopilot/config.yml` turns it off). By default a situation where git
 * cannot take a commit (no first commit, a detached HEAD, a rebase under way,
 * a hook that says no) is a notice, and the step is recorded all the same;
 * asked for (`--commit`, `commit: true`), it is refused as before.
 *
 * The commit is part of the command: the journal records it as owed
 * (`progress_commit_owed`, the last line of the same batch as the step's
 * result), then the commit is made, holding that journal. Nothing is written
 * after it, so the tree is clean. Whether an owed commit is made is told by
 * what HEAD's tree holds: the journal as the work tree has it (so its last
 * line, the owed event) — never by trailers alone, which a reverted or
 * started-over run repeats. A kill or a git failure between the two leaves it
 * owed; the next command that writes makes it before anything else, once.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { allMatches, evidenceFor, type Evidence } from '../../engine/evidence.js';
import { describeOwed, type OwedCommit } from '../../engine/owed-commit.js';
import type { Transition } from '../../engine/transitions.js';
import { InputError } from '../../errors.js';
import { batchReport, stepByNumber, type Flow } from '../../formats/flow/model.js';
import { chainHash, entry, serializeEntries, type JournalEntry, type StampedEntry } from '../../formats/journal-line.js';
import type { CommitMode, CommitSetting } from '../../formats/settings.js';
import type { GitHandle, GitState } from '../../git/repository.js';
import type { ProgressCommitInput, ProgressCommitMade } from '../../git/progress-commit.js';
import { TEMP_MARK, writeFileAtomically } from '../../io/atomic-write.js';
import { displayPath, gatePath, type Repo } from '../../io/repo.js';
import { blobId } from '../../hash.js';
import { HASHED_FILES_MAX } from '../../limits.js';
import { DEFAULT_RUN } from '../../formats/run-name.js';
import { ofAnotherRun } from '../../io/run.js';
import { gitFor, gitMoved, openGitOnce } from './once.js';
import { firstCommitMissing, gitFallbackOff } from './source.js';
import type { JudgedText } from './judged.js';

export type { OwedCommit };

/** Git opened for a step command's progress commit. */
export interface CommitGit {
  handle: GitHandle;
  /** The state of the work tree as git was opened: the commit starts from it, asking nothing again. */
  state: GitState;
  mode: CommitMode;
  /** Asked for (`--commit`, `commit: true|evidence`): a commit git cannot take is an error, not a notice. */
  strict: boolean;
  /** Why no commit can be made now (the default only: a strict command was refused already). */
  blocked?: string;
  /** The branch has no first commit yet: no commit, and nothing said on each command (`status` says it). */
  unborn?: true;
}

/**
 * Git for a step command's progress commits, opened on first use: a step
 * that starts (its snapshot), a commit owed, a batch's code looked at. A
 * command that does none of these (a `next` resuming the step in progress)
 * starts no git. `open()` answers undefined where git cannot be opened (by
 * default: no commit then).
 */
export interface CommitGitOpener {
  mode: CommitMode;
  strict: boolean;
  open(): Promise<CommitGit | undefined>;
}

/**
 * Git for a step command's progress commit, by the settings and `--commit`:
 * asked for, opened now and refused (exit 2, nothing written) where none can
 * be made; by default, opened on first use where git is here at all, with
 * `blocked` saying why no commit can be made now; off (`commit: false`):
 * undefined.
 */
export async function gitForCommits(repo: Repo, asked: boolean, setting: CommitSetting): Promise<CommitGitOpener | undefined> {
  if (asked || setting === 'work' || setting === 'evidence') {
    const { handle, state } = await openForCommits(repo);
    const opened: CommitGit = { handle, state, mode: setting === 'evidence' ? 'evidence' : 'work', strict: true };
    return { mode: opened.mode, strict: true, open: async () => opened };
  }
  // No git, or a branch with no first commit (read from the git folder's files, no process): nothing to commit on, and
  // the git layer stays unloaded. A step started before the first commit is committed without its snapshot (the narrower set).
  if (setting === false || gitFallbackOff(repo) || firstCommitMissing(repo)) return undefined;
  let opening: Promise<CommitGit | undefined> | undefined;
  return { mode: 'work', strict: false, open: () => (opening ??= openByDefault(repo)) };
}

/** Git opened for the default commits: undefined where it cannot be; `blocked` where no commit can be made now. */
async function openByDefault(repo: Repo): Promise<CommitGit | undefined> {
  const opened = await openGitOnce(repo);
  if (!opened.handle) return undefined;
  const { handle, state } = opened;
  await repairAfterKill(repo, handle, state);
  const blocked = !state.head ? 'the branch has no first commit yet' : whyNot(state);
  const commits: CommitGit = { handle, state, mode: 'work', strict: false };
  if (blocked) commits.blocked = blocked;
  if (!state.head) commits.unborn = true;
  return commits;
}

const whyNot = (state: { operation?: string; detached: boolean }) =>
  state.operation ? `a ${state.operation} is in progress` : state.detached ? 'HEAD is detached' : undefined;

/** Opens git for progress commits and refuses, before anything is written, where one cannot be made (exit 2). Cleans what a killed commit left. */
export async function openForCommits(repo: Repo): Promise<{ handle: GitHandle; state: GitState }> {
  const reason = gitFallbackOff(repo);
  const opened = reason === undefined ? await openGitOnce(repo) : { handle: undefined, reason };
  if (!opened.handle) {
    throw new InputError({
      message: `progress commits need git: ${opened.reason}`,
      expected: 'a git repository with `git` on PATH (or leave out --commit)',
      received: opened.reason,
    });
  }
  const why = whyNot(opened.state);
  if (why) {
    throw new InputError(
      {
        message: `no progress commit now: ${why}; nothing was written`,
        expected: 'a branch checked out, with no merge, rebase or cherry-pick under way',
        received: why,
      },
      'Finish or abort the git operation (or check out a branch), then run the command again — or leave out --commit (`commit: false` in .autopilot/config.yml turns progress commits off).',
    );
  }
  await repairAfterKill(repo, opened.handle, opened.state);
  return opened;
}

/**
 * What a killed progress commit can leave: a temporary index in `.git/`, and
 * (never by autopilot's own order, but checked) an index behind HEAD. The
 * index is checked once for each commit HEAD names: a commit this machine
 * made (its index written before its branch moved) or checked already is not
 * checked again (`cache/index-checked`).
 */
async function repairAfterKill(repo: Repo, handle: GitHandle, state: GitState): Promise<void> {
  const { cleanLeftovers, repairIndex } = await import('../../git/progress-commit.js');
  await cleanLeftovers(handle);
  if (state.head !== undefined && state.head === indexChecked(repo)) return;
  await repairIndex(handle);
  if (state.head !== undefined) noteIndexChecked(repo, state.head);
}

const checkedFile = (repo: Repo) => join(repo.autopilotDir, 'cache', 'index-checked');

/** The commit HEAD named when the index was last found up to it (or brought up): a cache, never committed. */
function indexChecked(repo: Repo): string | undefined {
  try {
    return readFileSync(checkedFile(repo), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Notes that the index is up to HEAD's commit `sha`; a cache: a failure to write it costs a git call later. */
function noteIndexChecked(repo: Repo, sha: string): void {
  try {
    const file = checkedFile(repo);
    gatePath(repo, file);
    mkdirSync(dirname(file), { recursive: true });
    writeFileAtomically(file, `${sha}\n`, { fsync: false });
  } catch {
    // A cache.
  }
}

/** The entry of a command's result worth a commit, or undefined when the command changed nothing worth one. */
export function worthACommit(entries: readonly JournalEntry[]): JournalEntry | undefined {
  const kinds = ['step_completed', 'step_skipped', 'decision_answered', 'boundary_answered', 'boundary_reached'];
  // A batch done is worth one too (docs/git.md, "Batches"); the step's own result, when the same command has it, names the commit.
  return (
    entries.find((e) => kinds.includes(e.event) || (e.event === 'step_failed' && e.status === 'failed')) ?? entries.find((e) => e.event === 'batch_completed')
  );
}

/** Whether a command whose transition and plan hold these entries owes a commit (as `owedCommit` tells): git is opened for it. */
export const worthCommitting = (transition: readonly JournalEntry[], all: readonly JournalEntry[]): boolean =>
  worthACommit(transition) !== undefined || worthACommit(all) !== undefined;

/**
 * The commit a step command owes, as the journal entry that records it (the
 * last of the command's batch), or undefined when the command changed
 * nothing worth a commit. `tree`: the work tree when the step started;
 * `judged`: the files `done`'s judges read, each by the blob id of its text
 * (`judgedBlobs`), committed as judged.
 */
export function owedCommit(
  loaded: { repo: Repo; evidence: Evidence },
  flow: Flow,
  transition: Transition,
  mode: CommitMode,
  tree: string | undefined,
  all: readonly JournalEntry[] = transition.entries,
  judged?: Record<string, string>,
): JournalEntry | undefined {
  // Steps found done on disk are completed before the command's own transition (`walkFolder`): worth a commit too.
  const about = worthACommit(transition.entries) ?? worthACommit([...all].reverse());
  if (!about) return undefined;
  const { repo } = loaded;
  // An answer moves the run on: the commit names where it resumes; a step's own result names that step.
  const answered = about.event === 'decision_answered' || about.event === 'boundary_answered';
  const at = answered
    ? transition.position
    : { ...transition.position, step: about.step, name: about.name, status: about.status as typeof transition.position.status, cycle: about.cycle };
  // The files of every step the command finished: its own, and those of the steps a walk found done on disk.
  const finished = [about, ...all.filter((e) => e.event === 'step_completed' || e.event === 'step_skipped')];
  const steps = new Set(finished.filter((e) => typeof e.step === 'number' && e.cycle === loaded.evidence.cycle).map((e) => e.step as number));
  const evidence = [...steps].flatMap((n) => allMatches(evidenceFor(loaded.evidence, n)).map((m) => `${repo.docsName}/${m}`));
  const state = [repo.pointerFile, repo.journalFile].map((f) => displayPath(f, repo.root));
  // A batch's commit also holds its report, and says which batch it is.
  const batch = transition.entries.find((e) => e.event === 'batch_completed');
  const step = typeof about.step === 'number' ? stepByNumber(flow, about.step) : undefined;
  const report = batch && step?.batches ? [`${repo.docsName}/${batchReport(step.batches, batch.batch, batch.cycle)}`] : [];
  return entry('progress_commit_owed', at, {
    files: [...new Set([...state, ...evidence, ...report])],
    steps: flow.steps.length,
    ...(mode === 'work' && tree ? { tree } : {}),
    ...(batch ? { batch_text: `batch ${batch.batch} of ${batch.of} done (tasks ${batch.tasks.join(', ')})` } : {}),
    judged,
  });
}

/**
 * Each judged file's path with the blob id of its text, in the repository's
 * object format; undefined when none was judged, or more than a journal line
 * should list (`HASHED_FILES_MAX`: the commit then takes them as they are).
 */
export function judgedBlobs(texts: readonly JudgedText[], format: 'sha1' | 'sha256' = 'sha1'): Record<string, string> | undefined {
  if (texts.length === 0 || texts.length > HASHED_FILES_MAX) return undefined;
  return Object.fromEntries(texts.map((t) => [t.path, blobId(t.text, format)]));
}

/**
 * The owed commit the journal ends with, if it ends with one and no
 * `progress_commit_made` line (an older autopilot's, or a dropped commit's)
 * settles it. Made or not is for `commitMade` to tell: after a progress
 * commit the journal still ends with its owed line, committed.
 */
export function owedOnRecord(head: { record?: { entry?: StampedEntry }; settled?: number }): OwedCommit | undefined {
  const last = head.record?.entry;
  return last?.event === 'progress_commit_owed' && head.settled !== last.seq ? last : undefined;
}

/** The chain hash of an entry's line as written: what a journal head reports as `last` when it is the file's last line. */
export const lineHashOf = (e: StampedEntry) => chainHash(serializeEntries([e]).slice(0, -1));

/** This machine's note of the last progress commit it made or found (a cache: `_docs/_autopilot/cache/`, never committed). */
interface CommitNote {
  seq: number;
  line: string;
  sha: string;
}

const noteFile = (repo: Repo) => join(repo.autopilotDir, 'cache', 'progress-commit.json');

function readNote(repo: Repo): CommitNote | undefined {
  try {
    const note = JSON.parse(readFileSync(noteFile(repo), 'utf8')) as Partial<CommitNote>;
    return typeof note.seq === 'number' && typeof note.line === 'string' && typeof note.sha === 'string' ? (note as CommitNote) : undefined;
  } catch {
    return undefined;
  }
}

/** The last progress commit this machine made or found and its event, as its note says: a sign of how far the journal reached (`app/transaction/journal-cut.ts`). */
export const notedCommit = (repo: Repo): { seq: number; sha: string } | undefined => readNote(repo);

/** Forgets the note: a run started over (`reset`) numbers its events from 1 again. */
export function forgetNote(repo: Repo): void {
  rmSync(noteFile(repo), { force: true });
}

/** Whether this machine made (or found) the commit of this owed line: the journal's last line is that very line. */
export function notedMade(repo: Repo, owed: OwedCommit, lastLine: string | undefined): boolean {
  const note = readNote(repo);
  return note !== undefined && lastLine !== undefined && note.seq === owed.seq && note.line === lastLine;
}

/** Notes the commit made (or found) for the owed line; a cache: a failure to write it costs a git call later. */
export function noteMade(repo: Repo, owed: StampedEntry, sha: string): void {
  try {
    const file = noteFile(repo);
    gatePath(repo, file);
    mkdirSync(dirname(file), { recursive: true });
    writeFileAtomically(file, `${JSON.stringify({ seq: owed.seq, line: lineHashOf(owed), sha })}\n`, { fsync: false });
  } catch {
    // A cache.
  }
}

/**
 * Whether the owed commit the journal ends with is still to be made, told
 * without writing (for `status` and `check`): this machine's note, else git
 * (HEAD holds the journal as it is). Without git it stays owed.
 */
export async function stillOwed(repo: Repo, head: { record?: { entry?: StampedEntry }; settled?: number; last?: string }): Promise<OwedCommit | undefined> {
  const owed = owedOnRecord(head);
  if (!owed || notedMade(repo, owed, head.last)) return undefined;
  if (gitFallbackOff(repo) || !existsSync(repo.journalFile)) return owed;
  const { openGit } = await import('../../git/repository.js');
  const { handle } = await openGit(repo.root);
  if (!handle) return owed;
  const { commitHolding } = await import('../../git/history.js');
  return (await commitHolding(handle, displayPath(repo.journalFile, repo.root))) ? undefined : owed;
}

/** How many of an owed commit's files `status` and `check` name in their text. */
const OWED_FILES_SHOWN = 8;

/** What an owed commit is about and what it holds, as `status` and `check` name them (rule 11: owed and named until made). */
export function owedSaid(owed: OwedCommit): { about: string; files: string[]; holds: string } {
  const about = [describeOwed(owed, false), ...(owed.carries ?? [])].join('; ');
  const files = owed.files ?? [];
  const first = owed.carries?.length ? 'the first of these steps' : `step ${owed.step}`;
  const since = typeof owed.tree === 'string' ? `, and what changed in the work tree since ${first} began` : '';
  // A step with many files (a task index's tasks): the first ones named, the rest counted; `--json` lists them all.
  const named = files.length > OWED_FILES_SHOWN + 1 ? [...files.slice(0, OWED_FILES_SHOWN), `${files.length - OWED_FILES_SHOWN} more files`] : files;
  return { about, files, holds: `${named.join(', ')}${since}` };
}

export interface Made {
  owed: number;
  sha?: string;
  found?: true;
  dropped?: string;
  /** Not made now (a detached HEAD, a lock, a hook; by default): still owed, in these words. Never journaled. */
  deferred?: string;
  /** Said to the person: a narrower commit than the step's (its snapshot gone), a judged file changed since, or why none was made. */
  notice?: string;
}

/** Git as the command that owes the commit opened it, and whether that command wrote the owed line itself. */
export interface OwedGit {
  git: Pick<CommitGit, 'handle' | 'state'>;
  /** The owed line is this command's own, written under its lock moments ago: no commit can hold it yet, so none is looked for. */
  fresh?: boolean;
}

/**
 * Makes an owed commit, once: when HEAD's tree already holds the journal as
 * the work tree has it (a killed command made it after all, or a person
 * committed it), it is found, not made again. Git gone since (not a
 * repository any more, no `git`): dropped, said. Git refusing (a hook, a
 * lock, a failing signature, a rebase under way): the error, with git's
 * words, and the commit stays owed. The snapshot of the work tree when the
 * step started gone (`git gc`): the step's own files only, said. Each file
 * the step's judges read goes in as judged (`texts`: what this process
 * judged; else the version judged the object database still holds).
 * `opened`: git as the command opened it (else opened here).
 */
export async function makeOwedCommit(repo: Repo, owed: OwedCommit, opened?: OwedGit, texts: readonly JudgedText[] = []): Promise<Made> {
  let git = opened?.git;
  if (!git) {
    const off = gitFallbackOff(repo);
    if (off) return { owed: owed.seq, dropped: off };
    const { openGit } = await import('../../git/repository.js');
    const found = await openGit(repo.root, gitFor(repo));
    if (!found.handle) return { owed: owed.seq, dropped: found.reason };
    git = found;
  }
  const { handle } = git;
  const { progressMessage } = await import('../../git/progress-message.js');
  const { commitHolding, releaseSnapshot, SnapshotGone } = await import('../../git/progress-commit.js');
  const journal = displayPath(repo.journalFile, repo.root);
  const found = opened?.fresh ? undefined : await commitHolding(handle, journal);
  if (found) {
    if (typeof owed.tree === 'string') await releaseSnapshot(handle, owed.tree);
    return { owed: owed.seq, sha: found, found: true };
  }
  // Not made yet: git must be able to take it (a branch, no operation under way), and what a killed commit left is cleaned first.
  const state = opened ? git.state : (await openForCommits(repo)).state;
  const status = owed.status as Parameters<typeof progressMessage>[0]['status'];
  const message = progressMessage({
    flow: owed.flow,
    step: owed.step,
    steps: owed.steps ?? 0,
    name: owed.name,
    status,
    cycle: owed.cycle,
    session: owed.session,
    event: owed.seq,
    body: carriedBody(owed),
    run: repo.run === DEFAULT_RUN ? undefined : repo.run,
    ...(typeof owed.batch_text === 'string' ? { batch: owed.batch_text } : {}),
  });
  // autopilot's machine-local files (the lease, the lock, caches, checkpoints, temporaries) are never part of a commit, ignored or not.
  const local = `${displayPath(repo.autopilotDir, repo.root)}/`;
  // Nor another run's files (docs/runs.md): a named run's commit holds its folder and code, the default run's never `_runs/`.
  const scope = { run: repo.run, docsName: displayPath(repo.docs, repo.root), repoDocsName: displayPath(repo.repoDocs, repo.root) };
  const exclude = (path: string) => (path.startsWith(local) && path !== journal) || path.includes(TEMP_MARK) || ofAnotherRun(scope, path);
  const since = typeof owed.tree === 'string' ? owed.tree : undefined;
  const input = { ...message, files: owed.files ?? [], judged: judgedFiles(owed, texts), state, exclude };
  const notices: string[] = [];
  let made: Awaited<ReturnType<typeof commitOnBranch>>;
  try {
    // What changed since the step began is told in the commit's own pass of git; the snapshot's refs go with the branch's move.
    made = await commitOnBranch(repo, handle, { ...input, since, release: since });
  } catch (error) {
    if (!(error instanceof SnapshotGone)) throw error;
    notices.push(
      `the snapshot of the work tree taken when step ${owed.step} started is gone from git (pruned by \`git gc\`), so what changed during the step cannot be told: this commit holds the state and the step's own files only; commit the rest yourself`,
    );
    made = await commitOnBranch(repo, handle, input);
  }
  if (made.sha) {
    gitMoved(repo);
    noteIndexChecked(repo, made.sha);
  }
  // No commit (nothing differs from HEAD), or one the snapshot was not released with: released now.
  if (since !== undefined && (!made.sha || notices.length > 0)) await releaseSnapshot(handle, since);
  notices.push(...judgedNotices(made));
  return { owed: owed.seq, sha: made.sha, notice: notices.length > 0 ? notices.join('; ') : undefined };
}

/** Times a progress commit is built again on a branch another commit moved while it was made. */
const MOVED_BRANCH_TRIES = 5;

/**
 * `commitProgress`, built again on the branch as it now is where another
 * commit landed on it meanwhile (another run's progress commit in the same
 * work tree, a person's): the commit holds this step's files on top of
 * theirs, as the next command would make it. A few times; then the refusal
 * stands and the commit stays owed.
 */
async function commitOnBranch(repo: Repo, handle: GitHandle, input: ProgressCommitInput): Promise<ProgressCommitMade> {
  const { commitProgress, ProgressCommitRefused } = await import('../../git/progress-commit.js');
  for (let tries = 1; ; tries++) {
    try {
      return await commitProgress(handle, input);
    } catch (error) {
      if (!(error instanceof ProgressCommitRefused) || error.reason !== 'head-moved' || tries >= MOVED_BRANCH_TRIES) throw error;
      gitMoved(repo);
      input = { ...input, state: (await openForCommits(repo)).state };
    }
  }
}

/** The body of a commit that also holds earlier commits git could not take: which, so a reviewer sees why it holds more than one step. */
function carriedBody(owed: OwedCommit): string | undefined {
  const carries = owed.carries ?? [];
  if (carries.length === 0) return undefined;
  return `Also holds the work of ${carries.join('; ')}, whose own commit${carries.length > 1 ? 's' : ''} git could not take then.`;
}

/** The owed commit's judged files, with the text this process judged where it has it (the same text the journal names). */
function judgedFiles(owed: OwedCommit, texts: readonly JudgedText[]): { path: string; blob: string; text?: string }[] {
  const byPath = new Map(texts.map((t) => [t.path, t.text]));
  return Object.entries(owed.judged ?? {}).map(([path, blob]) => {
    const text = byPath.get(path);
    return text !== undefined && (blobId(text) === blob || blobId(text, 'sha256') === blob) ? { path, blob, text } : { path, blob };
  });
}

/** What the answer says of judged files that changed after `done` judged them. */
function judgedNotices(made: { changedAfterJudging: string[]; leftOut: string[] }): string[] {
  const list = (paths: string[]) => paths.map((p) => `\`${p}\``).join(', ');
  const said: string[] = [];
  if (made.changedAfterJudging.length > 0) {
    const one = made.changedAfterJudging.length === 1;
    said.push(
      `${list(made.changedAfterJudging)} changed after \`done\` judged ${one ? 'it' : 'them'}: the commit holds the version judged, and the change stays in the work tree, uncommitted (\`git diff\` shows it)`,
    );
  }
  if (made.leftOut.length > 0) {
    said.push(
      `${list(made.leftOut)} changed after \`done\` judged it, and the version judged is gone (the command that judged it was stopped before its commit): left out of the commit, as it is in the work tree`,
    );
  }
  return said;
}

/**
 * A commit that stays owed (git cannot take it now): what the later commit
 * needs is kept for it — the work tree as its step began, by a ref of its
 * own (`refs/autopilot/owed/<key>`: the start snapshot's ref is replaced
 * when the next step begins), and the texts judged, written to git's object
 * database, so the later commit still holds them as judged. Best effort:
 * git refusing these too costs only a narrower later commit.
 */
export async function keepOwed(repo: Repo, owed: OwedCommit, handle: GitHandle | undefined, texts: readonly JudgedText[]): Promise<void> {
  const judged = judgedFiles(owed, texts).filter((j) => j.text !== undefined);
  if (typeof owed.tree !== 'string' && judged.length === 0) return;
  let git = handle;
  if (!git) {
    if (gitFallbackOff(repo)) return;
    const { openGit } = await import('../../git/repository.js');
    git = (await openGit(repo.root, gitFor(repo))).handle;
    if (!git) return;
  }
  const { keepOwedSnapshot, storeJudged } = await import('../../git/progress-commit.js');
  try {
    if (typeof owed.tree === 'string') await keepOwedSnapshot(git, owed.tree);
    await storeJudged(
      git,
      judged.map((j) => j.text!),
    );
  } catch {
    // Best effort, said in the docs: the later commit is the narrower one.
  }
}

/** The work tree now, for the step that starts: what its commit will be measured against, kept reachable by a ref of autopilot's own until then. */
export async function startTree(handle: GitHandle): Promise<string> {
  const { snapshotWorkTree, keepSnapshot } = await import('../../git/progress-commit.js');
  const tree = await snapshotWorkTree(handle);
  try {
    await keepSnapshot(handle, tree);
  } catch {
    // Git refusing the ref (a reference-transaction hook): the snapshot is still in the object database for two
    // weeks; pruned sooner, the step's commit is the narrower one, said.
  }
  return tree;
}
