/** What the journal says of a batch step's current visit (`io/batch-record.ts`), read from real journal files. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { batchRecord } from '../../../src/io/batch-record.js';

const dir = mkdtempSync(join(tmpdir(), 'autopilot-batch-record-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** A journal of these events (each its own command: it carries a pointer), in order, at step 6 unless said. */
function journal(...events: Record<string, unknown>[]): string {
  const file = join(dir, `journal-${n++}.jsonl`);
  const lines = events.map((e, i) =>
    JSON.stringify({
      seq: i + 1,
      at: '2026-11-28T00:00:00.000Z',
      session: 'local',
      flow: 'greenfield',
      cycle: 1,
      step: 6,
      name: 'Implement',
      status: 'in_progress',
      retry_count: 0,
      pointer: { flow: 'greenfield', step: 6, name: 'Implement', status: 'in_progress', sub_step: '0', retry_count: 0, cycle: 1 },
      ...e,
    }),
  );
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const AT = { flow: 'greenfield', cycle: 1, step: 6 };
const started = (batch: number, extra: Record<string, unknown> = {}) => ({
  event: 'batch_started',
  batch,
  of: 3,
  tasks: [],
  batches: [['01'], ['02'], ['03']],
  ...extra,
});
const completed = (batch: number) => ({ event: 'batch_completed', batch, of: 3, tasks: [] });

describe('the batches of a step, as the journal records them', () => {
  it('counts 2 batches done in the visit, with the report hash and the tree each batch began with', () => {
    const file = journal(
      { event: 'run_started' },
      { event: 'step_started', attempt: 1 },
      started(1, { report_hash: 'aaaa', tree: 't1' }),
      completed(1),
      started(2, { tree: 't2' }),
      completed(2),
      started(3),
    );
    const record = batchRecord(file, AT, false);
    expect(record.completed).toEqual([1, 2]);
    expect(record.pinned).toMatchObject({ batch: 3 });
    expect([...record.reportAtStart]).toEqual([[1, 'aaaa']]);
    expect([...record.treeAtStart]).toEqual([
      [2, 't2'],
      [1, 't1'],
    ]);
  });

  it('counts nothing of an earlier visit: a step done, then redone, has 0 batches done until its own; a completed step keeps its 3', () => {
    const events = [{ event: 'step_started' }, started(1), completed(1), started(2), completed(2), started(3), completed(3), { event: 'step_completed' }];
    expect(batchRecord(journal(...events), AT, true).completed).toEqual([1, 2, 3]);
    const redone = journal(...events, { event: 'step_started', attempt: 1 }, started(1));
    expect(batchRecord(redone, AT, false).completed).toEqual([]);
    // A progress commit's record of the completed step does not end the visit it records.
    const committed = journal(...events, { event: 'progress_commit_owed', files: [], steps: 10 });
    expect(batchRecord(committed, AT, true).completed).toEqual([1, 2, 3]);
    // Moved back to redo it after step 7 finished: the read stops at step 7's completion, before the earlier visit.
    const movedBack = journal(...events, { event: 'step_completed', step: 7 }, { event: 'pointer_edited', message: 'moved back' }, started(1));
    expect(batchRecord(movedBack, AT, false)).toMatchObject({ completed: [], pinned: { batch: 1 } });
  });

  it('reads nothing before the run started, nor of another step or cycle', () => {
    const file = journal(started(1), completed(1), { event: 'run_started' }, completed(2), { ...completed(3), cycle: 2 }, { ...completed(1), step: 9 });
    expect(batchRecord(file, AT, false).completed).toEqual([2]);
  });
});
