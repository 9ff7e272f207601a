/** The session boundary as the seed's decision, with its summary; checkpoints, their retention and restore. Real folders. */
import { withOptions } from '../helpers/line.js';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listCheckpoints, runCheckpoint, runRestore } from '../../src/app/transaction/checkpoints.js';
import { autopilot as cli, journal, read, tempRepo, write, type NextJson } from '../helpers/cli.js';
import { filledTemplate } from '../helpers/templates.js';

/** The agent of one conversation, named as the installed /autopilot text names it; `--session` given again names another. */
const autopilot = (dir: string, ...args: string[]) =>
  args.includes('--session') ? cli(dir, ...args) : cli(dir, ...withOptions(args, ['--session', 'conversation-1']));

/** A task index as the decompose skill writes it: 3 tasks in 2 batches, 10 points, a task file beside it for each (`writeTasks`). */
const TABLE = `# Tasks

## Tasks

| Task | Name | Points | Batch | Depends on | Test strategy |
|---|---|---|---|---|---|
| 01 | Parse | 3 | 1 | — | unit tests on fixture files |
| 02 | Store | 5 | 1 | — | integration tests on a temporary folder |
| 03 | Serve | 2 | 2 | 01, 02 | end-to-end runs of the command |

## Batches

| Batch | Tasks | Points | Why together |
|---|---|---|---|
| 1 | 01, 02 | 8 | neither needs the other |
| 2 | 03 | 2 | needs the parser and the store |

## Coverage

| Criterion | Tasks |
|---|---|
| AC-01 | 01, 02, 03 |

## Self-check

- [x] Every task row has its task file beside the index.
- [x] Every dependency is a task of an earlier batch.
- [x] Every task has points from 1, 2, 3, 5, 8 and a test strategy.
- [x] Every acceptance criterion or test case id is covered by a task.
`;

/** The index and its task files, as Decompose leaves them. */
function writeTasks(dir: string): void {
  for (const task of ['01_parse.md', '02_store.md', '03_serve.md'])
    write(dir, `_docs/02_tasks/${task}`, filledTemplate('decompose', 'templates/task.md', task));
  write(dir, '_docs/02_tasks/_index.md', TABLE);
}

/** A greenfield run walked to Decompose (step 5) in progress, by one conversation (or, with `cli`, by commands that name none). */
function atDecompose(run: typeof autopilot = autopilot): string {
  const autopilot = run;
  const dir = tempRepo();
  autopilot(dir, 'init', '--flow', 'greenfield');
  const steps: string[][] = [
    ['00_problem/problem.md', '00_problem/acceptance_criteria.md'],
    ['01_solution/solution_draft_01.md'],
    ['01_solution/solution.md', '02_document/architecture.md'],
  ];
  for (const files of steps) {
    autopilot(dir, 'next');
    for (const f of files) write(dir, `_docs/${f}`);
    const done = autopilot(dir, 'done', '--json').json<NextJson>();
    if (done.decision) autopilot(dir, 'decide', 'B');
  }
  expect(autopilot(dir, 'next', '--json').json<NextJson>()).toMatchObject({ step: 5, action: 'start' });
  return dir;
}

interface BoundaryJson extends Omit<NextJson, 'boundary'> {
  boundary: { decision?: { question: string }; summary?: Record<string, unknown>; answered?: string };
}

