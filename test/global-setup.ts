/** The end-to-end tests run the built CLI: build it when it is missing or older than the sources. */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

export default function setup(): void {
  const built = join(root, 'dist', 'cli.cjs');
  const sources = Math.max(newest(join(root, 'src')), newest(join(root, 'flows')));
  if (!existsSync(built) || statSync(built).mtimeMs < sources) {
    execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
  }
}
