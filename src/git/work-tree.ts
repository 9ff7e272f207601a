/**
 * The work tree as git would record it: a snapshot taken when a step starts,
 * and what changed since, when it ends, so the step's progress commit holds
 * the step's work and not what the person had changed before it. Both read
 * the work tree through a temporary index; the user's index is never
 * touched.
 */
import { copyFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../errors.js';
import { createHash } from 'node:crypto';
import { GitCommandError, indexUnreadable, SnapshotGone } from './errors.js';
import { parseRawDiff, userIndexFile, type Change } from './index-entries.js';
import { refsOnDisk } from './refs-on-disk.js';
import { runGit, runGitOr, type GitHandle } from './run.js';
import { withTempIndex } from './temp-index.js';

export interface WorkTreeChange {
  /** Relative to the repository root (autopilot's root, as every path the layer takes). */
  path: string;
  change: Change;
}

/**
 * The sha of a tree object that records the whole work tree as it is now:
 * tracked files as they are on disk (staged or not), untracked files that
 * `.gitignore` (and `.git/info/exclude`, `core.excludesFile`) does not
 * exclude, deleted files left out. The tree is written to the object
 * database, not to any ref: keep its sha (the journal) and pass it to
 * `changedSince`. Unreferenced, it is kept by `git gc` for two weeks
 * (`gc.pruneExpire`); `keepSnapshot` makes it reachable for as long as the
 * step runs.
 *
 * How: a copy of the user's index (its stat data spares hashing the files
 * that did not change) in a temporary index, `git add --all`, `write-tree`.
 * The user's index, HEAD and the work tree are left as they were; a kill
 * leaves at most the temporary index, which `cleanLeftovers` removes.
 */
export async function snapshotWorkTree(handle: GitHandle): Promise<string> {
  return withTempIndex(handle, async (inTempIndex, path) => {
    const copied = await readWorkTree(handle, inTempIndex, path);
    try {
      return (await runGit(handle, ['write-tree'], inTempIndex)).trim();
    } catch (error) {
      throw copied ? indexUnreadable(userIndexFile(handle), error) : error;
    }
  });
}

/**
 * Fills the temporary index at `path` with the work tree as `snapshotWorkTree`
 * records it: a copy of the user's index, then `git add --all`. Without a
 * user's index, it starts from HEAD (`head`: HEAD's commit as the caller
 * knows it, `null` for none; asked of git when not given). Returns whether
 * the user's index was copied.
 */
export async function readWorkTree(handle: GitHandle, inTempIndex: { env: Record<string, string> }, path: string, head?: string | null): Promise<boolean> {
  const copied = copyIndex(join(handle.gitDir, 'index'), path);
  // No index yet (a fresh repository, or one whose index was deleted): start from HEAD, if there is one.
  if (!copied && (head ?? (head === undefined ? await runGitOr(handle, ['rev-parse', '--quiet', '--verify', 'HEAD^{tree}'], 1) : undefined))) {
    await runGit(handle, ['read-tree', 'HEAD'], inTempIndex);
  }
  try {
    await runGit(handle, ['add', '--all'], inTempIndex);
  } catch (error) {
    // The copy is the user's index: one git cannot read is theirs to rebuild, said as such (never an internal error).
    throw copied ? indexUnreadable(userIndexFile(handle), error) : error;
  }
  return copied;
}

/**
 * Copies an index file, its modification time kept (a hair earlier, never
 * later): git trusts an entry's stat data only when the file changed before
 * the index was written, so a copy dated now would pass over a file changed
 * in the same instant as the index (git's "racy" entries). False when there
 * is no index to copy.
 */
export function copyIndex(from: string, to: string): boolean {
  let written: bigint;
  try {
    written = statSync(from, { bigint: true }).mtimeNs;
    copyFileSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return false;
  }
  // A microsecond earlier: the conversion to seconds may round up by a fraction of that.
  const seconds = Number(written - 1000n) / 1e9;
  utimesSync(to, seconds, seconds);
  return true;
}

/**
 * What changed in the work tree since the snapshot `tree` (from
 * `snapshotWorkTree`): files added, modified (content, mode, a file become a
 * link) and deleted, ignored files left out, under the repository root only,
 * sorted by path. A file changed and changed back counts as unchanged.
 */
export async function changedSince(handle: GitHandle, tree: string): Promise<WorkTreeChange[]> {
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(tree)) {
    throw new InputError({ message: `${tree}: not a snapshot`, expected: 'the sha snapshotWorkTree gave, 40 or 64 hex digits', received: tree });
  }
  const now = await snapshotWorkTree(handle);
  let out: string;
  try {
    out = await runGit(handle, [
      '--literal-pathspecs',
      'diff-tree',
      '-r',
      '-z',
      '--raw',
      '--no-renames',
      tree,
      now,
      ...(handle.prefix ? ['--', handle.prefix] : []),
    ]);
  } catch (error) {
    if (error instanceof GitCommandError && !(await runGitOr(handle, ['cat-file', '-t', tree], 128))) {
      throw new SnapshotGone(tree, error);
    }
    throw error;
  }
  return parseRawDiff(out)
    .map(({ path, change }) => ({ path: path.slice(handle.prefix.length), change }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * The ref that keeps the running step's snapshot reachable, so `git gc`
 * (`--prune=now`, or `gc --auto` two weeks on) cannot remove it: one a
 * repository root, named by a hash of this work tree's git folder and the
 * root below its top (a linked work tree, a monorepo's packages each have
 * their own run), and a named run's name (runs in one work tree each have
 * their own). It names a tree, not a commit: `git log --all` passes it
 * over, and it is never pushed (refs outside `refs/heads/` and `refs/tags/`
 * are not, by default).
 */
export function snapshotRef(handle: Pick<GitHandle, 'gitDir' | 'prefix' | 'run'>): string {
  return `refs/autopilot/start/${refKey(handle)}`;
}

/**
 * The ref that keeps the snapshot of a step whose commit git could not take
 * (a detached HEAD, a lock, a hook) reachable until a later commit holds its
 * work: `snapshotRef` is replaced when the next step begins.
 */
export function owedSnapshotRef(handle: Pick<GitHandle, 'gitDir' | 'prefix' | 'run'>): string {
  return `refs/autopilot/owed/${refKey(handle)}`;
}

// A named run's refs are its own: two runs stepping in one work tree never replace each other's snapshot (docs/runs.md).
const refKey = (handle: Pick<GitHandle, 'gitDir' | 'prefix' | 'run'>) =>
  createHash('sha1')
    .update(`${handle.gitDir}\0${handle.prefix}${handle.run === undefined ? '' : `\0${handle.run}`}`)
    .digest('hex')
    .slice(0, 16);

/** Points this root's snapshot ref at `tree`: it stays reachable until `releaseSnapshot`, or the next step's snapshot replaces it. */
export async function keepSnapshot(handle: GitHandle, tree: string): Promise<void> {
  await runGit(handle, ['update-ref', '-m', 'autopilot: the work tree when the step started', snapshotRef(handle), tree]);
}

/** Points this root's owed ref at `tree`, the snapshot a commit still owed is measured against: kept until `releaseSnapshot`. */
export async function keepOwedSnapshot(handle: GitHandle, tree: string): Promise<void> {
  await runGit(handle, ['update-ref', '-m', 'autopilot: the work tree when a step whose commit is owed started', owedSnapshotRef(handle), tree]);
}

/**
 * Removes this root's snapshot refs (the running step's, and an owed
 * commit's) that still name `tree`: its commit is made, nothing needs the
 * snapshot any more. One that names another (a later step's), or none, is
 * left alone. Never throws for that.
 */
export async function releaseSnapshot(handle: GitHandle, tree: string): Promise<void> {
  const deletions = await releasing(handle, tree);
  if (deletions === '') return;
  try {
    await runGit(handle, ['update-ref', '--stdin'], { input: deletions });
  } catch (error) {
    // Moved meanwhile (another step started): that one is kept.
    if (!(error instanceof GitCommandError)) throw error;
  }
}

/** The `update-ref --stdin` lines that delete this root's snapshot refs still naming `tree` (`''` for none): what `releaseSnapshot` runs. */
export async function releasing(handle: GitHandle, tree: string): Promise<string> {
  const names = [snapshotRef(handle), owedSnapshotRef(handle)];
  // Read from the git folder's files where they tell for certain (no process); asked of git otherwise.
  const onDisk = refsOnDisk(handle, names);
  const out = onDisk
    ? [...onDisk].flatMap(([name, sha]) => (sha === null ? [] : [`${sha} ${name}`])).join('\n')
    : await runGit(handle, ['for-each-ref', '--format=%(objectname) %(refname)', ...names]);
  return out
    .split('\n')
    .filter((line) => line.startsWith(`${tree} `))
    .map((line) => `delete ${line.slice(tree.length + 1)} ${tree}\n`)
    .join('');
}
