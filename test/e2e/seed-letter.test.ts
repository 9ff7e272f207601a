/** The seed documents to the letter (issue 16): pointers in the seed's own format, through the built CLI on real folders. */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autopilot, journal, read, tempRepo, write, type NextJson, GREENFIELD_1_TO_7 } from '../helpers/cli.js';
import { ROOT } from '../helpers/engine.js';
import { thisMachine } from '../../src/io/machine.js';
import { listCheckpoints, runCheckpoint } from '../../src/app/transaction/checkpoints.js';

const POINTER = '_docs/_autopilot_state.md';

/** The seed's six bare lines. */
function seedPointer(dir: string, flow: string, step: number | 'done', name: string, status: string, subStep = '0', retry = 0): void {
  writeFileSync(join(dir, POINTER), `flow: ${flow}\nstep: ${step}\nname: ${name}\nstatus: ${status}\nsub_step: ${subStep}\nretry_count: ${retry}\n`);
}

function greenfieldUpTo7(): string {
  const dir = tempRepo();
  for (const rel of GREENFIELD_1_TO_7) write(dir, `_docs/${rel}`);
  return dir;
}

const EXISTING_CYCLE_1 = [
  '02_document/architecture.md',
  '02_document/components.md',
  '02_document/tests/test_spec.md',
  '02_tasks/tests/_index.md',
  '03_implementation/tests/implementation_report.md',
  '03_implementation/tests/test_report.md',
  '02_tasks/cycle-1/_index.md',
  '03_implementation/cycle-1/implementation_report.md',
  '03_implementation/cycle-1/test_report.md',
  '02_document/changes/cycle-1.md',
];

describe('optional steps passed over without a journal', () => {
  it('a seed pointer at greenfield step 10 "3 — Smoke test" past optional steps 8 and 9 keeps its step and sub-step; the skips are reported, then journaled once (by: inferred)', () => {
    const dir = greenfieldUpTo7();
    seedPointer(dir, 'greenfield', 10, 'Deploy', 'in_progress', '3 — Smoke test');
    const status = autopilot(dir, 'status', '--json').json<NextJson>();
    expect(status).toMatchObject({ step: 10, sub_step: '3 — Smoke test' });
    expect(status.drift.map((d) => d.kind)).toEqual(['inferred-skip', 'inferred-skip']);
    const next = autopilot(dir, 'next', '--json').json<NextJson & { resume?: string }>();
    expect(next).toMatchObject({ step: 10, action: 'resume', resume: '3 — Smoke test' });
    const skips = journal(dir).filter((e) => e.event === 'step_skipped');
    expect(skips.map((e) => [e.step, e.by])).toEqual([
      [8, 'inferred'],
      [9, 'inferred'],
    ]);
    expect(autopilot(dir, 'status', '--json').json<NextJson>().drift).toEqual([]);
    expect(autopilot(dir, 'check').code).toBe(0);
  });

  it('an existing-code seed pointer at step 13 with cycle-1 steps 8–11 on disk stays at 13 (steps 7 and 12 inferred), not back to step 7', () => {
    const dir = tempRepo();
    write(dir, 'go.mod', 'module x\n');
    for (const rel of EXISTING_CYCLE_1) write(dir, `_docs/${rel}`);
    seedPointer(dir, 'existing-code', 13, 'Performance Test', 'in_progress');
    const next = autopilot(dir, 'next', '--json').json<NextJson>();
    expect(next).toMatchObject({ step: 13, cycle: 1 });
    expect(
      journal(dir)
        .filter((e) => e.event === 'step_skipped')
        .map((e) => e.step),
    ).toEqual([7, 12]);
  });

  it('a seed pointer that says `status: skipped` on optional step 8 is a skip: `next` goes to step 9, never back to 8', () => {
    const dir = greenfieldUpTo7();
    seedPointer(dir, 'greenfield', 8, 'Security Audit', 'skipped');
    expect(autopilot(dir, 'next', '--json').json<NextJson>().step).toBe(9);
    expect(journal(dir).find((e) => e.event === 'step_skipped')).toMatchObject({ step: 8, by: 'inferred' });
    expect(autopilot(dir, 'status', '--json').json<NextJson>().step).toBe(9);
  });

  it('a seed pointer past a required step with no files still goes back to it', () => {
    const dir = tempRepo();
    for (const rel of GREENFIELD_1_TO_7.slice(0, -1)) write(dir, `_docs/${rel}`);
    seedPointer(dir, 'greenfield', 10, 'Deploy', 'in_progress');
    expect(autopilot(dir, 'status', '--json').json<NextJson>().step).toBe(7);
  });
});