describe('the session boundary is the seed’s decision', () => {
  it('shows the question, A and B, and a summary read from the real task table: 3 tasks, 2 batches, 10 points', () => {
    const dir = atDecompose();
    writeTasks(dir);
    const done = autopilot(dir, 'done');
    expect(done.code).toBe(3);
    expect(done.stdout).toContain('Summary: 3 tasks in 2 batches, 10 complexity points (_docs/02_tasks/_index.md)');
    expect(done.stdout).toContain('DECISION REQUIRED: Decompose complete — start Implement?');
    expect(done.stdout).toContain('A) Start a new conversation for Implement (recommended)');
    expect(done.stdout).toContain('B) Continue in this conversation');
    const again = autopilot(dir, 'next', '--json').json<BoundaryJson>();
    expect(again.boundary.summary).toEqual({ file: '_docs/02_tasks/_index.md', tasks: 3, batches: 2, points: 10 });
  });

  it('is not reached with an index that has no task table: done refuses it (exit 2) naming the file, and the pointer stays', () => {
    const dir = atDecompose();
    write(dir, '_docs/02_tasks/_index.md', '# Tasks\n\n- parse\n- store\n');
    const pointer = read(dir, '_docs/_autopilot_state.md');
    const done = autopilot(dir, 'done');
    expect(done.code).toBe(2);
    expect(done.stdout + done.stderr).toContain('_docs/02_tasks/_index.md');
    expect(done.stdout + done.stderr).toContain('no task table');
    expect(read(dir, '_docs/_autopilot_state.md')).toBe(pointer);
  });

  it('answered A: exit 3 telling this conversation to stop, again on its next `next`; a new conversation proceeds', () => {
    const dir = atDecompose();
    writeTasks(dir);
    autopilot(dir, 'done');
    expect(autopilot(dir, 'next').code).toBe(3);
    const a = autopilot(dir, 'decide', 'A');
    expect(a.code).toBe(3);
    expect(a.stdout).toContain('Start a new conversation and run `/autopilot`');
    expect(autopilot(dir, 'next').code).toBe(3);
    expect(autopilot(dir, '--session', 'conversation-2', 'next', '--json').json<NextJson>()).toMatchObject({ step: 6, action: 'start' });
    expect(journal(dir).filter((e) => e.event === 'boundary_answered')).toEqual([expect.objectContaining({ option: 'A', stopped: 'conversation-1' })]);
  });

  it('answered B: the same conversation goes on', () => {
    const dir = atDecompose();
    writeTasks(dir);
    autopilot(dir, 'done');
    expect(autopilot(dir, 'decide', 'B', '--json').json<NextJson>()).toMatchObject({ outcome: 'advanced', step: 6 });
    expect(autopilot(dir, 'next', '--json').json<NextJson>()).toMatchObject({ step: 6, action: 'start' });
  });

  it('answered B: says it goes on in this conversation at step 6 Implement, and never that a step was completed', () => {
    const dir = atDecompose();
    writeTasks(dir);
    autopilot(dir, 'done');
    const b = autopilot(dir, 'decide', 'B');
    expect(b.code).toBe(0);
    expect(b.stdout).toBe(
      '✓ Decided: B) Continue in this conversation (nothing was completed)\nNext: step 6 of 10 · Implement (greenfield), in this same conversation — run `autopilot next`\n',
    );
    expect(b.stdout).not.toContain('Completed');
    expect(journal(dir).filter((e) => e.event === 'step_completed' && e.step === 6)).toEqual([]);
  });

  it('done again at the boundary (the step was completed before): exit 3, the boundary again, "already recorded", never "✓ Completed"; 0 events written', () => {
    const dir = atDecompose();
    writeTasks(dir);
    expect(autopilot(dir, 'done').code).toBe(3);
    const events = journal(dir).length;
    const again = autopilot(dir, 'done', '--step', '5');
    expect(again.code).toBe(3);
    expect(again.stdout).toContain(
      '= Already recorded: step 5 Decompose was completed before; nothing was written again, and the session boundary below still waits.',
    );
    expect(again.stdout).toContain('DECISION REQUIRED: Decompose complete — start Implement?');
    expect(again.stdout).not.toContain('✓ Completed');
    const json = autopilot(dir, 'done', '--step', '5', '--json');
    expect(json.code).toBe(3);
    expect(json.json<BoundaryJson & { message: string }>()).toMatchObject({
      outcome: 'boundary',
      message: expect.stringMatching(/^Already recorded: step 5 Decompose/),
    });
    expect(journal(dir)).toHaveLength(events);
  });

  it('reached where sessions cannot be told apart (every command `local`): asked once, and the next `next` goes on — it never loops', () => {
    const dir = atDecompose(cli);
    writeTasks(dir);
    expect(cli(dir, 'done').code).toBe(3);
    // A retry of the very `done` that reached it (a crash before it answered) shows the question again.
    expect(cli(dir, 'done').code).toBe(3);
    const next = cli(dir, 'next', '--json');
    expect(next.code).toBe(0);
    expect(next.json<NextJson>()).toMatchObject({ step: 6, action: 'start' });
    expect(journal(dir).find((e) => e.event === 'boundary_answered')).toMatchObject({ option: 'A', choice: expect.stringContaining('asked once') });
  });

  it('crossed by a new session: counts as A, journaled, and the new conversation needs no --take-over (the lease ended at the boundary)', () => {
    const dir = atDecompose();
    writeTasks(dir);
    expect(autopilot(dir, 'done', '--take-over', '--session', 'first').code).toBe(3);
    const second = autopilot(dir, '--session', 'second', 'next', '--json');
    expect(second.code).toBe(0);
    expect(second.json<NextJson>()).toMatchObject({ step: 6, action: 'start' });
    expect(journal(dir).find((e) => e.event === 'boundary_answered')).toMatchObject({ option: 'A', session: 'second', reached_by: 'first' });
    expect(readdirSync(join(dir, '_docs/_autopilot/checkpoints')).some((n) => n.endsWith('-boundary.json'))).toBe(true);
  });
});

