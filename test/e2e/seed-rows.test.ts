/**
 * The seeds' last rows (issue 30), through the built CLI on real folders and
 * real git: each row made faithful to its seed, or kept as a declared
 * departure (docs/state-and-journal.md, "Departures from the seeds").
 */
import { describe, expect, it } from 'vitest';
import { autopilot, journal, read, tempRepo, write, type NextJson } from '../helpers/cli.js';
import { ROOT } from '../helpers/engine.js';

const FLOW = '.autopilot/flows/greenfield.md';

describe('seed 004: a prose edit is not a decision change', () => {
  it('1 line of prose added to a repository flow: 0 notices on status and on 3 `next`s, no repin needed', () => {
    const dir = tempRepo();
    write(dir, FLOW, read(ROOT, 'flows/greenfield.md'));
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    autopilot(dir, 'next');
    write(dir, FLOW, read(dir, FLOW).replace('## Decisions\n', '## Decisions\n\nA person answers each of these.\n'));
    const said: string[] = [];
    said.push(...(autopilot(dir, 'status', '--json').json<{ notices?: string[] }>().notices ?? []));
    for (let i = 0; i < 3; i++) said.push(...(autopilot(dir, 'next', '--json').json<NextJson & { notices?: string[] }>().notices ?? []));
    expect(said).toEqual([]);
    expect(autopilot(dir, 'check').code).toBe(0);
  });
});

describe('seed 001 rule 7: the failure shown is the recorded one', () => {
  it('3 failures recorded, then 2 refused `fail --reason`s: the box, the JSON and `status` show the 3rd recorded reason, 0 times the refused ones', () => {
    const dir = tempRepo();
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    for (let i = 1; i <= 3; i++) {
      autopilot(dir, 'next');
      autopilot(dir, 'fail', '--reason', `recorded reason ${i}`);
    }
    const text = autopilot(dir, 'fail', '--reason', 'a refused reason');
    expect(text.code).toBe(3);
    expect(text.stdout).toContain('Last reason: recorded reason 3');
    const json = autopilot(dir, 'fail', '--reason', 'another refused reason', '--json');
    expect(json.code).toBe(3);
    expect(json.json<{ reason?: string }>().reason).toBe('recorded reason 3');
    expect(autopilot(dir, 'status').stdout).toContain('Last reason: recorded reason 3');
    const failures = journal(dir).filter((e) => e.event === 'step_failed');
    expect(failures.map((e) => e.reason)).toEqual(['recorded reason 1', 'recorded reason 2', 'recorded reason 3']);
  });
});