describe('pointer values the seed allows or implies', () => {
  it('`step: done` (the seed’s word) is the flow’s end: status and next say done, exit 0', () => {
    const dir = greenfieldUpTo7();
    write(dir, '_docs/04_deploy/deploy_report.md');
    seedPointer(dir, 'greenfield', 'done', 'Done', 'completed');
    expect(autopilot(dir, 'status', '--json').json<NextJson>().step).toBe('done');
    const next = autopilot(dir, 'next', '--json');
    expect(next.code).toBe(0);
    expect(next.json<NextJson>().step).toBe('done');
  });

  it('`retry_count: 5` by hand is a failed step read as 3 (exit 3 at `next`, reported, the line repaired), not exit 2 for every command', () => {
    const dir = tempRepo();
    for (const rel of GREENFIELD_1_TO_7.slice(0, -1)) write(dir, `_docs/${rel}`);
    seedPointer(dir, 'greenfield', 7, 'Run Tests', 'in_progress', '0', 5);
    const status = autopilot(dir, 'status', '--json');
    expect(status.code).toBe(0);
    expect(status.json<NextJson>()).toMatchObject({ step: 7, status: 'failed', retry_count: 3 });
    expect(status.json<NextJson>().drift[0]).toMatchObject({ kind: 'read-as', message: expect.stringContaining('retry_count 5 is above 3') });
    const next = autopilot(dir, 'next');
    expect(next.code).toBe(3);
    expect(next.stdout).toContain('STEP FAILED 3 TIMES');
    expect(read(dir, POINTER)).toContain('retry_count: 3\n');
    expect(autopilot(dir, 'check').code).toBe(0);
  });

  it('`failed` with retries left is labelled with its real count, never "failed 3 times"', () => {
    const dir = tempRepo();
    for (const rel of GREENFIELD_1_TO_7.slice(0, -1)) write(dir, `_docs/${rel}`);
    seedPointer(dir, 'greenfield', 7, 'Run Tests', 'failed', '0', 1);
    const status = autopilot(dir, 'status').stdout;
    expect(status).toContain('Next      failed once: a person looks at it, then answers');
    expect(status).toContain('Question  Step 7 (Run Tests) failed once: look at why');
    expect(status).toContain('Answer    autopilot ack');
    expect(status).not.toContain('3 times');
    const next = autopilot(dir, 'next');
    expect(next.stdout).toContain('STEP FAILED ONCE');
    expect(next.stdout).not.toContain('3 TIMES');
  });
});

describe('runs that were never pinned', () => {
  it('a run begun from a seed pointer is pinned at the first command that writes, and says so; a flow edit after it is reported by status and check', () => {
    const dir = tempRepo();
    write(dir, '.autopilot/flows/greenfield.md', read(ROOT, 'flows/greenfield.md'));
    for (const rel of GREENFIELD_1_TO_7.slice(0, 2)) write(dir, `_docs/${rel}`);
    seedPointer(dir, 'greenfield', 2, 'Research', 'in_progress');
    const next = autopilot(dir, 'next');
    expect(next.stdout).toContain('the journal has no record of this run: it is pinned now to .autopilot/flows/greenfield.md');
    expect(journal(dir)[0]).toMatchObject({ event: 'run_started', pinned: { id: 'greenfield' } });
    expect(autopilot(dir, 'next').stdout).not.toContain('pinned now');
    write(dir, '.autopilot/flows/greenfield.md', read(dir, '.autopilot/flows/greenfield.md').replace('| 3 | Plan |', '| 3 | Architecture |'));
    expect(autopilot(dir, 'status').stdout.replace(/\s+/g, ' ')).toContain('changed since this run started (step 3 (Plan → Architecture) changed)');
    expect(autopilot(dir, 'check').code).toBe(2);
  });

  it("after the journal is lost, a person's adopt pins the run again", () => {
    const dir = greenfieldUpTo7();
    seedPointer(dir, 'greenfield', 2, 'Research', 'in_progress');
    autopilot(dir, 'next');
    rmSync(join(dir, '_docs/_autopilot/journal.jsonl'));
    // A journal lost under a pointer that names its events holds every write until a person adopts the position.
    expect(autopilot(dir, 'next').code).toBe(2);
    const adopt = autopilot(dir, 'adopt', '--json');
    expect(adopt.code).toBe(0);
    expect(journal(dir).map((e) => e.event)).toEqual(['run_started', 'edit_adopted']);
    expect(journal(dir)[0]).toMatchObject({ actor: 'person', pinned: { id: 'greenfield' } });
    // The run goes on where it stood: Research's decision, asked again; pinned once.
    const next = autopilot(dir, 'next');
    expect([next.code, next.stdout]).toEqual([3, expect.stringContaining('DECISION REQUIRED')]);
    expect(journal(dir).filter((e) => e.event === 'run_started')).toHaveLength(1);
  });
});

