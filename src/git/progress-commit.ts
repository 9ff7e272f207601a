/**
 * A progress commit: the named files and the paths a step changed, as they
 * are in the work tree, committed on top of HEAD, and nothing else. The
 * user's index is not used to build it: the commit is assembled in a
 * temporary index (with the step's snapshot known, from one read of the
 * work tree, as a snapshot reads it); then the branch is locked (a compare-and-swap, prepared),
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
import { GitCommandError, ProgressCommitRefused, SigningFailed, SnapshotGone } from './errors.js';
import { readEntries, sameEntry, writeEntries, parseRawDiff, type Entries, type Entry, type TreeChange } from './index-entries.js';
import { topPath } from './paths.js';
import { commitText, TRAILER, type CommitMessage } from './progress-message.js';
import { gitState, type GitState } from './repository.js';
import { converseWithGit, runGit, runGitOr, type GitHandle } from './run.js';
import { judgedPins, readJudged, type JudgedFile } from './judged.js';
import { withTempIndex } from './temp-index.js';
import { copyIndex, readWorkTree, releasing, type WorkTreeChange } from './work-tree.js';

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
export { ProgressCommitRefused, SnapshotGone } from './errors.js';
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
   * Paths that changed in the work tree during the step (`changedSince`'s
   * answer, or its paths), committed like `files`. Files the person had
   * changed or staged before the step are not in it, so they stay out of
   * the commit.
   */
  changed?: readonly (string | WorkTreeChange)[];
  /**
   * The work tree when the step began (`snapshotWorkTree`): what changed
   * since is committed too, as `changed` is, told in the same pass of git
   * that reads the work tree for the commit. A snapshot pruned since throws
   * `SnapshotGone` before anything is written.
   */
  since?: string;
  /** Paths (relative to the root) that what changed since `since` never brings in: autopilot's machine-local files. */
  exclude?: (path: string) => boolean;
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
  /** The state of the work tree as the command found it (`openGit`), so it is not asked again; the branch's move still checks HEAD. */
  state?: GitState;
  /** A snapshot whose refs (`releaseSnapshot`) go once the commit is made, in the same `update-ref` that moves the branch. */
  release?: string;
}

/**
 * Commits `files` and `changed` (and what changed since `since`) with
 * `message` and `trailers` on the checked-out branch and returns the new
 * commit's sha, or undefined when those paths are already committed as they
 * are (no empty commit is made). Never pushes; runs no hooks (`commit-tree`
 * does not); signs as `git commit` does (`sign`).
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

/**
 * `progressCommit`, saying also which judged files had changed since they
 * were judged (`input.judged`). One pass of git: the tree built in a
 * temporary index (`stepTree`), committed, the branch moved with the
 * snapshot's refs dropped; whether to sign and which refs name the snapshot
 * asked meanwhile.
 */
export async function commitProgress(handle: GitHandle, input: ProgressCommitInput): Promise<ProgressCommitMade> {
  const listed = [...input.files, ...(input.changed ?? []).map((c) => (typeof c === 'string' ? c : c.path)), ...(input.judged ?? []).map((j) => j.path)];
  const named = new Set(listed.map((file) => topPath(handle, file)));
  // Early, so a bad subject or trailer name throws before git is asked anything.
  commitText(input);
  if (named.size === 0 && input.since === undefined) return { changedAfterJudging: [], leftOut: [] };
  const state = input.state ?? (await gitState(handle));
  refuseUnlessOnBranch(state);
  const signing = handled(input.sign === undefined ? signsCommits(handle) : Promise.resolve(input.sign));
  const cleanup = input.release === undefined ? Promise.resolve('') : releasing(handle, input.release).catch(() => '');

  return withTempIndex(handle, (inTempIndex, path) =>
    withTempIndex(handle, async (before, beforePath) => {
      // The user's index as the commit began: what a failed branch move puts back.
      copyIndex(join(handle.gitDir, 'index'), beforePath);
      const built = await stepTree(handle, state, input, named, { inTempIndex, path });
      const said = { changedAfterJudging: built.changedAfterJudging, leftOut: built.leftOut };
      if (built.changes.length === 0) return said;
      const text = commitText(input, input.listFiles === false ? [] : built.changes);
      const commit = await commitTree(handle, built.tree, state.head, text, await signing);
      const sha = await moveBranch(handle, state, commit, text.split('\n')[0]!, built.changes, { before, cleanup: await cleanup });
      return { sha, ...said };
    }),
  );
}

/** A promise whose rejection is awaited later, maybe never (the commit stopped before it was needed): never an unhandled rejection. */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/**
 * The branch locked first (nothing written if that fails), then the user's
 * index set to the commit for the committed paths, then the branch moved (and
 * the snapshot's refs dropped, `cleanup`): a kill in between aborts the ref
 * transaction (git reads the end of its input), leaving the index ahead of
 * HEAD, never behind. A failed move puts back what the index held before
 * (read from its copy, `before`).
 */