describe('checkpoints', () => {
  it('keeps the 24 newest and one a day for 30 days over 40 simulated days of 6 a day: 24 + 26 = 50 kept of 240', async () => {
    const dir = tempRepo();
    autopilot(dir, 'init', '--flow', 'greenfield');
    const start = Date.UTC(2026, 9, 1, 8);
    for (let day = 0; day < 40; day++) {
      for (let k = 0; k < 6; k++) {
        const now = new Date(start + day * 86_400_000 + k * 3_600_000);
        await runCheckpoint({ repo: { dir }, session: 'local', now: () => now }, `day ${day} run ${k}`);
      }
    }
    const kept = listCheckpoints({ repo: { dir } });
    // The 24 newest span the last 4 days; the 26 days before them, within 30 days, keep their newest each.
    expect(kept).toHaveLength(50);
    expect(kept[0]!.note).toBe('day 39 run 5');
    expect(kept.at(-1)!.note).toBe('day 10 run 5');
  });

  it('restore returns the pointer to the checkpoint, journaled, and deletes no history', async () => {
    const dir = tempRepo();
    autopilot(dir, 'init', '--flow', 'greenfield');
    autopilot(dir, 'next');
    autopilot(dir, 'substep', '2 — Restrictions');
    // The conversation that drives (and holds the lease) makes the checkpoint and restores it.
    const ctx = { repo: { dir }, session: 'conversation-1', now: () => new Date() };
    const { id } = await runCheckpoint(ctx, 'before trying the interview again');
    for (let i = 0; i < 3; i++) {
      autopilot(dir, 'next');
      autopilot(dir, 'fail', '--reason', `r${i}`);
    }
    const before = journal(dir).length;
    await runRestore(ctx, id);
    expect(autopilot(dir, 'status', '--json').json<NextJson>()).toMatchObject({
      step: 1,
      status: 'in_progress',
      sub_step: '2 — Restrictions',
      retry_count: 0,
      drift: [],
    });
    const after = journal(dir);
    expect(after).toHaveLength(before + 1);
    expect(after.at(-1)).toMatchObject({ event: 'checkpoint_restored', checkpoint: id });
    expect(read(dir, '_docs/_autopilot_state.md')).toContain('sub_step: 2 — Restrictions');
    await expect(runRestore(ctx, 'not-an-id')).rejects.toThrow(/not a checkpoint id/);
  });
});

describe("a checkpoint holds the skill's own state file (seed 002)", () => {
  const STATE = '_docs/02_document/state.json';
  const checkpointId = (stdout: string) => /restore (\S+)`/.exec(stdout)![1]!;

  it('checkpoint, the skill moves on, restore: its state file is back byte for byte, the pointer with it; 1 file restored, journaled', () => {
    const dir = tempRepo();
    expect(autopilot(dir, 'init', '--flow', 'existing-code').code).toBe(0);
    expect(autopilot(dir, 'next').code).toBe(0);
    // The document skill (step 1) keeps its own position: `state: { file: 02_document/state.json, field: position }`.
    const then = '{\n  "position": "3 — Components",\n  "done": ["1 — Discovery", "2 — Modules"]\n}\n';
    write(dir, STATE, then);
    autopilot(dir, 'substep', '3 — Components');
    const taken = autopilot(dir, 'checkpoint', '--note', 'before the components');
    expect(taken.code).toBe(0);
    const id = checkpointId(taken.stdout);
    const kept = JSON.parse(read(dir, `_docs/_autopilot/checkpoints/${id}.json`)) as { skill_state: { file: string; text: string }[] };
    expect(kept.skill_state).toEqual([{ file: STATE, text: then }]);

    // The skill goes on, and so does the pointer.
    const later = '{"position": "5 — Verification"}\n';
    write(dir, STATE, later);
    autopilot(dir, 'substep', '5 — Verification');

    const restored = autopilot(dir, 'restore', id, '--json');
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.json()).toMatchObject({ restored: id, step: 1, skill_state: [STATE] });
    expect(read(dir, STATE)).toBe(then);
    expect(read(dir, '_docs/_autopilot_state.md')).toContain('sub_step: 3 — Components');
    expect(journal(dir).at(-1)).toMatchObject({ event: 'checkpoint_restored', checkpoint: id, skill_state: [STATE] });
    // The restore's own checkpoint kept the state file as it was: the restore can be undone too.
    const before = readdirSync(join(dir, '_docs/_autopilot/checkpoints')).find((n) => n.endsWith('-before-restore.json'))!;
    expect((JSON.parse(read(dir, `_docs/_autopilot/checkpoints/${before}`)) as { skill_state: unknown }).skill_state).toEqual([{ file: STATE, text: later }]);
    // And `next` resumes where the skill's file says.
    expect(autopilot(dir, 'next').stdout).toContain('3 — Components');
  });

  it('no skill state file on disk: the checkpoint holds none and restore writes none (0 files)', () => {
    const dir = tempRepo();
    autopilot(dir, 'init', '--flow', 'greenfield');
    autopilot(dir, 'next');
    const id = checkpointId(autopilot(dir, 'checkpoint').stdout);
    expect(read(dir, `_docs/_autopilot/checkpoints/${id}.json`)).not.toContain('skill_state');
    const restored = autopilot(dir, 'restore', id, '--json');
    expect(restored.code).toBe(0);
    expect(restored.json()).not.toHaveProperty('skill_state');
  });
});