describe('existing-code: 14 steps where the seed says 13', () => {
  it('a seed-era pointer `step: 13`, `name: Deploy` resumes Deploy (step 14) at its sub-step, reported as read by the name', () => {
    const dir = tempRepo();
    write(dir, 'go.mod', 'module x\n');
    for (const rel of EXISTING_CYCLE_1) write(dir, `_docs/${rel}`);
    seedPointer(dir, 'existing-code', 13, 'Deploy', 'in_progress', '2 — Release');
    const next = autopilot(dir, 'next', '--json').json<NextJson & { resume?: string }>();
    expect(next).toMatchObject({ step: 14, name: 'Deploy', resume: '2 — Release' });
    expect(next.drift[0]).toMatchObject({ kind: 'read-as', message: expect.stringContaining('read by the name as step 14 (Deploy)') });
  });

  it('a person who changes only the number of a journal-backed pointer is read by the number', () => {
    const dir = tempRepo();
    write(dir, 'go.mod', 'module x\n');
    expect(autopilot(dir, 'init', '--flow', 'existing-code').code).toBe(0);
    for (const rel of EXISTING_CYCLE_1.slice(0, 2)) write(dir, `_docs/${rel}`);
    writeFileSync(join(dir, POINTER), read(dir, POINTER).replace('step: 1\n', 'step: 2\n'));
    expect(autopilot(dir, 'status', '--json').json<NextJson>()).toMatchObject({ step: 2, name: 'Test Spec' });
  });
});

describe('a lock is never broken on age', () => {
  const BIN = join(ROOT, 'bin', 'autopilot.js');
  /** `autopilot next` in the background while the test holds the lock as `holder`, released after 1.5 s. */
  async function nextWhileLocked(holder: Record<string, unknown>): Promise<{ code: number; events: string[] }> {
    const dir = greenfieldUpTo7();
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    // The seed's pointer at Security Audit: files found ahead of a run are never walked past the research decision.
    seedPointer(dir, 'greenfield', 8, 'Security Audit', 'not_started');
    const lock = join(dir, '_docs/_autopilot/lock');
    const twoMinutesAgo = new Date(Date.now() - 120_000).toISOString();
    writeFileSync(lock, JSON.stringify({ host: 'elsewhere', session: 'paused', at: twoMinutesAgo, nonce: 'held-by-test', ...holder }));
    const child = spawn(process.execPath, [BIN, '-C', dir, 'next', '--json'], { env: { ...process.env, AUTOPILOT_SESSION: '' }, stdio: 'ignore' });
    const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const stillThere = existsSync(lock);
    rmSync(lock, { force: true });
    const code = await exited;
    expect(stillThere).toBe(true);
    return { code, events: journal(dir).map((e) => String(e.event)) };
  }

  it(
    'a live process of this machine paused for two minutes while holding the lock keeps it: the next command waits, nothing is broken',
    { timeout: 30_000 },
    async () => {
      const { host, machine } = thisMachine();
      const run = await nextWhileLocked({ pid: process.pid, host, machine });
      expect(run.code).toBe(0);
      expect(run.events).not.toContain('lock_broken');
    },
  );

  it('another machine’s lock two minutes old is not broken by this machine’s clock', { timeout: 30_000 }, async () => {
    const run = await nextWhileLocked({ pid: 1, machine: 'another-machine' });
    expect(run.code).toBe(0);
    expect(run.events).not.toContain('lock_broken');
  });
});

describe('re-entry shows the status summary (seed 001)', () => {
  it('the first `next` of a session says where the work stands, the last action and the problems above the next step; the session’s later `next` does not repeat it', () => {
    const dir = greenfieldUpTo7();
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    // The seed's pointer at Security Audit: files found ahead of a run are never walked past the research decision.
    seedPointer(dir, 'greenfield', 8, 'Security Audit', 'not_started');
    autopilot(dir, 'next');
    autopilot(dir, 'substep', '2 — Dependency and secret scan');
    rmSync(join(dir, '_docs/_autopilot/lease.json'));
    const first = autopilot(dir, 'next').stdout;
    expect(first).toMatch(
      /Where {5}step 8 of 10 · Security Audit · in_progress\nLast {6}substep step 8 \(Security Audit\): 2 — Dependency and secret scan \(partial, [^)]+\)\nProgress .*\nProblems {2}none\n/,
    );
    expect(first.indexOf('Where')).toBeLessThan(first.indexOf('▶ Resume'));
    expect(autopilot(dir, 'next').stdout).not.toContain('Where ');
    rmSync(join(dir, '_docs/_autopilot/lease.json'));
    const json = autopilot(dir, 'next', '--json').json<NextJson & { last_action?: { action: string }; reentry?: boolean }>();
    expect(json).toMatchObject({ reentry: true, last_action: { action: expect.stringContaining('2 — Dependency and secret scan') } });
  });

  it('`status` (what the SessionStart hook prints) includes the last action', () => {
    const dir = greenfieldUpTo7();
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    // The seed's pointer at Security Audit: files found ahead of a run are never walked past the research decision.
    seedPointer(dir, 'greenfield', 8, 'Security Audit', 'not_started');
    autopilot(dir, 'next');
    expect(autopilot(dir, 'status').stdout).toMatch(/\nLast {6}next step 8 \(Security Audit\) \(partial, /);
    const hook = spawnSync(process.execPath, [join(ROOT, 'bin', 'autopilot.js'), '-C', dir, 'hook', 'session-start'], {
      input: '{"session_id":"s-1","source":"startup"}',
      encoding: 'utf8',
    });
    expect(hook.stdout).toContain('Last      next step 8 (Security Audit)');
  });
});