async function moveBranch(
  handle: GitHandle,
  state: GitState,
  commit: string,
  subject: string,
  changes: readonly TreeChange[],
  keep: { before: { env: Record<string, string> }; cleanup: string },
): Promise<string> {
  const committed = changes.map((c) => c.path);
  const after: Entries = new Map(changes.map((c) => [c.path, c.entry]));
  const branch = await lockBranch(handle, state, commit, subject);
  try {
    await writeEntries(handle, after, commit.length);
  } catch (error) {
    await branch.abort();
    throw error;
  }
  try {
    await branch.commit(keep.cleanup);
  } catch (error) {
    const restore = async () => restoreEntries(handle, committed, (await readEntries(handle, committed, keep.before)).entries, after, commit.length);
    await restore().catch(() => undefined);
    throw error;
  }
  return commit;
}

interface StepTree {
  tree: string;
  /** What the tree changes against HEAD: what the commit holds. */
  changes: TreeChange[];
  changedAfterJudging: string[];
  leftOut: string[];
}

/**
 * The tree to commit: HEAD's, with the named paths and what changed since
 * `input.since` as they are in the work tree, and each judged file as judged
 * (a judged file changed since it was judged is never read from the work
 * tree: its version judged goes in).
 */
async function stepTree(
  handle: GitHandle,
  state: GitState,
  input: ProgressCommitInput,
  named: ReadonlySet<string>,
  temp: { inTempIndex: { env: Record<string, string> }; path: string },
): Promise<StepTree> {
  const { inTempIndex } = temp;
  // Read before git reads the work tree, and checked after.
  const judged = readJudged(handle, input.judged ?? []);
  const moved = new Set(judged.moved.map((m) => m.top));
  const read =
    input.since === undefined
      ? await byName(
          handle,
          state,
          [...named].filter((p) => !moved.has(p)),
          inTempIndex,
        )
      : await sinceSnapshot(handle, state, { ...input, since: input.since }, named, moved, temp);
  let { tree, changes } = read;
  const pins = await judgedPins(handle, judged, changes);
  // A judged file whose version judged is gone stays out of the commit: HEAD's version, as the person's own changes.
  for (const shown of pins.left) {
    const top = handle.prefix + shown;
    const differs = read.fromHead.find((c) => c.path === top);
    if (differs) pins.entries.set(top, differs.before);
  }
  if (pins.entries.size > 0) {
    await writeEntries(handle, pins.entries, tree.length, inTempIndex);
    tree = (await runGit(handle, ['write-tree'], inTempIndex)).trim();
    changes = await treeChanges(handle, state.tree, tree);
  }
  return { tree, changes, changedAfterJudging: pins.changed, leftOut: pins.left };
}

interface TreeRead {
  tree: string;
  /** What the commit holds against HEAD. */
  changes: TreeChange[];
  /** Everything the temporary index differs from HEAD in, as read (the commit's changes and any set back). */
  fromHead: TreeChange[];
}

/**
 * No snapshot to measure against (a commit of the step's files only): HEAD's
 * tree with `paths` read from the work tree by name; the rest of the work
 * tree is never read.
 */
async function byName(handle: GitHandle, state: GitState, paths: readonly string[], inTempIndex: { env: Record<string, string> }): Promise<TreeRead> {
  if (state.head) await runGit(handle, ['read-tree', state.head], inTempIndex);
  // --add takes in new files, --remove drops the ones gone from the work tree.
  if (paths.length > 0)
    await runGit(handle, ['update-index', '--add', '--remove', '-z', '--stdin'], { ...inTempIndex, input: paths.map((p) => `${p}\0`).join('') });
  const tree = (await runGit(handle, ['write-tree'], inTempIndex)).trim();
  const changes = await treeChanges(handle, state.tree, tree);
  return { tree, changes, fromHead: changes };
}

/**
 * What changed since the snapshot `input.since`, and the named paths: the
 * work tree read once into the temporary index (as a snapshot reads it: a
 * copy of the user's index, `add --all`), what differs from HEAD and from the
 * snapshot told by one `diff-tree`; what differs from HEAD but is not the
 * commit's (the person's own changes, autopilot's machine-local files) set
 * back to HEAD's there. A named path git's read passed over (ignored, or
 * unchanged: git cannot tell which) is read by name.
 */
