/**
 * Issue 29 point 7 on real journal files: how the journal saw the run come
 * into a step (`attemptOpening`), read backwards from the end to where the run
 * last stood elsewhere.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serializeEntries, toPointerRecord, type StampedEntry } from '../../../src/formats/journal-line.js';
import type { Position } from '../../../src/formats/pointer/position.js';
import { attemptOpening } from '../../../src/io/journal-head.js';

const dir = mkdtempSync(join(tmpdir(), 'autopilot-opening-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const place = (step: number, status: Position['status'] = 'in_progress'): Position => ({
  flow: 'greenfield',
  step,
  name: `Step ${step}`,
  status,
  subStep: '0',
  retryCount: 0,
  cycle: 1,
});

/** One command's entry: the event at `at`, carrying the pointer it left (`left`, by default where it happened). */
const line = (event: string, at: Position, left: Position = at, extra: object = {}): StampedEntry =>
  ({
    at: '2026-11-26T00:00:00.000Z',
    session: 'local',
    event,
    flow: at.flow,
    cycle: at.cycle,
    step: at.step,
    name: at.name,
    status: at.status,
    retry_count: at.retryCount,
    ...extra,
    pointer: toPointerRecord(left),
  }) as StampedEntry;

function opening(entries: StampedEntry[], step: number) {
  const file = join(dir, `journal-${n++}.jsonl`);
  writeFileSync(file, entries.length > 0 ? serializeEntries(entries.map((e, i) => ({ ...e, seq: i + 1 }))) : '');
  return attemptOpening(file, { flow: 'greenfield', cycle: 1, step });
}

const intoTwo = line('step_completed', place(1, 'completed'), place(2, 'not_started'));

describe('how the journal saw the run come into a step', () => {
  it('a step the run came to and `next` began: none before, step_started after, kept through sub-steps and a sub-step edit', () => {
    expect(opening([intoTwo], 2)).toBe('none');
    const begun = [intoTwo, line('step_started', place(2))];
    expect(opening(begun, 2)).toBe('step_started');
    expect(opening([...begun, line('substep', place(2)), line('pointer_edited', place(2))], 2)).toBe('step_started');
  });

  it('set in progress by a hand edit or by the folder, with no start: none (2 cases)', () => {
    expect(opening([intoTwo, line('pointer_edited', place(2))], 2)).toBe('none');
    expect(opening([intoTwo, line('position_repaired', place(2))], 2)).toBe('none');
  });

  it('a failure, an answer or a person’s adoption of a pointer edit closes the attempt; adopting the criteria does not', () => {
    const begun = [intoTwo, line('step_started', place(2))];
    expect(opening([...begun, line('step_failed', place(2, 'not_started'))], 2)).toBe('none');
    expect(opening([...begun, line('edit_adopted', place(2), place(2), { what: 'pointer' })], 2)).toBe('none');
    expect(opening([...begun, line('edit_adopted', place(2), place(2), { what: 'criteria' })], 2)).toBe('step_started');
  });

  it('batches: the next batch not begun after one is done; begun by its batch_started', () => {
    const batches = [intoTwo, line('step_started', place(2)), line('batch_started', place(2)), line('batch_completed', place(2), place(2, 'not_started'))];
    expect(opening(batches, 2)).toBe('batch_completed');
    expect(opening([...batches, line('batch_started', place(2))], 2)).toBe('batch_started');
  });

  it('a person moving the run back: the earlier step is not begun; a restore returns to the attempt of its checkpoint', () => {
    const atThree = [intoTwo, line('step_started', place(2)), line('step_completed', place(2, 'completed'), place(3, 'not_started'))];
    expect(opening([...atThree, line('pointer_edited', place(2))], 2)).toBe('none');
    expect(opening([...atThree, line('checkpoint_restored', place(2))], 2)).toBe('step_started');
  });

  it('an empty journal holds no start: none', () => {
    expect(opening([], 2)).toBe('none');
  });
});
