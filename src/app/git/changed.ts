/**
 * Which of some paths git sees changed against its index (modified, deleted,
 * staged): what a `git add` of exactly those paths would commit. Read with
 * one `git status`, loaded on the call (child_process brings net and the
 * streams, which no other command of the CLI pays for); a path git does not
 * track (`??`) is not among them, and neither is anything without git.
 */
import type { Repo } from '../../io/repo.js';

/** The paths (relative to the root; a folder holds what is below it) git sees changed; undefined where git cannot say (no git, not a repository). */
export function changedInGit(repo: Pick<Repo, 'root'>, paths: readonly string[]): string[] | undefined {
  const { spawnSync } = process.getBuiltinModule('node:child_process');
  if (paths.length === 0) return [];
  const status = spawnSync('git', ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', ...paths], { cwd: repo.root, encoding: 'utf8' });
  if (status.status !== 0) return undefined;
  // Porcelain paths are the work tree's; the root may be a folder below its top.
  const prefix = spawnSync('git', ['rev-parse', '--show-prefix'], { cwd: repo.root, encoding: 'utf8' }).stdout?.trim() ?? '';
  const changed = status.stdout
    .split('\0')
    .filter((entry) => entry.length > 3 && !entry.startsWith('??'))
    .map((entry) => entry.slice(3))
    .map((path) => (prefix && path.startsWith(prefix) ? path.slice(prefix.length) : path));
  return paths.filter((path) => changed.some((c) => c === path || c.startsWith(`${path}/`)));
}
