/**
 * A progress commit: the named files and the paths a step changed, as they
 * are in the work tree, committed on top of HEAD, and nothing else. The
 * user's index is not used to build it: the commit is assembled in a
 * temporary index; then the branch is locked (a compare-and-swap, prepared),
 * the committed paths of the user's index are set to what was committed, and
 * only then is the branch moved, so no kill leaves HEAD ahead of the index. Whatever the user had staged
 * stays staged, whatever they had not stays in the work tree.
 *
 * Also here, for the command that follows a killed one: `cleanLeftovers`
 * (temporary indexes) and `repairIndex` (an index left behind HEAD), and the
 * work-tree snapshot a step's commit is measured against.
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { GitCommandError, ProgressCommitRefused, SigningFailed } from './errors.js';
import { readEntries, sameEntry, writeEntries, parseRawDiff, type Entries, type Entry, type TreeChange } from './index-entries.js';
import { topPath } from './paths.js';
import { commitText, TRAILER, type CommitMessage } from './progress-message.js';
import { gitState, type GitState } from './repository.js';
import { converseWithGit, runGit, runGitOr, type GitHandle } from './run.js';
import { judgedPins, readJudged, type JudgedFile } from './judged.js';
import { withTempIndex } from './temp-index.js';
import type { WorkTreeChange } from './work-tree.js';

export { cleanLeftovers, type CleanLeftoversOptions } from './temp-index.js';
export {
  changedSince,
  keepOwedSnapshot,
  keepSnapshot,
  owedSnapshotRef,
  releaseSnapshot,
  snapshotRef,
  snapshotWorkTree,
  type WorkTreeChange,
} from './work-tree.js';
export { SnapshotGone } from './errors.js';
export { commitHolding } from './history.js';
export { storeJudged, type JudgedFile } from './judged.js';

export interface ProgressCommitInput extends CommitMessage {
  /**
   * Paths relative to the repository root, committed as they are in the work
   * tree: the pointer, the journal, the step's evidence. A path that no longer
   * exists is committed as deleted.
   */
  files: readonly string[];
  /**
   * What changed in the work tree during the step: `changedSince(handle,
   * snapshot)`'s answer (or its paths), committed like `files`. Files the
   * person had changed or staged before the step are not in it, so they stay
   * out of the commit.
   */
  changed?: readonly (string | WorkTreeChange)[];
  /**
   * Sign the commit: `true` with `-S` (the configured `gpg.format` and
   * `user.signingKey`), `false` never. By default as `git commit` would:
   * when `commit.gpgSign` is true.
   */
  sign?: boolean;
  /** List the committed files by folder in the message body (`filesByFolder`); true by default. */
  listFiles?: boolean;
  /**
   * The files a judge read (`done`), each committed as it was judged, not as
   * it is now (`judged.ts`): one changed since keeps its change in the work
   * tree, uncommitted, and is named in the answer.
   */
  judged?: readonly JudgedFile[];
}

/**
 * Commits `files` and `changed` with `message` and `trailers` on the
 * checked-out branch and returns the new commit's sha, or undefined when
 * those paths are already committed as they are (no empty commit is made).
 * Never pushes; runs no hooks (`commit-tree` does not); signs as `git commit`
 * does (`sign`).
 *
 * Guarantees: either the branch moved to the new commit and the user's index
 * holds the committed version of every path the commit changed, or (on any
 * failure) the branch and the index are as they were; only a kill between
 * the index write and the branch move leaves the committed paths staged
 * ahead of HEAD (harmless: the retry commits them). No temporary file is
 * left unless the process is killed (`cleanLeftovers`). Any other index
 * entry, staged or not, is left exactly as it was.
 *
 * Throws `ProgressCommitRefused` (exit 2) on a detached HEAD, during a merge,
 * rebase, am, cherry-pick, revert or bisect, and when another commit lands on
 * the branch meanwhile; `SigningFailed` when git is told to sign and cannot;
 * `GitCommandError` with git's words for anything else git refuses (a held
 * `index.lock` or `refs/heads/<branch>.lock`, a `reference-transaction` hook).
 * For a commit made exactly once across a kill, look for it first with
 * `findProgressCommit` (history.ts).
 */
export async function progressCommit(handle: GitHandle, input: ProgressCommitInput): Promise<string | undefined> {
  return (await commitProgress(handle, input)).sha;
}

