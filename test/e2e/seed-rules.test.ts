/** The seed documents' rules, through the built CLI on real folders: the seed's own pointer, the last action and its follow-through, stale sessions, small things. */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autopilot, journal, read, tempRepo, write, type NextJson, GREENFIELD_1_TO_7 } from '../helpers/cli.js';
import { ROOT } from '../helpers/engine.js';

const POINTER = '_docs/_autopilot_state.md';

function greenfield(): string {
  const dir = tempRepo();
  expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
  return dir;
}

describe('the seed’s own pointer', () => {
  it('reads both of the seed’s example pointers as they are: six bare lines, no headings', () => {
    const dir = tempRepo();
    write(dir, '_docs/00_problem/problem.md');
    write(dir, '_docs/00_problem/acceptance_criteria.md');
    write(dir, '_docs/01_solution/solution_draft_01.md');
    writeFileSync(
      join(dir, POINTER),
      'flow: greenfield\nstep: 3\nname: Plan\nstatus: in_progress\nsub_step: 4 — Architecture Review & Risk Assessment\nretry_count: 0\n',
    );
    expect(autopilot(dir, 'status', '--json').json<NextJson>()).toMatchObject({
      step: 3,
      status: 'in_progress',
      sub_step: '4 — Architecture Review & Risk Assessment',
    });

    const legacy = tempRepo();
    write(legacy, 'go.mod', 'module x\n');
    write(legacy, '_docs/02_document/architecture.md');
    write(legacy, '_docs/02_document/components.md');
    writeFileSync(
      join(legacy, POINTER),
      'flow: existing-code\nstep: 2\nname: Test Spec\nstatus: failed\nsub_step: 1b — Test Case Generation\nretry_count: 3\n',
    );
    const failed = autopilot(legacy, 'status', '--json').json<NextJson>();
    expect(failed).toMatchObject({ flow: 'existing-code', step: 2, status: 'failed', retry_count: 3, sub_step: '1b — Test Case Generation' });
  });

  it('a pointer with no `## Cycle` in a repository in its second cycle takes the cycle from the journal, not cycle 1', () => {
    const dir = tempRepo();
    write(dir, 'go.mod', 'module x\n');
    expect(autopilot(dir, 'init', '--flow', 'existing-code').code).toBe(0);
    const text = read(dir, POINTER);
    // What the journal says: cycle 2 of the loop, at step 9.
    for (const rel of ['02_document/architecture.md', '02_tasks/cycle-1/_index.md', '02_tasks/cycle-2/_index.md']) write(dir, `_docs/${rel}`);
    writeFileSync(
      join(dir, POINTER),
      text.replace(/## Cycle\ncycle: \d+\n/, '').replace('step: 1\nname: Document\nstatus: not_started', 'step: 9\nname: Implement\nstatus: in_progress'),
    );
    const status = autopilot(dir, 'status', '--json').json<NextJson>();
    expect(status.cycle).toBe(2);
    expect(status.step).not.toBe(7);
  });
});

describe('the last action and its follow-through', () => {
  it('the pointer says what was done, its result, when, and what is expected next', () => {
    const dir = greenfield();
    autopilot(dir, 'next');
    autopilot(dir, 'fail', '--reason', 'the interview was cut short');
    const text = read(dir, POINTER);
    expect(text).toMatch(
      /## Last Action\naction: fail step 1 \(Problem\): the interview was cut short\nresult: failure\nat: \d{4}-\d\d-\d\dT[\d:.]+Z\nnext: step 1 \(Problem\)\n/,
    );
    autopilot(dir, 'next');
    autopilot(dir, 'substep', '2 — Restrictions');
    expect(read(dir, POINTER)).toContain('result: partial\n');
    expect(read(dir, POINTER)).toContain('next: step 1 (Problem), sub-step 2 — Restrictions\n');
  });

  it('says once, and journals, when the work went somewhere else than the last session’s next target', () => {
    const dir = greenfield();
    autopilot(dir, 'next');
    // Someone wrote step 1 and step 2's files by hand: the work moved on without the engine.
    for (const rel of GREENFIELD_1_TO_7.slice(0, 5)) write(dir, `_docs/${rel}`);
    const status = autopilot(dir, 'status', '--json').json<{ notices?: string[] }>();
    expect(status.notices).toEqual([expect.stringContaining('expected step 1 (Problem) next')]);
    const next = autopilot(dir, 'next');
    expect(next.stdout).toContain('expected step 1 (Problem) next');
    expect(journal(dir).filter((e) => e.event === 'follow_through')).toHaveLength(1);
    expect(autopilot(dir, 'next').stdout).not.toContain('expected step 1');
    expect(journal(dir).filter((e) => e.event === 'follow_through')).toHaveLength(1);
  });

  it('a step in progress whose last event is older than the threshold is called stale, with what to do', () => {
    const dir = greenfield();
    autopilot(dir, 'next');
    const run = autopilot(dir, 'status', '--json');
    expect(run.json<{ notices?: string[] }>().notices).toBeUndefined();
    const old = { ...process.env };
    process.env.AUTOPILOT_LEASE_STALE_MINUTES = '0.0001';
    try {
      const stale = autopilot(dir, 'status');
      expect(stale.stdout).toContain('looks stale');
      expect(stale.stdout).toContain('`autopilot next` resumes it');
    } finally {
      process.env = old;
    }
  });
});

describe('pinned runs', () => {
  function withOwnFlow(): string {
    const dir = tempRepo();
    write(dir, '.autopilot/flows/greenfield.md', read(ROOT, 'flows/greenfield.md'));
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    autopilot(dir, 'next');
    return dir;
  }

  it('a flow file edited mid-run is reported, step by step; the run keeps the steps it started with; `check` reports it; `repin` adopts it', () => {
    const dir = withOwnFlow();
    const started = journal(dir).find((e) => e.event === 'run_started')!;
    expect(started).toMatchObject({ flow_file: '.autopilot/flows/greenfield.md', pinned: { id: 'greenfield', steps: expect.any(Array) } });
    const edited = read(dir, '.autopilot/flows/greenfield.md').replace('| 3 | Plan |', '| 3 | Architecture |');
    write(dir, '.autopilot/flows/greenfield.md', edited.replace('`02_tasks/_index.md`', '`02_tasks/_index.md`, `02_tasks/batches.md`'));
    const status = autopilot(dir, 'status', '--json').json<NextJson & { notices?: string[] }>();
    expect(status.notices).toEqual([expect.stringContaining('step 3 (Plan → Architecture) changed; step 5 (Decompose) changed')]);
    expect(status).toMatchObject({ step: 1, name: 'Problem', drift: [] });
    expect(autopilot(dir, 'next', '--json').json<NextJson>()).toMatchObject({ step: 1, name: 'Problem', action: 'resume' });
    expect(autopilot(dir, 'check').stdout).toContain('changed since this run started');
    const changes = ['step 3 (Plan → Architecture) changed', 'step 5 (Decompose) changed'];
    expect(autopilot(dir, 'repin', '--json').json()).toMatchObject({ repinned: true, changes });
    expect(journal(dir).at(-1)).toMatchObject({ event: 'run_repinned', changed: changes });
    expect(autopilot(dir, 'status', '--json').json<NextJson & { notices?: string[] }>().notices).toBeUndefined();
    expect(autopilot(dir, 'check').code).toBe(0);
  });

  it('a dropped override flow does not re-derive the run: it goes on with the pinned steps', () => {
    const dir = withOwnFlow();
    write(dir, '.autopilot/flows/greenfield.md', read(dir, '.autopilot/flows/greenfield.md').replace('| 2 | Research |', '| 2 | Discovery |'));
    autopilot(dir, 'repin');
    rmSync(join(dir, '.autopilot/flows/greenfield.md'));
    const status = autopilot(dir, 'status', '--json').json<NextJson & { notices?: string[] }>();
    expect(status).toMatchObject({ step: 1, status: 'in_progress', drift: [] });
    expect(status.notices).toEqual([expect.stringContaining('step 2 (Discovery → Research) changed')]);
  });

  it('a flow edit that leaves the file invalid (2 kinds: its front matter, a step row) keeps the run on its 10 pinned steps; each command warns naming the file and line; check exit 2; repin refused; fixed, the warning goes', () => {
    const FLOW = '.autopilot/flows/greenfield.md';
    for (const [kind, breakIt, line] of [
      ['front matter', (t: string) => t.replace('scan_order: 2', 'scan_order: [2'), 5],
      ['a step row', (t: string) => t.replace(/^\| 3 \| Plan \|.*$/m, '| 3 | Plan |'), 29],
    ] as const) {
      const dir = withOwnFlow();
      const good = read(dir, FLOW);
      write(dir, FLOW, breakIt(good));
      const warning = new RegExp(`${FLOW.replaceAll('.', '\\.')}:${line}: .*the run goes on with the 10 steps it started with`);
      const status = autopilot(dir, 'status', '--json');
      expect(status.code, `${kind}: ${status.stderr}`).toBe(0);
      const json = status.json<NextJson & { notices?: string[] }>();
      expect(json).toMatchObject({ flow: 'greenfield', step: 1, name: 'Problem', steps: 10, drift: [] });
      expect(json.notices, kind).toEqual([expect.stringMatching(warning)]);
      // The run does not stop dead nor lose its place: next, substep and fail work on the pinned list.
      const next = autopilot(dir, 'next');
      expect(next.code, kind).toBe(0);
      expect(next.stdout).toMatch(warning);
      expect(autopilot(dir, 'substep', '2 — Restrictions').code).toBe(0);
      expect(autopilot(dir, 'fail', '--reason', 'not yet').code).toBe(0);
      expect(autopilot(dir, 'status', '--json').json<NextJson>()).toMatchObject({ step: 1, retry_count: 1 });
      const check = autopilot(dir, 'check');
      expect(check.code, kind).toBe(2);
      expect(check.stdout + check.stderr).toContain(`${FLOW}:${line}:`);
      expect(check.stdout + check.stderr).not.toContain('which autopilot does not know');
      const repin = autopilot(dir, 'repin');
      expect(repin.code).toBe(2);
      expect(repin.stderr).toContain(`${FLOW}:${line}:`);
      expect(repin.stderr).toContain('the run goes on with its pinned steps');
      expect(journal(dir).some((e) => e.event === 'run_repinned')).toBe(false);
      write(dir, FLOW, good);
      expect(autopilot(dir, 'status', '--json').json<NextJson & { notices?: string[] }>().notices, kind).toBeUndefined();
    }
  });

  it('a flow file that does not parse with no run pinned to it still stops every command (exit 2, file and line)', () => {
    const dir = tempRepo();
    write(dir, '.autopilot/flows/greenfield.md', read(ROOT, 'flows/greenfield.md').replace('scan_order: 2', 'scan_order: [2'));
    const next = autopilot(dir, 'next');
    expect(next.code).toBe(2);
    expect(next.stderr).toContain('.autopilot/flows/greenfield.md:5:');
  });

  it('the changed-steps message names each step by its name as well as its number (2 kinds: renamed, changed)', () => {
    const dir = withOwnFlow();
    const text = read(dir, '.autopilot/flows/greenfield.md');
    write(
      dir,
      '.autopilot/flows/greenfield.md',
      text.replace('| 2 | Research |', '| 2 | Discovery |').replace('`02_tasks/_index.md`', '`02_tasks/_index.md`, `02_tasks/batches.md`'),
    );
    const notices = autopilot(dir, 'status', '--json').json<NextJson & { notices?: string[] }>().notices!;
    expect(notices[0]).toContain('step 2 (Research → Discovery) changed');
    expect(notices[0]).toContain('step 5 (Decompose) changed');
  });

  it('`repin` is refused when the current step would vanish', () => {
    const dir = withOwnFlow();
    const text = read(dir, '.autopilot/flows/greenfield.md');
    write(dir, '.autopilot/flows/greenfield.md', text.replace('| 1 | Problem |', '| 1 | Kickoff |'));
    const repin = autopilot(dir, 'repin');
    expect(repin.code).toBe(2);
    expect(repin.stderr).toContain('the current step, 1 (Problem), would become Kickoff');
    expect(journal(dir).some((e) => e.event === 'run_repinned')).toBe(false);
  });
});

describe('a skill’s own state (rule 8)', () => {
  it('a skill state file that disagrees with the pointer is shown as the sub-step, reported once and journaled', () => {
    const dir = tempRepo();
    write(dir, 'src/main.go', 'package main\n');
    expect(autopilot(dir, 'init', '--flow', 'existing-code').code).toBe(0);
    autopilot(dir, 'next');
    autopilot(dir, 'substep', '2 — Modules');
    write(dir, '_docs/02_document/state.json', JSON.stringify({ position: '3 — Components' }));
    expect(autopilot(dir, 'status', '--json').json<{ notices?: string[] }>().notices).toEqual([
      expect.stringContaining('says sub-step 3 — Components, the pointer says 2 — Modules'),
    ]);
    const next = autopilot(dir, 'next', '--json').json<NextJson & { resume?: string; notices?: string[] }>();
    expect(next).toMatchObject({ step: 1, sub_step: '3 — Components', resume: '3 — Components' });
    expect(journal(dir).filter((e) => e.event === 'skill_state_differs')).toEqual([
      expect.objectContaining({ file: '_docs/02_document/state.json', skill_sub_step: '3 — Components', pointer_sub_step: '2 — Modules' }),
    ]);
    expect(autopilot(dir, 'next', '--json').json<{ notices?: string[] }>().notices).toBeUndefined();
  });
});

describe('small things found on the way', () => {
  it('a file that exists but is empty is named as empty', () => {
    const dir = greenfield();
    autopilot(dir, 'next');
    write(dir, '_docs/00_problem/problem.md', '');
    write(dir, '_docs/00_problem/acceptance_criteria.md');
    const done = autopilot(dir, 'done', '--json');
    expect(done.code).toBe(2);
    expect(done.json<NextJson>().error!.message).toContain('`00_problem/problem.md` exists but is empty');
  });

  it('the failure box shows the last reason in a new session too', () => {
    const dir = greenfield();
    for (let i = 1; i <= 3; i++) {
      autopilot(dir, 'next');
      autopilot(dir, 'fail', '--reason', `reason number ${i}`);
    }
    const later = autopilot(dir, '--session', 'tomorrow', 'next', '--take-over');
    expect(later.code).toBe(3);
    expect(later.stdout).toContain('Last reason: reason number 3');
  });

  it('a step forced done shows as done in the progress line, not as skipped', () => {
    const dir = greenfield();
    autopilot(dir, 'next');
    expect(autopilot(dir, 'done', '--force', '--reason', 'interviewed on paper').code).toBe(0);
    autopilot(dir, 'next');
    expect(autopilot(dir, 'status').stdout).toContain('Progress  ✓1 ▶2');
  });

  it('a pointer deleted with the work already on disk records the completions the folder shows, not just `run_started`', () => {
    const dir = tempRepo();
    write(dir, '_docs/00_problem/problem.md');
    write(dir, '_docs/00_problem/acceptance_criteria.md');
    expect(autopilot(dir, 'next', '--json').json<NextJson>()).toMatchObject({ step: 2 });
    expect(journal(dir).map((e) => `${String(e.event)}:${String(e.step)}`)).toEqual(['run_started:2', 'step_completed:1', 'step_started:2']);
  });
});
