#!/usr/bin/env node
// The published entry point: the bundled CLI. In a fresh clone, `npm run build` makes it.
import { existsSync } from 'node:fs';
import module from 'node:module';

// Node 22+ keeps compiled code between calls; an agent calls autopilot every turn. A no-op on Node 20.
module.enableCompileCache?.();

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('autopilot: dist/cli.js is missing; run `npm run build` in the autopilot folder first.\n');
  process.exit(1);
}
await import(cli.href);