export interface ProgressCommitMade {
  /** The new commit; undefined when nothing differs from HEAD. */
  sha?: string;
  /** Judged files changed after they were judged (relative to the root): the commit holds the version judged, the work tree keeps the change. */
  changedAfterJudging: string[];
  /** Judged files changed after they were judged whose judged version is gone (a command stopped before its commit): left out of the commit. */
  leftOut: string[];
}

/** `progressCommit`, saying also which judged files had changed since they were judged (`input.judged`). */
export async function commitProgress(handle: GitHandle, input: ProgressCommitInput): Promise<ProgressCommitMade> {
  const listed = [...input.files, ...(input.changed ?? []).map((c) => (typeof c === 'string' ? c : c.path)), ...(input.judged ?? []).map((j) => j.path)];
  const paths = [...new Set(listed.map((file) => topPath(handle, file)))];
  // Early, so a bad subject or trailer name throws before git is asked anything.
  commitText(input);
  if (paths.length === 0) return { changedAfterJudging: [], leftOut: [] };
  const [state, sign] = await Promise.all([gitState(handle), input.sign ?? signsCommits(handle)]);
  refuseUnlessOnBranch(state);

  return withTempIndex(handle, async (inTempIndex) => {
    if (state.head) await runGit(handle, ['read-tree', state.head], inTempIndex);
    // A judged file that changed since it was judged is never read from the work tree: its version judged goes in.
    const judged = readJudged(handle, input.judged ?? []);
    const moved = new Set(judged.moved.map((m) => m.top));
    const fromWorkTree = paths.filter((p) => !moved.has(p));
    // --add takes in new files, --remove drops the ones gone from the work tree.
    if (fromWorkTree.length > 0)
      await runGit(handle, ['update-index', '--add', '--remove', '-z', '--stdin'], { ...inTempIndex, input: fromWorkTree.map((p) => `${p}\0`).join('') });
    let { tree, changes } = await treeOfIndex(handle, state.head, inTempIndex);
    const pins = await judgedPins(handle, judged, changes);
    if (pins.entries.size > 0) {
      await writeEntries(handle, pins.entries, tree.length, inTempIndex);
      ({ tree, changes } = await treeOfIndex(handle, state.head, inTempIndex));
    }
    const said = { changedAfterJudging: pins.changed, leftOut: pins.left };
    if (changes.length === 0) return said;

    const text = commitText(input, input.listFiles === false ? [] : changes);
    const commit = await commitTree(handle, tree, state.head, text, sign);
    // The branch locked first (nothing written if that fails), then the index, then the branch moved: a kill
    // in between aborts the ref transaction (git reads the end of its input), leaving the index ahead of HEAD, never behind.
    const committed = changes.map((c) => c.path);
    const before = (await readEntries(handle, committed)).entries;
    const after: Entries = new Map(changes.map((c) => [c.path, c.entry]));
    const branch = await lockBranch(handle, state, commit, text.split('\n')[0]!);
    try {
      await writeEntries(handle, after, commit.length);
    } catch (error) {
      await branch.abort();
      throw error;
    }
    try {
      await branch.commit();
    } catch (error) {
      await restoreEntries(handle, committed, before, after, commit.length).catch(() => undefined);
      throw error;
    }
    return { sha: commit, ...said };
  });
}

/** The temporary index written as a tree, and what it changes against HEAD. */
async function treeOfIndex(handle: GitHandle, head: string | undefined, inTempIndex: { env: Record<string, string> }) {
  const tree = (await runGit(handle, ['write-tree'], inTempIndex)).trim();
  return { tree, changes: await treeChanges(handle, head, tree) };
}

/** `commit.gpgSign`, read as `git commit` reads it (unset: false; not a boolean: git's error). `--default` so git always answers. */
async function signsCommits(handle: GitHandle): Promise<boolean> {
  return (await runGit(handle, ['config', '--type=bool', '--default=false', '--get', 'commit.gpgSign'])).trim() === 'true';
}

