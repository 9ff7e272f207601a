/**
 * Batches of a task index (issue 24), the pure parts: the sub-step read as
 * a kind, the task table read as data, the flow's Sub-steps cell, and the
 * rules of `next`, `done`, `fail` and `substep` inside a step that walks
 * its batches.
 */
import { describe, expect, it } from 'vitest';
import { batchStatuses, batchesLine, judgeBatchReport, type BatchFacts } from '../../../src/engine/task-batches.js';
import { apply, type Event } from '../../../src/engine/transitions.js';
import { batchesOf, readTaskTable } from '../../../src/evidence/task-table.js';
import { parseFlow } from '../../../src/formats/flow/parse-flow.js';
import { batchSubStep, readSubStep } from '../../../src/formats/pointer/sub-step.js';
import type { Position } from '../../../src/formats/pointer/position.js';
import { at, builtInFlow, evidence, upTo } from '../../helpers/engine.js';

const greenfield = builtInFlow('greenfield');
const existing = builtInFlow('existing-code');

describe('the sub-step, read as a kind', () => {
  it('reads 3 kinds: none, a batch (with the agent’s note), and free text as the seed wrote it', () => {
    expect(readSubStep('0')).toEqual({ kind: 'none' });
    expect(readSubStep('batch 2 of 4 — 03, 04')).toEqual({ kind: 'batch', batch: 2, of: 4, tasks: ['03', '04'] });
    expect(readSubStep('batch 2 of 4 — 03, 04 (2 — Review)')).toEqual({ kind: 'batch', batch: 2, of: 4, tasks: ['03', '04'], note: '2 — Review' });
    expect(readSubStep('4 — Architecture Review')).toEqual({ kind: 'text', text: '4 — Architecture Review' });
    // Not a batch: a number past its count, or no task.
    expect(readSubStep('batch 5 of 4 — 03').kind).toBe('text');
    expect(readSubStep('batch 1 of 4 — ').kind).toBe('text');
  });

  it('writes the one line it reads back', () => {
    const line = batchSubStep(3, 3, ['04', '05'], 'Code (and) tests');
    expect(line).toBe('batch 3 of 3 — 04, 05 (Code and tests)');
    expect(readSubStep(line)).toEqual({ kind: 'batch', batch: 3, of: 3, tasks: ['04', '05'], note: 'Code and tests' });
  });
});

const INDEX = `# Tasks

## Tasks

| Task | Name | Points | Batch | Depends on | Test strategy |
|---|---|---|---|---|---|
| 01 | Parse | 3 | 1 | — | unit |
| 02 | Load | 2 | 1 | — | unit |
| 03 | Walk | 5 | 3 | 01 | unit |

## Coverage

| Criterion | Tasks |
|---|---|
| AC-01 | 01, 02 |
| AC-02 | 03 |
`;

describe('the task table, read as data', () => {
  it('reads 3 tasks, their batches in order (a gap closed) and the criteria the Coverage table gives each', () => {
    const rows = readTaskTable(INDEX)!;
    expect(rows).toEqual([
      { id: '01', name: 'Parse', batch: 1, criteria: ['AC-01'] },
      { id: '02', name: 'Load', batch: 1, criteria: ['AC-01'] },
      { id: '03', name: 'Walk', batch: 3, criteria: ['AC-02'] },
    ]);
    expect(batchesOf(rows)).toEqual([['01', '02'], ['03']]);
    expect(readTaskTable('# no table here')).toBeUndefined();
  });
});

