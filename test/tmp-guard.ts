/**
 * Every test repository is a fresh folder under the system's temporary
 * folder, and autopilot, like git, finds a repository's root by walking up
 * (to a folder with `.git`, `.autopilot/`, or a run in `_docs/`). The tests set
 * GIT_CEILING_DIRECTORIES to the temporary folder (vitest.config.ts), so
 * neither looks above a test repository. A marker that appears in the
 * temporary folder or above it means a command ran outside its test
 * repository: the test file it appeared during fails (`tmp-guard-file.ts`,
 * run around each file), and so does the run (this global teardown sets the
 * exit code, so `npm test` fails, not only prints after a green summary).
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const MARKERS = ['_docs', '.autopilot', '.git'];

/** Every marker in the temporary folder and each folder above it. */
export function strayMarkers(): string[] {
  const found: string[] = [];
  for (let dir = tmpdir(); ; dir = dirname(dir)) {
    for (const marker of MARKERS) if (existsSync(join(dir, marker))) found.push(join(dir, marker));
    if (dirname(dir) === dir) return found;
  }
}

/** The error for markers that appeared since `before` was taken; undefined when none did. */
export function appeared(before: ReadonlySet<string>, during: string): Error | undefined {
  const left = strayMarkers().filter((m) => !before.has(m));
  return left.length > 0 ? new Error(`${left.join(', ')} appeared during ${during}: a command ran outside its test repository`) : undefined;
}

export default function guard(): () => void {
  const before = new Set(strayMarkers());
  return () => {
    const error = appeared(before, 'the run');
    if (!error) return;
    process.exitCode = 1;
    throw error;
  };
}
