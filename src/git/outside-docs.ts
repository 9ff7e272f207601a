/**
 * What the work tree holds outside the docs folder that HEAD does not: the
 * uncommitted code a step is working on (docs/runs.md, "Commits, worktrees
 * and merging back"). One `git status`, taking no optional lock (it never
 * rewrites the index), ignored files left out.
 */
import { runGit, type GitHandle } from './run.js';

/**
 * The paths (relative to autopilot's root) outside the folder `docs` (as
 * given, relative to the root) that differ from HEAD: modified, staged,
 * deleted, or untracked and not ignored. Sorted; at most `limit` of them.
 */
export async function changedOutsideDocs(handle: GitHandle, docs: string, limit = 20): Promise<string[]> {
  const root = handle.prefix === '' ? '.' : handle.prefix;
  const args = ['--no-optional-locks', 'status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames'];
  const out = await runGit(handle, [...args, '--', root, `:(top,exclude)${handle.prefix}${docs}`]);
  const paths = out
    .split('\0')
    .filter((entry) => entry.length > 3)
    .map((entry) => entry.slice(3))
    .filter((path) => path.startsWith(handle.prefix))
    .map((path) => path.slice(handle.prefix.length));
  return [...new Set(paths)].sort().slice(0, limit);
}
