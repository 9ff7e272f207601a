/**
 * Every test repository is a fresh folder under the system's temporary
 * folder, and autopilot finds a repository's root by walking up to a folder
 * with `_docs/`, `.autopilot/` or `.git`. A stray `_docs/` left in the
 * temporary folder itself (by a command run there) would become the root of
 * every test repository that has none of its own yet: refuse to run on it.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export default function guard(): void {
  for (let dir = tmpdir(); ; dir = dirname(dir)) {
    for (const marker of ['_docs', '.autopilot']) {
      if (existsSync(join(dir, marker)))
        throw new Error(`${join(dir, marker)} exists: every test repository under ${tmpdir()} would take ${dir} for its root. Move it away and run again.`);
    }
    if (dirname(dir) === dir) return;
  }
}
