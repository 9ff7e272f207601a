/**
 * What a call loads of Node itself: `child_process` brings `net`, `dgram` and
 * the streams (docs/performance.md), so the commands an agent calls dozens of
 * times a session never load it; only a command that runs a program does
 * (`exec`, `init`'s git questions, the git layer), and then on the call.
 * `crypto` (40 modules with the streams) loads on the first hash, which a
 * `status` right after `init` never computes, nor a `status` or a resuming
 * `next` while the journal chain's verdict holds (`src/io/journal-verdict.ts`).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

it('status and next right after init never load the YAML parser: with dist/lazy/parse-yaml.js gone, 2 projects × 2 commands answer (settings of comments, `verify: npm test`, `verify: none`)', () => {
  // A copy of the package without its YAML bundle: a call that reached for it would fail.
  const pkg = tempRepo();
  for (const part of ['bin', 'dist', 'flows', 'skills', 'package.json']) cpSync(join(ROOT, part), join(pkg, part), { recursive: true });
  rmSync(join(pkg, 'dist', 'lazy', 'parse-yaml.js'));
  const cli = (dir: string, ...args: string[]) => spawnSync(process.execPath, [join(pkg, 'bin', 'autopilot.js'), '-C', dir, ...args], { encoding: 'utf8' });
  const plain = tempRepo();
  const tested = tempRepo();
  writeFileSync(join(tested, 'package.json'), '{"name":"x","scripts":{"test":"node --test"}}\n');
  for (const dir of [plain, tested]) expect(cli(dir, 'init', '--flow', 'greenfield').status).toBe(0);
  expect(readFileSync(join(tested, '.autopilot', 'config.yml'), 'utf8')).toMatch(/^verify: npm test$/m);
  writeFileSync(join(plain, '.autopilot', 'config.yml'), `${readFileSync(join(plain, '.autopilot', 'config.yml'), 'utf8')}verify: none\n`);
  for (const dir of [plain, tested]) {
    for (const args of [
      ['status', '--json'],
      ['next', '--json'],
    ]) {
      const run = cli(dir, ...args);
      expect(run.status, `${args[0]}: ${run.stderr}${run.stdout}`).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ flow: 'greenfield', step: 1 });
    }
  }
  // The control: settings only the YAML parser reads (a tag) reach for the bundle, and this package has none.
  writeFileSync(join(plain, '.autopilot', 'config.yml'), 'commit: !!bool false\n');
  expect(cli(plain, 'status', '--json').stdout).toMatch(/Cannot find module .*parse-yaml\.js/);
});

it('status --json right after init loads neither crypto nor the streams it brings: it has nothing to hash (1 command × 2 modules)', () => {
  const dir = tempRepo();
  expect(spawnSync('git', ['init', '-q', dir]).status).toBe(0);
  expect(spawnSync(process.execPath, [join(ROOT, 'bin', 'autopilot.js'), '-C', dir, 'init'], { encoding: 'utf8' }).status).toBe(0);
  const modules = loaded(dir, 'status', '--json');
  for (const name of ['crypto', 'stream']) expect(modules, `status after init loaded ${name}`).not.toContain(`NativeModule ${name}`);
});

it('status --json and next --json on a run with history load no crypto while the chain verdict holds, and status does without it (2 commands with it, 1 without: 0, 0 and 1 loads)', () => {
  const dir = exampleCopy();
  // A copy with no verdict (as a fresh clone): the journal's last lines are hashed.
  expect(loaded(dir, 'status', '--json'), 'status with no verdict').toContain('NativeModule crypto');
  // A writing command records the verdict; a second one, in a later clock tick, records it again if the first was racy.
  for (let i = 0; i < 2; i++) expect(spawnSync(process.execPath, [join(ROOT, 'bin', 'autopilot.js'), '-C', dir, 'next', '--json']).status).toBe(0);
  for (const args of [
    ['status', '--json'],
    ['next', '--json'],
  ]) {
    const modules = loaded(dir, ...args);
    for (const name of ['crypto', 'stream']) expect(modules, `${args[0]} with the verdict loaded ${name}`).not.toContain(`NativeModule ${name}`);
  }
});
