/**
 * What a call loads of Node itself: `child_process` brings `net`, `dgram` and
 * the streams (docs/performance.md), so the commands an agent calls dozens of
 * times a session never load it; only a command that runs a program does
 * (`exec`, `init`'s git questions, the git layer), and then on the call.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/engine.js';
import { exampleCopy, tempRepo } from '../helpers/cli.js';

/** The Node modules a call of the built CLI loaded, read at its exit. */
function loaded(dir: string, ...args: string[]): string[] {
  const out = join(tempRepo(), 'modules.txt');
  const preload = join(tempRepo(), 'preload.cjs');
  writeFileSync(preload, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')));\n`);
  const run = spawnSync(process.execPath, ['-r', preload, join(ROOT, 'bin', 'autopilot.js'), '-C', dir, ...args], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return readFileSync(out, 'utf8').split('\n');
}

it('status --json and next --json on the example load none of child_process, net and dgram (2 commands × 3 modules)', () => {
  const dir = exampleCopy();
  for (const args of [
    ['status', '--json'],
    ['next', '--json'],
  ]) {
    const modules = loaded(dir, ...args);
    for (const name of ['child_process', 'net', 'dgram']) expect(modules, `${args.join(' ')} loaded ${name}`).not.toContain(`NativeModule ${name}`);
  }
});