/** What the new tree changes against HEAD's (against nothing for a first commit), path by path. */
async function treeChanges(handle: GitHandle, head: string | undefined, tree: string): Promise<TreeChange[]> {
  if (head) return parseRawDiff(await runGit(handle, ['diff-tree', '-r', '-z', '--raw', '--no-renames', head, tree]));
  const out = await runGit(handle, ['ls-tree', '-r', '-z', '--full-tree', tree]);
  return out
    .split('\0')
    .filter(Boolean)
    .map((record) => {
      const tab = record.indexOf('\t');
      const [mode = '', , sha = ''] = record.slice(0, tab).split(' ');
      return { path: record.slice(tab + 1), change: 'added' as const, entry: { mode, sha }, before: undefined };
    });
}

/** `git commit-tree`, signed with `-S` (as `git commit` signs: `gpg.format`, `user.signingKey`) or explicitly not. */
async function commitTree(handle: GitHandle, tree: string, head: string | undefined, text: string, sign: boolean): Promise<string> {
  try {
    return (await runGit(handle, ['commit-tree', sign ? '-S' : '--no-gpg-sign', ...(head ? ['-p', head] : []), tree], { input: text })).trim();
  } catch (error) {
    if (sign && error instanceof GitCommandError) throw new SigningFailed(error);
    throw error;
  }
}

function refuseUnlessOnBranch(state: GitState): void {
  if (state.operation) throw new ProgressCommitRefused(state.operation, `${state.operation} in progress${state.branch ? ` on ${state.branch}` : ''}`);
  if (state.detached) throw new ProgressCommitRefused('detached', `detached HEAD${state.head ? ` at ${state.head.slice(0, 12)}` : ''}`);
}

interface LockedBranch {
  /** Moves the branch to the new commit and releases the lock. */
  commit(): Promise<void>;
  /** Leaves the branch where it was and releases the lock. */
  abort(): Promise<void>;
}

/**
 * Prepares HEAD's move (through the branch it names) from the commit we
 * built on to the new one: `update-ref --stdin` takes the ref's lock, checks
 * the old value under it (a compare-and-swap) and runs the
 * `reference-transaction` hook (`prepared`), then waits. Anything that would
 * refuse the move (another commit landed, a held `<branch>.lock`, the hook)
 * refuses it here, before the index is touched. If this process dies while
 * it waits, git reads the end of its input and aborts: the branch stays and
 * its lock goes.
 */
async function lockBranch(handle: GitHandle, state: GitState, commit: string, subject: string): Promise<LockedBranch> {
  const old = state.head ?? '0'.repeat(commit.length);
  const git = converseWithGit(handle, ['update-ref', '-m', `autopilot progress commit: ${subject}`, '--stdin']);
  try {
    await git.say(`start\nupdate HEAD ${commit} ${old}\nprepare\n`, 2);
  } catch (error) {
    const now = await runGitOr(handle, ['rev-parse', '--quiet', '--verify', 'HEAD^{commit}'], 1);
    if (error instanceof GitCommandError && now?.trim() !== state.head) {
      throw new ProgressCommitRefused(
        'head-moved',
        `${state.branch} moved from ${state.head?.slice(0, 12) ?? 'no commit'} to ${now?.trim().slice(0, 12) ?? 'nothing'}`,
      );
    }
    throw error;
  }
  return {
    async commit() {
      await git.say('commit\n', 1);
      await git.end();
    },
    async abort() {
      await git.end().catch(() => undefined);
    },
  };
}

/**
 * After a failed branch move: puts back the index entries the commit set,
 * path by path, where the index still holds what was set (a `git add` the
 * user ran meanwhile is theirs) and the branch, if it moved, does not now
 * hold the same (the index is then not ahead of it).
 */
async function restoreEntries(handle: GitHandle, paths: string[], before: Map<string, Entry>, after: Entries, shaLength: number): Promise<void> {
  const now = (await readEntries(handle, paths)).entries;
  const head = await runGitOr(handle, ['rev-parse', '--quiet', '--verify', 'HEAD^{commit}'], 1);
  const atHead = head ? await treeEntries(handle, head.trim(), paths) : new Map<string, Entry>();
  const restore: Entries = new Map();
  for (const path of paths) {
    if (!sameEntry(now.get(path), after.get(path)) || sameEntry(atHead.get(path), after.get(path))) continue;
    restore.set(path, before.get(path));
  }
  await writeEntries(handle, restore, shaLength);
}

