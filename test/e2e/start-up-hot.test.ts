/**
 * No function of autopilot's runs hot on the paths an agent calls dozens of
 * times a session: V8 marks a function it finds hot for Turbofan, compiles it
 * on the other core, and the process waits for that compile at exit, which
 * costs more than the function saves in one short call (docs/performance.md,
 * the third and fifth passes). The built-in flows' fingerprint was such a
 * loop, a character at a time, on every `status` and `next`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/engine.js';
import { exampleCopy, tempRepo } from '../helpers/cli.js';

/** The names of the functions V8 marked for optimisation during one call of the built CLI (its code cache kept apart: a V8 flag rejects it). */
function markedHot(dir: string, cli: string, ...args: string[]): string[] {
  const run = spawnSync(process.execPath, ['--trace-opt', cli, '-C', dir, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NODE_COMPILE_CACHE: tempRepo(), AUTOPILOT_SESSION: 'hot-test' },
  });
  expect([0, 3], run.stderr).toContain(run.status);
  return [...run.stdout.matchAll(/\[marking \S+ <JSFunction (\S*) /g)].map((m) => m[1]!);
}

/** Whether `name` is a function of the bundle (defined in dist/cli.cjs or the git layer), not one of Node's own. */
function ours(name: string, bundles: string): boolean {
  const escaped = name.replace(/[$]/g, '\\$');
  return name !== '' && new RegExp(`(?:function ${escaped}\\(|[,;{ ]${escaped}=(?:function|\\(|async|[\\w$]+=>))`).test(bundles);
}

it("status --json and next --json on the example (the step in progress) mark none of autopilot's functions hot (2 commands, 0 of the bundle's functions marked)", () => {
  const dir = exampleCopy();
  const cli = join(ROOT, 'bin', 'autopilot.js');
  for (let i = 0; i < 2; i++) expect([0, 3]).toContain(spawnSync(process.execPath, [cli, '-C', dir, 'next', '--json']).status);
  const bundles = ['cli.cjs', 'lazy/git.cjs'].map((file) => readFileSync(join(ROOT, 'dist', file), 'latin1')).join('\n');
  const found: Record<string, string[]> = {};
  for (const command of ['status', 'next']) found[command] = markedHot(dir, cli, command, '--json').filter((name) => ours(name, bundles));
  console.log(`functions of autopilot's marked hot: status ${found.status!.length}, next ${found.next!.length}`);
  expect(found).toEqual({ status: [], next: [] });
});
