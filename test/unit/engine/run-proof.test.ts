/** A run's completed steps on record and their proof by content (engine/run-proof.ts): what counts, what undoes it, what passes. */
import { describe, expect, it } from 'vitest';
import { judgeProof, runRecord } from '../../../src/engine/run-proof.js';
import type { StampedEntry } from '../../../src/formats/journal-line.js';

let seq = 0;
/** An event as the journal holds it: the fields the proof reads. */
const e = (event: string, step: number, details: Record<string, unknown> = {}): StampedEntry =>
  ({ event, seq: ++seq, flow: 'greenfield', cycle: 1, step, name: `S${step}`, status: 'completed', retry_count: 0, ...details }) as unknown as StampedEntry;
const end = { pointer: { flow: 'greenfield', step: 1, name: 'x', status: 'not_started', sub_step: '0', retry_count: 0, cycle: 1 } };
const owed = (step: number, judged: Record<string, string>, files: string[] = []) =>
  e('progress_commit_owed', step, { files: ['_docs/_autopilot_state.md', '_docs/_autopilot/journal.jsonl', ...files], judged, ...end });

describe('runRecord and judgeProof', () => {
  it('3 steps: 1 proven as recorded, 1 proven by newer bytes a later step recorded, 1 with no commit named; the state files never judged', () => {
    const journal = [
      e('step_completed', 1),
      owed(1, { 'a.md': 'A1' }),
      e('step_completed', 2, end),
      e('step_completed', 3),
      owed(3, { 'a.md': 'A2', 'b.md': 'B1' }),
    ];
    const now: Record<string, string> = { 'a.md': 'A2', 'b.md': 'B1' };
    const proof = judgeProof('default', runRecord(journal), (path) => now[path]);
    expect(proof.proven.map((s) => s.step)).toEqual([1, 3]);
    expect(proof.unrecorded.map((s) => s.step)).toEqual([2]);
    expect(proof.lost).toEqual([]);
  });

  it('3 files of a step: 1 missing lost, 1 with bytes no line recorded named changed, 1 named without a hash only needs to be there', () => {
    const journal = [e('step_completed', 1), owed(1, { 'a.md': 'A1', 'b.md': 'B1' }, ['c.md'])];
    const now: Record<string, string> = { 'b.md': 'B9', 'c.md': 'anything' };
    const proof = judgeProof('login', runRecord(journal), (path) => now[path]);
    expect(proof.lost).toEqual([{ step: 1, name: 'S1', cycle: 1, files: [{ path: 'a.md', why: 'missing' }] }]);
    expect(proof.changed).toEqual([{ step: 1, name: 'S1', cycle: 1, files: [{ path: 'b.md', why: 'changed' }] }]);
    expect(proof.proven).toEqual([]);
  });

  it('undone: a step started again, a checkpoint restored to before it, a run started over: 4 completions undone, the 1 before the checkpoint kept', () => {
    const restored = [e('step_completed', 1), owed(1, { 'a.md': 'A1' })];
    const then = seq;
    restored.push(e('step_completed', 2), owed(2, { 'b.md': 'B1' }), e('checkpoint_restored', 2, { journal_then: then, ...end }));
    const redone = [e('step_completed', 1), owed(1, { 'a.md': 'A1' }), e('step_started', 1, end)];
    const over = [e('step_completed', 1), owed(1, { 'a.md': 'A1' }), e('run_started', 1, end)];
    expect(runRecord(restored).steps.map((s) => s.step)).toEqual([1]);
    expect(runRecord(redone).steps).toEqual([]);
    expect(runRecord(over).steps).toEqual([]);
  });
});