describe('the flow says which steps walk batches (data, not code)', () => {
  it('greenfield 6 and existing-code 5 and 9 walk their task index; no other step does', () => {
    const walking = (flow: typeof greenfield) => flow.steps.filter((s) => s.batches).map((s) => [s.number, s.batches]);
    expect(walking(greenfield)).toEqual([[6, { index: '02_tasks/_index.md', report: '03_implementation/batch_{batch}.md' }]]);
    expect(walking(existing)).toEqual([
      [5, { index: '02_tasks/tests/_index.md', report: '03_implementation/tests/batch_{batch}.md' }],
      [9, { index: '02_tasks/cycle-{cycle}/_index.md', report: '03_implementation/cycle-{cycle}/batch_{batch}.md' }],
    ]);
  });

  it('refuses a batches cell without its report, or a report without {batch}, at its line', () => {
    const flow = (cell: string) =>
      `---\nid: f\ntitle: F\nscan_order: 3\n---\n\n## Step Reference Table\n\n| Step | Name | Runs | Skill | Sub-steps | Done when | Then |\n|---|---|---|---|---|---|---|\n| 1 | Build | always | \`implement\` | ${cell} | \`r.md\` | end |\n`;
    const bad1 = parseFlow(flow('batches of `t/_index.md`'), 'f.md', 'f');
    expect(bad1.problems.map((p) => [p.line, p.message])).toEqual([[11, 'the batches of the sub-steps cell need the task index and the batch report']]);
    const bad2 = parseFlow(flow('batches of `t/_index.md` → `r/batch.md`'), 'f.md', 'f');
    expect(bad2.problems[0]!.message).toBe('the batch report `r/batch.md` does not hold `{batch}`');
    const good = parseFlow(flow('batches of `t/_index.md` → `r/batch_{batch}.md` · 1 Code'), 'f.md', 'f');
    expect(good.problems).toEqual([]);
    expect(good.flow!.steps[0]!.batches).toEqual({ index: 't/_index.md', report: 'r/batch_{batch}.md' });
  });
});

const facts = (extra: Partial<BatchFacts> = {}): BatchFacts => ({
  index: '02_tasks/_index.md',
  plan: [['01', '02'], ['03'], ['04']],
  pinned: true,
  tasks: [
    { id: '01', name: 'Parse', criteria: ['AC-01'] },
    { id: '02', name: 'Load', criteria: ['AC-01'] },
    { id: '03', name: 'Walk', criteria: ['AC-02'] },
    { id: '04', name: 'Show', criteria: [] },
  ],
  completed: [],
  ...extra,
});
const REPORT = (tasks: string, criteria: string) =>
  `# Batch\n\n## Tasks\n\n${tasks} were done with their tests today.\n\n${criteria}\n\n## Result\n\nCommand: npm test\nExit code: 0\nTotals: 3 passed, 0 failed\n`;
const withReport = (batch: number, text: string | undefined, f = facts()): BatchFacts => ({
  ...f,
  report: {
    batch,
    file: `03_implementation/batch_0${batch}.md`,
    ...(text !== undefined ? { text } : {}),
    output: { file: `03_implementation/batch_0${batch}.md`, sections: ['Tasks', 'Result'], checks: ['exit-code'] },
    skill: 'implement',
    runs: [{ command: 'npm test', exitCode: 0, totals: { passed: 3, failed: 0 }, seq: 9 }],
    verify: { command: 'npm test', changed: [] },
  },
});
const run = (position: Position, f: BatchFacts | undefined, event: Event, spec: { done?: number[] } = {}) => {
  const ev = evidence(greenfield, { done: upTo(5), ...spec });
  if (f) ev.steps[5] = { ...ev.steps[5]!, batches: f };
  return apply(greenfield, position, ev, event);
};
const implementing = (subStep: string, status: Position['status'] = 'in_progress', extra: Partial<Position> = {}) =>
  at(greenfield, 6, status, { subStep, ...extra });

