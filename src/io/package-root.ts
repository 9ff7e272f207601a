/** The installed package's own folder, where the built-in flows and skills live. */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

export function packageRoot(): string {
  if (cached) return cached;
  // From dist/cli.cjs (bundled) or src/io/package-root.ts (tests): walk up to the folder with flows/ and package.json.
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'flows'))) return (cached = dir);
    if (dirname(dir) === dir) throw new Error(`autopilot cannot find its own flows/ folder above ${fileURLToPath(import.meta.url)}`);
  }
}
