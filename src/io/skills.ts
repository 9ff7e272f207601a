/**
 * Where a step's skill file is: the repository's `.autopilot/skills/<name>/SKILL.md`,
 * else the package's. autopilot never reads it, but names it for the agent to
 * read whole at every step; so a repository's file must be a regular file
 * within the size limit, checked with one stat.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Problem } from '../errors.js';
import { SKILL_MAX_BYTES } from '../limits.js';
import { packageRoot } from './package-root.js';
import { checkFile } from './read-bounded.js';
import { displayPath, isInside, type Repo } from './repo.js';

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

/**
 * The path the agent is told to read: short and stable. A built-in skill of
 * autopilot installed as a dependency is `node_modules/<pkg>/skills/<name>/SKILL.md`,
 * relative to the repository, even when `node_modules/<pkg>` is a link to a
 * checkout elsewhere (`npm install <path>`); anything else as `displayPath` says.
 */
export function skillDisplayPath(repo: Repo, path: string): string {
  const root = packageRoot();
  if (isInside(root, path) && !isInside(repo.root, path)) {
    const name = packageName(root);
    const installed = name && join(repo.root, 'node_modules', name);
    if (installed && existsSync(installed) && realpathSync.native(installed) === realpathSync.native(root)) {
      return ['node_modules', name, ...relative(root, path).split(sep)].join('/');
    }
  }
  return displayPath(path, repo.root);
}

function packageName(root: string): string | undefined {
  try {
    const name = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name?: unknown }).name;
    return typeof name === 'string' && /^(@[\w.-]+\/)?[\w.-]+$/.test(name) ? name : undefined;
  } catch {
    return undefined;
  }
}