describe('checkpoints (seed 002)', () => {
  const at = (day: number, hour: number) => new Date(Date.UTC(2026, 9, 1, 8 + hour) + day * 86_400_000);
  async function take(dir: string, when: Date, note: string) {
    return runCheckpoint({ repo: { dir }, session: 'local', now: () => when }, note);
  }
  function started(): string {
    const dir = tempRepo();
    autopilot(dir, 'init', '--flow', 'greenfield');
    autopilot(dir, 'next');
    return dir;
  }

  it('pruned checkpoints are archived, compressed, in one place — listed by `checkpoints --all` and restorable — never deleted', async () => {
    const dir = started();
    const ids: string[] = [];
    for (let k = 0; k < 30; k++) ids.push((await take(dir, new Date(at(0, 0).getTime() + k * 60_000), `run ${k}`)).id);
    expect(autopilot(dir, 'checkpoints', '--json').json<{ checkpoints: unknown[] }>().checkpoints).toHaveLength(24);
    const archived = readdirSync(join(dir, '_docs/_autopilot/checkpoints/archive'));
    expect(archived).toHaveLength(6);
    expect(archived.every((n) => n.endsWith('.json.gz'))).toBe(true);
    const all = autopilot(dir, 'checkpoints', '--all', '--json').json<{ checkpoints: { id: string; archived?: boolean }[] }>().checkpoints;
    expect(all).toHaveLength(30);
    expect(all.filter((c) => c.archived)).toHaveLength(6);
    expect(autopilot(dir, 'checkpoints', '--all').stdout).toContain(`${ids[0]}  step 1 in_progress`);
    expect(autopilot(dir, 'restore', ids[0]!).code).toBe(0);
  });

  it('a clock 31 days fast archives no daily checkpoint by the calendar alone', async () => {
    const dir = started();
    for (let day = 0; day < 10; day++) for (let k = 0; k < 6; k++) await take(dir, at(day, k), `day ${day} run ${k}`);
    const before = listCheckpoints({ repo: { dir } });
    expect(before).toHaveLength(30);
    await take(dir, at(40, 0), 'clock 31 days fast');
    const after = listCheckpoints({ repo: { dir } }).map((c) => c.note);
    for (let day = 0; day < 10; day++) expect(after).toContain(`day ${day} run 5`);
    expect(after).toContain('clock 31 days fast');
  });

  it('one corrupt checkpoint file is listed by name with its problem; the others are listed around it (exit 0)', async () => {
    const dir = started();
    await take(dir, at(0, 0), 'good one');
    const bad = '2026-10-01T090000.000Z-checkpoint';
    writeFileSync(join(dir, `_docs/_autopilot/checkpoints/${bad}.json`), '{ not json');
    const run = autopilot(dir, 'checkpoints');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`${bad}  ! cannot be read`);
    expect(run.stdout).toContain('good one');
  });
});

describe('restore (seed 002)', () => {
  it('takes a checkpoint of the state before it, writes `## Last Action`, and says when the folder will move the position straight back', () => {
    const dir = tempRepo();
    autopilot(dir, 'init', '--flow', 'greenfield');
    autopilot(dir, 'next');
    write(dir, '_docs/00_problem/problem.md');
    write(dir, '_docs/00_problem/acceptance_criteria.md');
    autopilot(dir, 'done');
    autopilot(dir, 'next');
    const id = autopilot(dir, 'checkpoint', '--json').json<{ id: string }>().id;
    rmSync(join(dir, '_docs/00_problem/problem.md'));
    const run = autopilot(dir, 'restore', id);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('! the folder does not match this checkpoint: the next command will move the position to step 1 (Problem)');
    expect(read(dir, POINTER)).toContain(`## Last Action\naction: restore ${id}\nresult: success\n`);
    const list = autopilot(dir, 'checkpoints').stdout;
    expect(list).toMatch(new RegExp(`-before-restore {2}step 2 in_progress .*automatic: before restoring ${id}`));
  });
});
