/**
 * Colour where a person reads (issue 25): `status`, the progress line, a
 * decision, a failed step and an error in colour when asked for
 * (`FORCE_COLOR=1` stands for a terminal here), none with `NO_COLOR`, none on
 * a pipe, none in `--json`; colour never changes the text or its 80 columns.
 */
/* eslint-disable no-control-regex -- the escape sequences of colour are what these tests look for */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { autopilot, autopilotWith, tempRepo, write } from '../helpers/cli.js';

const ANSI = /\u001b\[[0-9;]*m/g;
const plain = (text: string) => text.replace(ANSI, '');
/** The lease's age moves between two runs: set aside. */
const still = (text: string) => text.replace(/last seen \d+ \w+ ago/, 'last seen a moment ago');
const FORCE = { FORCE_COLOR: '1' };

/** A greenfield run in a git repository with a first commit, one problem file short of step 1's evidence. */
function run(): string {
  const dir = tempRepo();
  for (const args of [
    ['init', '-q'],
    ['config', 'user.name', 'T'],
    ['config', 'user.email', 't@example.com'],
    ['commit', '-q', '--allow-empty', '-m', 'first'],
  ])
    spawnSync('git', args, { cwd: dir });
  expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
  autopilot(dir, 'next');
  return dir;
}

/** The same command, coloured and not: the coloured one has colour, and is the other once the colour is taken out. */
function both(dir: string, ...args: string[]) {
  const coloured = autopilotWith(FORCE, dir, ...args);
  const bare = autopilotWith({}, dir, ...args);
  return { coloured, bare };
}

const widest = (text: string) =>
  Math.max(
    ...plain(text)
      .split('\n')
      .map((l) => [...l].length),
  );

describe('colour on a terminal', () => {
  it('paints status (its status, retries, progress marks, problems) and keeps its text and its 80 columns; none with NO_COLOR, on a pipe, or in --json', () => {
    const dir = run();
    expect(autopilotWith(FORCE, dir, 'status').stdout).toContain('Status    \u001b[36min_progress\u001b[39m');
    autopilot(dir, 'fail', '--reason', 'the interview was cut short, so the problem statement names no user yet');
    const { coloured, bare } = both(dir, 'status');
    expect(coloured.code).toBe(0);
    expect(coloured.stdout).toMatch(ANSI);
    expect(still(plain(coloured.stdout))).toBe(still(bare.stdout));
    expect(bare.stdout).not.toMatch(ANSI);
    expect(coloured.stdout).toContain('Retries   \u001b[33m1\u001b[39m of 3');
    expect(coloured.stdout).toMatch(/Progress {2}\u001b\[36m\u001b\[1m▶1/);
    expect(coloured.stdout).toContain('\u001b[2m·2\u001b[22m');
    expect(widest(coloured.stdout)).toBeLessThanOrEqual(80);
    expect(still(autopilotWith({ NO_COLOR: '1' }, dir, 'status').stdout)).toBe(still(bare.stdout));
    expect(still(autopilotWith({ FORCE_COLOR: '0' }, dir, 'status').stdout)).toBe(still(bare.stdout));
    expect(autopilotWith(FORCE, dir, 'status', '--json').stdout).not.toMatch(ANSI);
    expect(autopilotWith(FORCE, dir, 'next', '--json').stdout).not.toMatch(ANSI);
  });

  it('paints a decision box yellow and its answer line bold, within 80 columns, the same text', () => {
    const dir = run();
    write(dir, '_docs/00_problem/problem.md');
    write(dir, '_docs/00_problem/acceptance_criteria.md');
    expect(autopilot(dir, 'done').code).toBe(0);
    autopilot(dir, 'next');
    write(dir, '_docs/01_solution/solution_draft_01.md');
    const done = autopilotWith(FORCE, dir, 'done');
    expect(done.code).toBe(3);
    expect(done.stdout).toMatch(/\u001b\[33m\u001b\[1m DECISION REQUIRED: /);
    expect(widest(done.stdout)).toBeLessThanOrEqual(80);
    const { coloured, bare } = both(dir, 'next');
    expect(coloured.code).toBe(3);
    expect(plain(coloured.stdout)).toBe(bare.stdout);
    expect(coloured.stdout).toMatch(/\u001b\[33m\u001b\[1m DECISION REQUIRED: /);
    expect(coloured.stdout).toMatch(/\u001b\[1mA person answers: autopilot decide <A\|B>/);
    expect(widest(coloured.stdout)).toBeLessThanOrEqual(80);
    const status = autopilotWith(FORCE, dir, 'status').stdout;
    expect(status).toMatch(ANSI);
    expect(widest(status)).toBeLessThanOrEqual(80);
  });

  it('paints the third failure (its box red) and an error (red, expected and received marked) within 80 columns', () => {
    const dir = run();
    for (const reason of ['one', 'two', 'the interview found no user to talk to, and the problem statement is still empty']) {
      autopilot(dir, 'fail', '--reason', reason);
      autopilot(dir, 'next');
    }
    const { coloured, bare } = both(dir, 'next');
    expect(coloured.code).toBe(3);
    expect(coloured.stdout).toMatch(/\u001b\[31m\u001b\[1m STEP FAILED/);
    expect(plain(coloured.stdout)).toBe(bare.stdout);
    expect(widest(coloured.stdout)).toBeLessThanOrEqual(80);
    const status = autopilotWith(FORCE, dir, 'status');
    expect(status.stdout).toContain('Status    \u001b[31m\u001b[1mfailed');
    expect(widest(status.stdout)).toBeLessThanOrEqual(80);
    const error = autopilotWith(FORCE, dir, 'decide', 'Z');
    expect(error.code).toBe(2);
    expect(error.stderr).toMatch(/^\u001b\[31m\u001b\[1m.+\u001b\[22m\u001b\[39m\n/);
    expect(error.stderr).toContain('\u001b[32m  expected:\u001b[39m');
    expect(autopilotWith({}, dir, 'decide', 'Z').stderr).toBe(plain(error.stderr));
  });

  it('leaves the text for other programs plain: the SessionStart context and a breadcrumb', () => {
    const dir = run();
    expect(autopilotWith(FORCE, dir, 'breadcrumb').stdout).not.toMatch(ANSI);
    expect(autopilotWith(FORCE, dir, 'hook', 'session-start').stdout).not.toMatch(ANSI);
  });
});