/** The entries of these paths in a commit's tree. */
async function treeEntries(handle: GitHandle, commit: string, paths: string[]): Promise<Map<string, Entry>> {
  const wanted = new Set(paths);
  const entries = new Map<string, Entry>();
  for (let i = 0; i < paths.length; i += 500) {
    const out = await runGit(handle, ['ls-tree', '-r', '-z', '--full-tree', commit, '--', ...paths.slice(i, i + 500)]);
    for (const record of out.split('\0')) {
      const tab = record.indexOf('\t');
      if (tab < 0 || !wanted.has(record.slice(tab + 1))) continue;
      const [mode = '', , sha = ''] = record.slice(0, tab).split(' ');
      entries.set(record.slice(tab + 1), { mode, sha });
    }
  }
  return entries;
}

/**
 * For the command after a killed one (call it, after `cleanLeftovers`, at the
 * start of every command that writes): when HEAD is a progress commit and the
 * user's index still holds, for a path that commit changed, the version of
 * its parent (the commit was made and the branch moved, but the index was not
 * brought up to it: a kill in an autopilot older than this order, or a failed
 * index write) while the work tree does not, sets that path's entry to
 * HEAD's. Without it the user's next
 * `git commit` would silently revert the step's files. Every other entry
 * (what the user staged, paths HEAD did not change, conflicts) is left alone;
 * nothing is done on a detached HEAD or during a merge, rebase, cherry-pick.
 * `paths` (relative to the repository root) narrows it to those paths.
 * Returns the paths repaired, relative to the repository root.
 */
export async function repairIndex(handle: GitHandle, paths?: readonly string[]): Promise<string[]> {
  const only = paths?.map((path) => topPath(handle, path));
  if (only?.length === 0) return [];
  // The common case costs one git call: HEAD is not a progress commit, or its paths are not behind in the index.
  const [head = '', ...trailers] = (await runGit(handle, ['log', '-1', '--format=%H%n%(trailers:only,unfold)', '--ignore-missing', 'HEAD'])).split('\n');
  if (!head || !trailers.some((line) => line.toLowerCase().startsWith(`${TRAILER.flow.toLowerCase()}:`))) return [];
  const diff = await runGit(handle, [
    '--literal-pathspecs',
    'diff-tree',
    '-r',
    '-z',
    '--raw',
    '--no-renames',
    '--no-commit-id',
    '--root',
    head,
    ...(only ? ['--', ...only] : handle.prefix ? ['--', handle.prefix] : []),
  ]);
  const changes = parseRawDiff(diff);
  if (changes.length === 0) return [];
  const index = await readEntries(
    handle,
    changes.map((c) => c.path),
  );
  const behind = changes.filter(({ path, before }) => !index.unmerged.has(path) && sameEntry(index.entries.get(path), before));
  if (behind.length === 0) return [];
  // Not on a detached HEAD nor in the middle of a merge, rebase, cherry-pick: the index is then that operation's.
  const state = await gitState(handle);
  if (state.head !== head || state.detached || state.operation) return [];
  // A work tree that holds the parent's version too is the user's doing (`git checkout HEAD^ -- file`, `git rm`): theirs to keep.
  const restoredByUser = await holdsVersion(handle, behind);
  const repair: Entries = new Map(behind.filter((c) => !restoredByUser.has(c.path)).map((c) => [c.path, c.entry]));
  await writeEntries(handle, repair, head.length);
  return [...repair.keys()].map((path) => (path.startsWith(handle.prefix) ? path.slice(handle.prefix.length) : path));
}

/** The paths whose work-tree file holds the version `before` (an absent file: no version). */
async function holdsVersion(handle: GitHandle, changes: TreeChange[]): Promise<Set<string>> {
  const holds = new Set<string>();
  const toHash: TreeChange[] = [];
  for (const change of changes) {
    const stat = lstatSync(join(handle.top, change.path), { throwIfNoEntry: false });
    if (!stat) {
      if (!change.before) holds.add(change.path);
    } else if (change.before && stat.isFile() && !change.path.includes('\n')) toHash.push(change);
  }
  if (toHash.length > 0) {
    const shas = (await runGit(handle, ['hash-object', '--stdin-paths'], { input: toHash.map((c) => `${c.path}\n`).join('') })).split('\n');
    toHash.forEach((change, i) => {
      if (shas[i] === change.before?.sha) holds.add(change.path);
    });
  }
  return holds;
}