async function sinceSnapshot(
  handle: GitHandle,
  state: GitState,
  input: ProgressCommitInput & { since: string },
  named: ReadonlySet<string>,
  moved: ReadonlySet<string>,
  temp: { inTempIndex: { env: Record<string, string> }; path: string },
): Promise<TreeRead> {
  const { inTempIndex } = temp;
  await readWorkTree(handle, inTempIndex, temp.path, state.head ?? null);
  const now = (await runGit(handle, ['write-tree'], inTempIndex)).trim();
  const [fromHead = [], sinceStart = []] = await diffTrees(handle, [state.tree ?? emptyTree(handle), now], input.since);
  const paths = new Set(named);
  for (const c of sinceStart) if (c.path.startsWith(handle.prefix) && !input.exclude?.(c.path.slice(handle.prefix.length))) paths.add(c.path);
  const differ = new Set(fromHead.map((c) => c.path));
  const passedOver = [...named].filter((p) => !differ.has(p) && !moved.has(p) && lstatSync(join(handle.top, p), { throwIfNoEntry: false }));
  const resets: Entries = new Map(fromHead.filter((c) => !paths.has(c.path)).map((c) => [c.path, c.before]));
  let tree = now;
  let changes = fromHead.filter((c) => paths.has(c.path));
  if (passedOver.length > 0 || resets.size > 0) {
    if (passedOver.length > 0)
      await runGit(handle, ['update-index', '--add', '--remove', '-z', '--stdin'], { ...inTempIndex, input: passedOver.map((p) => `${p}\0`).join('') });
    await writeEntries(handle, resets, now.length, inTempIndex);
    tree = (await runGit(handle, ['write-tree'], inTempIndex)).trim();
    if (passedOver.length > 0) changes = await treeChanges(handle, state.tree, tree);
  }
  return { tree, changes, fromHead };
}

/** The tree with no entry, as git names it in each object format (git knows it without it being stored). */
const emptyTree = (handle: GitHandle) =>
  handle.objectFormat === 'sha256' ? '6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321' : '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/**
 * What changed between each pair of trees, path by path (top-relative), in
 * one `git diff-tree --stdin`: `[from, to]`, and `since` against `to` when
 * given. A `since` git no longer has throws `SnapshotGone`.
 */
async function diffTrees(handle: GitHandle, [from, to]: [string, string], since?: string): Promise<TreeChange[][]> {
  const pairs: [string, string][] =
    since === undefined
      ? [[from, to]]
      : [
          [from, to],
          [since, to],
        ];
  let out: string;
  try {
    out = await runGit(handle, ['diff-tree', '--stdin', '-r', '-z', '--raw', '--no-renames'], { input: pairs.map((p) => `${p.join(' ')}\n`).join('') });
  } catch (error) {
    if (since !== undefined && error instanceof GitCommandError && (await snapshotGone(handle, since))) throw new SnapshotGone(since, error);
    throw error;
  }
  const answers = parseDiffs(out, pairs);
  // `diff-tree --stdin` passes over a tree it cannot read (said on stderr, exit 0): nothing told since the snapshot is asked about.
  if (since !== undefined && answers[1]!.length === 0 && (await snapshotGone(handle, since))) throw new SnapshotGone(since);
  return answers;
}

const snapshotGone = async (handle: GitHandle, tree: string) => !(await runGitOr(handle, ['cat-file', '-t', tree], 128));

/** `diff-tree --stdin -z --raw`'s answer, split by pair (`pairs` in the order given; a pair that does not differ gets none). */
function parseDiffs(out: string, pairs: readonly [string, string][]): TreeChange[][] {
  // Each pair that differs is headed by its two trees on a line of their own; one that does not is left out. A record is
  // `:<modes shas letter>\0<path>\0`, so a field that does not start with `:` where a record would is the next head.
  const answers = pairs.map((): TreeChange[] => []);
  let pair = -1;
  for (let at = 0; at < out.length;) {
    if (out[at] === ':') {
      const end = out.indexOf('\0', out.indexOf('\0', at) + 1);
      if (pair >= 0) answers[pair]!.push(...parseRawDiff(out.slice(at, end + 1)));
      at = end < 0 ? out.length : end + 1;
    } else {
      const end = out.indexOf('\n', at);
      const head = out.slice(at, end < 0 ? out.length : end);
      pair = pairs.findIndex((p, k) => p.join(' ') === head && answers[k]!.length === 0);
      at = end < 0 ? out.length : end + 1;
    }
  }
  return answers;
}

/** What the new tree changes against HEAD's (`base`: its tree; against nothing for a first commit), path by path. */
async function treeChanges(handle: GitHandle, base: string | undefined, tree: string): Promise<TreeChange[]> {
  return (await diffTrees(handle, [base ?? emptyTree(handle), tree]))[0]!;
}

/** `commit.gpgSign`, read as `git commit` reads it (unset: false; not a boolean: git's error). `--default` so git always answers. */
async function signsCommits(handle: GitHandle): Promise<boolean> {
  return (await runGit(handle, ['config', '--type=bool', '--default=false', '--get', 'commit.gpgSign'])).trim() === 'true';
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
  /** Moves the branch to the new commit and releases the lock; then `cleanup` (`update-ref --stdin` lines) in a transaction of its own, which may fail. */
  commit(cleanup?: string): Promise<void>;
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
    async commit(cleanup = '') {
      await git.say('commit\n', 1);
      if (cleanup === '') return void (await git.end());
      // The branch has moved: a cleanup git refuses (a ref moved meanwhile) leaves that ref, and nothing else, as it was.
      await git.end(`start\n${cleanup}prepare\ncommit\n`).catch(() => undefined);
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
