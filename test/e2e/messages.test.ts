/** Messages that say one thing (issue 25): a repair said once, as done or as not done; a broken flow table reported alone. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/engine.js';
import { autopilot, read, tempRepo, write } from '../helpers/cli.js';

const POINTER = '_docs/_autopilot_state.md';

describe('a repair is said once', () => {
  it('a misnamed step: status says it is not repaired yet (and nothing claims it is), next says it was repaired and journaled', () => {
    const dir = tempRepo();
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    write(dir, POINTER, read(dir, POINTER).replace('name: Problem', 'name: Problm'));
    const status = autopilot(dir, 'status').stdout.replace(/\n {4}/g, ' ');
    expect(status).toContain('! step 1 of greenfield is named "Problem", not "Problm" (`autopilot next` repairs it; `status` never writes)');
    expect(status).not.toMatch(/repaired[^\n]*not repaired|not repaired[^\n]*repaired/);
    const next = autopilot(dir, 'next').stdout;
    expect(next).toContain('! step 1 of greenfield is named "Problem", not "Problm" (repaired and journaled)');
    expect(next).not.toContain('not repaired');
  });
});

describe('a broken table in a repository flow', () => {
  it('check reports the table (file and line) and not also the pointer naming that flow as unknown: 3 problems, all in the flow file; status and next go on, naming its line', () => {
    const dir = tempRepo();
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    const flow = readFileSync(join(ROOT, 'flows', 'greenfield.md'), 'utf8').replace('| 3 | Plan | always | `plan` |', '| 3 | Plan | always |');
    write(dir, '.autopilot/flows/greenfield.md', flow);
    const line = flow.split('\n').findIndex((l) => l.startsWith('| 3 | Plan')) + 1;
    const check = autopilot(dir, 'check', '--json');
    expect(check.code).toBe(2);
    const { problems } = check.json<{ problems: { file: string; line: number }[] }>();
    expect(problems).toHaveLength(3);
    for (const p of problems) expect(p).toMatchObject({ file: '.autopilot/flows/greenfield.md', line });
    const text = autopilot(dir, 'check');
    expect(text.stdout + text.stderr).not.toContain('which autopilot does not know');
    // The run is pinned to that flow: status and next go on with its pinned steps, naming the table's line (seed 004).
    for (const command of ['status', 'next']) {
      const run = autopilot(dir, command);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.stdout + run.stderr).toContain(`.autopilot/flows/greenfield.md:${line}: `);
      expect(run.stdout + run.stderr).not.toContain('does not know');
    }
  });
});
