/**
 * File paths as git wants them. Callers give paths relative to autopilot's
 * repository root (`_docs/_autopilot_state.md`); git names files relative to
 * the top of the work tree, which may be a folder above (a monorepo).
 */
import { posix } from 'node:path';
import { InputError } from '../errors.js';
import type { GitHandle } from './run.js';

/**
 * `_docs/x.md` under root `packages/app/` → `packages/app/_docs/x.md`. Refuses
 * a path that leaves the repository root, as every other path autopilot uses.
 */
export function topPath(handle: Pick<GitHandle, 'prefix'>, relPath: string): string {
  const path = posix.normalize(process.platform === 'win32' ? relPath.replace(/\\/g, '/') : relPath);
  if (relPath === '' || posix.isAbsolute(path) || path === '.' || path === '..' || path.startsWith('../') || path.endsWith('/')) {
    throw new InputError({
      message: `${relPath || '(empty)'}: not a file path inside the repository`,
      expected: 'a path relative to the repository root, e.g. `_docs/_autopilot_state.md`',
      received: relPath,
    });
  }
  return handle.prefix + path;
}