describe('next inside a step that walks batches', () => {
  it('starts the step at batch 1: step_started and batch_started with every batch pinned', () => {
    const t = run(at(greenfield, 6), facts({ pinned: false }), { type: 'next' });
    expect(t.outcome).toEqual({ kind: 'work', action: 'start' });
    expect(t.position).toMatchObject({ status: 'in_progress', subStep: 'batch 1 of 3 — 01, 02' });
    expect(t.entries.map((e) => e.event)).toEqual(['step_started', 'batch_started']);
    expect(t.entries[1]).toMatchObject({ batch: 1, of: 3, tasks: ['01', '02'], batches: [['01', '02'], ['03'], ['04']] });
  });

  it('resumes a seed run’s free-text sub-step at the first batch the journal does not record done', () => {
    const t = run(implementing('2 — Code and tests'), facts({ completed: [1] }), { type: 'next' });
    expect(t.position.subStep).toBe('batch 2 of 3 — 03');
    expect(t.entries.map((e) => e.event)).toEqual(['batch_started']);
  });

  it('begins at batch 1 whatever reports lie on disk: 0 of 3 recorded done, batch 1 handed out', () => {
    const t = run(at(greenfield, 6), facts({ pinned: false, completed: [] }), { type: 'next' });
    expect(t.position.subStep).toBe('batch 1 of 3 — 01, 02');
  });

  it('resumes a batch in progress without writing; begins the next batch (not_started) with batch_started only', () => {
    const p = implementing('batch 2 of 3 — 03 (1 — Code)');
    expect(run(p, facts(), { type: 'next' })).toEqual({ position: p, entries: [], outcome: { kind: 'work', action: 'resume' } });
    const next = run(implementing('batch 3 of 3 — 04', 'not_started'), facts(), { type: 'next' });
    expect(next.entries.map((e) => e.event)).toEqual(['batch_started']);
    expect(next.position.status).toBe('in_progress');
  });

  it('walks the step as one where the index gives no batch (no facts): as before', () => {
    expect(run(at(greenfield, 6), undefined, { type: 'next' }).entries.map((e) => e.event)).toEqual(['step_started']);
  });
});

describe('done inside a step that walks batches', () => {
  it('checks the batch’s report and moves to the next batch, not_started, retries reset; nothing of the step is completed', () => {
    const f = withReport(1, REPORT('01 and 02', 'AC-01 holds.'));
    const t = run(implementing('batch 1 of 3 — 01, 02', 'in_progress', { retryCount: 2 }), f, { type: 'done' }, { done: upTo(6) });
    expect(t.outcome).toEqual({ kind: 'recorded' });
    expect(t.position).toMatchObject({ step: 6, status: 'not_started', subStep: 'batch 2 of 3 — 03', retryCount: 0 });
    expect(t.entries.map((e) => e.event)).toEqual(['batch_completed']);
  });

  it('refuses a report that leaves out a task or a criterion of the batch, naming each (2 findings)', () => {
    const t = run(implementing('batch 1 of 3 — 01, 02'), withReport(1, REPORT('01', 'Nothing else.')), { type: 'done' });
    expect(t.outcome.kind).toBe('refused');
    if (t.outcome.kind !== 'refused') return;
    expect(t.outcome.findings!.map((x) => x.message)).toEqual([
      'the report does not name task 02 of batch 1',
      'the report does not name AC-01, which batch 1’s tasks cover'.replace('’', "'"),
    ]);
    expect(t.entries).toEqual([]);
  });

  it('refuses a report that is as it was on disk when its batch began (1 finding); written again, it passes', () => {
    const text = REPORT('01 and 02', 'AC-01 holds.');
    const f = withReport(1, text);
    const stale = { ...f, report: { ...f.report!, hash: 'aaaa', atStart: 'aaaa' } };
    expect(judgeBatchReport(stale, 1).map((x) => x.check)).toEqual(['batch-report-fresh']);
    const rewritten = { ...f, report: { ...f.report!, hash: 'bbbb', atStart: 'aaaa' } };
    expect(judgeBatchReport(rewritten, 1)).toEqual([]);
  });

  it('refuses a batch with no report, and a person’s --force records the batch as forced', () => {
    const missing = run(implementing('batch 2 of 3 — 03'), withReport(2, undefined), { type: 'done' });
    expect(missing.outcome.kind).toBe('refused');
    const forced = run(implementing('batch 2 of 3 — 03'), withReport(2, undefined), { type: 'done', force: { reason: 'checked by hand' } });
    expect(forced.entries[0]).toMatchObject({ event: 'batch_completed', batch: 2, forced: true, reason: 'checked by hand' });
  });

  it('a batch’s failed test run: refused (1 acceptable finding); a person’s --accept-failures records it as accepted, every other check still holding', () => {
    const failing = (text: string) => {
      const f = withReport(1, text);
      return { ...f, report: { ...f.report!, runs: [{ command: 'npm test', exitCode: 1, totals: { passed: 2, failed: 1 }, seq: 9 }] } };
    };
    const report = REPORT('01 and 02', 'AC-01 holds.').replace('Exit code: 0\nTotals: 3 passed, 0 failed', 'Exit code: 1\nTotals: 2 passed, 1 failed');
    const refused = run(implementing('batch 1 of 3 — 01, 02'), failing(report), { type: 'done' });
    expect(refused.outcome.kind).toBe('refused');
    if (refused.outcome.kind === 'refused') expect(refused.outcome.findings!.map((x) => x.acceptable)).toEqual([true]);
    const accepted = run(implementing('batch 1 of 3 — 01, 02'), failing(report), { type: 'done', acceptFailures: { reason: 'flaky #42' } });
    expect(accepted.entries[0]).toMatchObject({ event: 'batch_completed', batch: 1, accepted_failures: true, reason: 'flaky #42' });
    // A task left out is no failed run: accepting failures does not pass it.
    const short = run(implementing('batch 1 of 3 — 01, 02'), failing(report.replace('01 and 02', '01')), { type: 'done', acceptFailures: { reason: 'x' } });
    expect(short.outcome.kind).toBe('refused');
  });

  it('after the last batch completes the step, the batch recorded first; the step’s own files are checked last', () => {
    const f = withReport(3, REPORT('04', ''));
    const done = run(implementing('batch 3 of 3 — 04'), f, { type: 'done' }, { done: upTo(6) });
    expect(done.entries.map((e) => e.event)).toEqual(['batch_completed', 'step_completed']);
    expect(done.position).toMatchObject({ step: 7, subStep: '0' });
    // Without the implementation report: refused, nothing recorded, the pointer where it was.
    const early = run(implementing('batch 3 of 3 — 04'), f, { type: 'done' });
    expect(early.outcome.kind).toBe('refused');
    expect(early.position.subStep).toBe('batch 3 of 3 — 04');
    expect(early.entries).toEqual([]);
  });
});

