/**
 * Where a step's skill file is: the repository's `.autopilot/skills/<name>/SKILL.md`,
 * else the package's. autopilot never reads it, but names it for the agent to
 * read whole at every step; so a repository's file must be a regular file
 * within the size limit, checked with one stat.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Problem } from '../errors.js';
import { SKILL_MAX_BYTES } from '../limits.js';
import { packageRoot } from './package-root.js';
import { checkFile } from './read-bounded.js';
import { displayPath, type Repo } from './repo.js';

export interface SkillFile {
  path: string;
  exists: boolean;
  /** Why the file that exists cannot be handed to the agent (not a regular file, or too large). */
  problem?: Problem;
}

export function skillFile(repo: Repo, name: string): SkillFile {
  const own = join(repo.repoSkillsDir, name, 'SKILL.md');
  const path = existsSync(own) ? own : join(packageRoot(), 'skills', name, 'SKILL.md');
  if (!existsSync(path)) return { path, exists: false };
  const problem = checkFile(path, displayPath(path, repo.root), 'skill file', SKILL_MAX_BYTES);
  return problem ? { path, exists: true, problem } : { path, exists: true };
}
