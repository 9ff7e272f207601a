/** Where a step's skill file is: the repository's `.autopilot/skills/<name>/SKILL.md`, else the package's. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './package-root.js';
import type { Repo } from './repo.js';

export function skillFile(repo: Repo, name: string): { path: string; exists: boolean } {
  const own = join(repo.repoSkillsDir, name, 'SKILL.md');
  if (existsSync(own)) return { path: own, exists: true };
  const builtIn = join(packageRoot(), 'skills', name, 'SKILL.md');
  return { path: builtIn, exists: existsSync(builtIn) };
}
