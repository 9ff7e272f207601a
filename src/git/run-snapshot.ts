/**
 * The work tree as a test run begins, and what changed in it since, outside
 * the docs folder (issue 29, point 4; docs/flow-format.md, "Outputs and
 * their checks"): tracked files as they are on disk and untracked ones git
 * does not ignore, recorded as a tree object. The tree is written to an
 * object store of autopilot's own, not to the git folder: an agent client's
 * sandbox may keep `.git` read-only while the work tree is writable (Codex's
 * `workspace-write` does), and `autopilot exec` runs there. The store is a
 * git object folder whose alternate is the repository's own, so a blob git
 * already holds is not copied; its temporary index sits beside it. The
 * caller keeps it in autopilot's cache folder, which git ignores. The
 * user's index, HEAD and git folder are only read.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { SnapshotGone } from './errors.js';

export { SnapshotGone };
import { parseRawDiff } from './index-entries.js';
import { runGit, runGitOr, type GitHandle } from './run.js';
import { copyIndex } from './work-tree.js';

/** The environment that reads and writes objects through the store, the repository's own objects behind it. */
async function storeEnv(handle: GitHandle, store: string): Promise<Record<string, string>> {
  const objects = resolve(handle.top, (await runGit(handle, ['rev-parse', '--git-path', 'objects'])).trim());
  mkdirSync(join(store, 'objects'), { recursive: true });
  return { GIT_OBJECT_DIRECTORY: join(store, 'objects'), GIT_ALTERNATE_OBJECT_DIRECTORIES: objects };
}

/** The pathspecs of the work tree under autopilot's root, the docs folder left out. */
const outsideDocs = (handle: GitHandle, docs: string) => [handle.prefix === '' ? '.' : handle.prefix, `:(top,exclude)${handle.prefix}${docs}`];

/** The sha of a tree holding the work tree outside the docs folder, as it is now, written to `store`. */
export async function snapshotRun(handle: GitHandle, store: string, docs: string): Promise<string> {
  const env = await storeEnv(handle, store);
  const index = join(store, `index-${process.pid}-${randomUUID().slice(0, 8)}`);
  const inIndex = { env: { ...env, GIT_INDEX_FILE: index } };
  try {
    // Its modification time kept: a copy dated now would make git trust the stat data of a file changed in the
    // instant the index was written (same size, same second), and a changed test file would pass unseen.
    const copied = copyIndex(join(handle.gitDir, 'index'), index);
    if (!copied && (await runGitOr(handle, ['rev-parse', '--quiet', '--verify', 'HEAD^{tree}'], 1))) await runGit(handle, ['read-tree', 'HEAD'], inIndex);
    await runGit(handle, ['add', '--all', '--', ...outsideDocs(handle, docs)], inIndex);
    return (await runGit(handle, ['write-tree'], inIndex)).trim();
  } finally {
    rmSync(index, { force: true });
    rmSync(`${index}.lock`, { force: true });
  }
}

/**
 * The paths (relative to autopilot's root) outside the docs folder that
 * differ between the snapshot `tree` and the work tree now: added, changed,
 * deleted. A tree the store no longer holds is `SnapshotGone`.
 */
export async function changedSinceRun(handle: GitHandle, store: string, tree: string, docs: string): Promise<string[]> {
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(tree)) throw new SnapshotGone(tree);
  const env = await storeEnv(handle, store);
  if (!(await runGitOr(handle, ['cat-file', '-t', tree], 128, { env }))) throw new SnapshotGone(tree);
  const now = await snapshotRun(handle, store, docs);
  const out = await runGit(handle, ['diff-tree', '-r', '-z', '--raw', '--no-renames', tree, now], { env });
  const docsPrefix = `${docs}/`;
  return parseRawDiff(out)
    .map(({ path }) => path)
    .filter((path) => path.startsWith(handle.prefix))
    .map((path) => path.slice(handle.prefix.length))
    .filter((path) => !path.startsWith(docsPrefix))
    .sort();
}