describe('retries and sub-steps per batch', () => {
  it('a third failure of a batch stops for a person; the batch stays named; step_failed carries it', () => {
    const t = run(implementing('batch 2 of 3 — 03', 'in_progress', { retryCount: 2 }), facts(), { type: 'fail', reason: 'red' });
    expect(t.outcome).toEqual({ kind: 'failed' });
    expect(t.position).toMatchObject({ status: 'failed', retryCount: 3, subStep: 'batch 2 of 3 — 03' });
    expect(t.entries[0]).toMatchObject({ event: 'step_failed', batch: 2 });
  });

  it('substep keeps the batch and adds the agent’s position in parentheses', () => {
    const t = run(implementing('batch 2 of 3 — 03 (1 — Code)'), facts(), { type: 'substep', text: '2 — Review' });
    expect(t.position.subStep).toBe('batch 2 of 3 — 03 (2 — Review)');
  });
});

describe('batches for people', () => {
  it('says each of 3 batches done, in progress, failed or pending, in one line', () => {
    const statuses = batchStatuses(implementing('batch 2 of 3 — 03'), facts({ completed: [1] }));
    expect(statuses.map((s) => s.status)).toEqual(['done', 'in_progress', 'pending']);
    expect(batchesLine(statuses)).toBe('1 of 3 done · now batch 2 (03) · to do: 3 (04)');
    expect(batchStatuses(implementing('batch 3 of 3 — 04', 'failed'), facts({ completed: [1, 2] })).map((s) => s.status)).toEqual(['done', 'done', 'failed']);
  });

  it('counts done only what the journal records: a pointer at batch 3 with 1 batch recorded done says 1 of 3 done', () => {
    const statuses = batchStatuses(implementing('batch 3 of 3 — 04'), facts({ completed: [1] }));
    expect(statuses.map((s) => s.status)).toEqual(['done', 'pending', 'in_progress']);
    expect(batchesLine(statuses)).toBe('1 of 3 done · now batch 3 (04) · to do: 2 (03)');
  });

  it('judges no report of another batch than the one asked', () => {
    expect(judgeBatchReport(withReport(1, 'x'), 2)[0]!.message).toBe("batch 2's report was not read");
  });
});
