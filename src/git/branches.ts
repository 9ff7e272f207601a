/**
 * The branch each commit is on, for the runs overview (`app/views/runs.ts`):
 * one `git name-rev` for every commit asked, against the local branches only,
 * so the nearest branch whose history holds a commit names it. A commit no
 * branch holds, or git that cannot answer (no repository, no git), has none.
 */
import { gitEnvironment, runGit } from './run.js';

export async function branchesOf(root: string, shas: readonly string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const asked = shas.filter((sha) => /^[0-9a-f]{7,64}$/.test(sha));
  if (asked.length === 0) return found;
  let said: string;
  try {
    said = await runGit({ top: root, env: gitEnvironment() }, ['name-rev', '--name-only', '--refs=refs/heads/*', ...asked]);
  } catch {
    return found;
  }
  const names = said.split('\n');
  asked.forEach((sha, i) => {
    // `main~2` and `main^2~1` are on `main`; `undefined` is no branch.
    const name = names[i]?.trim().replace(/[~^].*$/, '');
    if (name && name !== 'undefined') found.set(sha, name);
  });
  return found;
}
