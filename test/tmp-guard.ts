/**
 * Every test repository is a fresh folder under the system's temporary
 * folder, and autopilot, like git, finds a repository's root by walking up
 * (to a folder with `_docs/`, `.autopilot/` or `.git`). The tests set
 * GIT_CEILING_DIRECTORIES to the temporary folder (vitest.config.ts), so
 * neither looks above a test repository; this guard says after the run if a
 * test left such a marker in the temporary folder or above it, which means a
 * command ran outside its test repository.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const MARKERS = ['_docs', '.autopilot', '.git'];

function strayMarkers(): string[] {
  const found: string[] = [];
  for (let dir = tmpdir(); ; dir = dirname(dir)) {
    for (const marker of MARKERS) if (existsSync(join(dir, marker))) found.push(join(dir, marker));
    if (dirname(dir) === dir) return found;
  }
}

export default function guard(): () => void {
  const before = new Set(strayMarkers());
  return () => {
    const left = strayMarkers().filter((m) => !before.has(m));
    if (left.length > 0) throw new Error(`${left.join(', ')} appeared during the run: a command ran outside its test repository`);
  };
}
