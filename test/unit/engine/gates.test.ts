/**
 * Issue 29 point 1: the pure classifier of hand edits (`engine/gates.ts`).
 * Each gate a person owns, the edits that pass none, and two properties over
 * random sequences of pointer edits and step commands: a failed step is never
 * completed, nor left, without a person; a pending decision is never passed
 * without an answer.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openDecision } from '../../../src/engine/boundary.js';
import { comparePlaces, gatesPassed, keptSubStep, type EditFacts } from '../../../src/engine/gates.js';
import { stepByNumber } from '../../../src/formats/flow/model.js';
import { walkFolder } from '../../../src/engine/reconcile.js';
import { apply, type Event } from '../../../src/engine/transitions.js';
import { STATUSES, type Position } from '../../../src/formats/pointer/position.js';
import { at, builtInFlow, evidence, upTo } from '../../helpers/engine.js';

const greenfield = builtInFlow('greenfield');
const allDone = evidence(greenfield, { done: upTo(greenfield.steps.length), conditionMet: [4] });

/** The facts the shell gathers, with every step's files on disk (the walk from the journal's position as far as they carry it). */
function facts(journal: Position, edited: Position, over: Partial<EditFacts> = {}): EditFacts {
  const step = typeof journal.step === 'number' ? stepByNumber(greenfield, journal.step) : undefined;
  const walked = step ? walkFolder(greenfield, step, allDone, journal.status === 'completed' || journal.status === 'skipped') : undefined;
  return {
    flow: greenfield,
    journal,
    edited,
    stepJournaled: true,
    ...(walked ? { reach: { position: walked.position, stop: walked.walk.stop } } : {}),
    ...over,
  };
}

const gates = (journal: Position, edited: Position, over: Partial<EditFacts> = {}) => gatesPassed(facts(journal, edited, over)).map((g) => g.gate);

describe('the gates a hand edit may pass', () => {
  const failed = at(greenfield, 7, 'failed', { retryCount: 3 });

  it('a failed step: revived, its count lowered, left forward or back — 4 edits, each held as `failed`', () => {
    expect(gates(failed, { ...failed, status: 'in_progress', retryCount: 0 })).toEqual(['failed']);
    expect(gates(failed, { ...failed, retryCount: 2, status: 'not_started' })).toEqual(['failed']);
    expect(gates(failed, at(greenfield, 8))).toEqual(['failed']);
    expect(gates(failed, at(greenfield, 6, 'in_progress'))).toEqual(['failed']);
    // Its sub-step's words are no gate.
    expect(gates(failed, { ...failed, subStep: 'looked at by Dana' })).toEqual([]);
  });

  it('failures on record: `retry_count` lowered, or the step left backwards — held as `retries`; raised, respected', () => {
    const twice = at(greenfield, 7, 'not_started', { retryCount: 2 });
    expect(gates(twice, { ...twice, retryCount: 0 })).toEqual(['retries']);
    expect(gates(twice, at(greenfield, 6, 'in_progress'))).toEqual(['retries']);
    expect(gates(twice, { ...twice, retryCount: 3, status: 'failed' })).toEqual([]);
  });

  it('a decision waiting: any edit forward is held as `decision`; the step redone is respected', () => {
    const research = at(greenfield, 2, 'completed');
    expect(openDecision(greenfield, research, undefined)).toBeDefined();
    expect(gates(research, at(greenfield, 3))).toEqual(['decision']);
    expect(gates(research, at(greenfield, 5, 'in_progress'))).toEqual(['decision']);
    expect(gates(research, at(greenfield, 2, 'in_progress'))).toEqual([]);
  });

  it('a boundary waiting: forward, or the step after it begun by hand, is held as `boundary`', () => {
    const implement = at(greenfield, 6);
    const boundary = { after: 5, session: 'one' };
    expect(gates(implement, at(greenfield, 7), { boundary })).toEqual(['boundary']);
    expect(gates(implement, { ...implement, status: 'in_progress' }, { boundary })).toEqual(['boundary']);
    expect(gates(implement, { ...implement, subStep: 'reading the index' }, { boundary })).toEqual([]);
  });

  it('a later batch named while the batch on record is not done is held as `batch`; an earlier one is respected', () => {
    const second = at(greenfield, 6, 'not_started', { subStep: 'batch 2 of 3 — 02' });
    expect(gates(second, { ...second, subStep: 'batch 3 of 3 — 03' })).toEqual(['batch']);
    expect(gates(second, { ...second, subStep: 'batch 1 of 3 — 01' })).toEqual([]);
    // A step not begun counts from batch 1.
    expect(gates(at(greenfield, 6), at(greenfield, 6, 'in_progress', { subStep: 'batch 2 of 3 — 02' }))).toEqual(['batch']);
  });

  it('another flow on a run that journaled a step is held as `flow`; on a run with none, respected', () => {
    const other = { ...at(greenfield, 1), flow: 'existing-code', name: 'Document' };
    expect(gates(at(greenfield, 2), other)).toEqual(['flow']);
    expect(gates(at(greenfield, 1), other, { stepJournaled: false })).toEqual([]);
  });

  it('forward further than the files carry the run is held as `ahead`: past a boundary not reached, past files that fail, past a batch step', () => {
    const decompose = at(greenfield, 5, 'in_progress');
    expect(gates(decompose, at(greenfield, 6))).toEqual(['ahead']);
    // The files of step 1 fail their checks: the walk stops there, not started.
    const judged = evidence(greenfield, { done: upTo(10) });
    judged.steps[0]!.judged = [{ check: 'placeholders', file: '00_problem/problem.md', message: 'TODO', write: 'the answer' }];
    const stop = walkFolder(greenfield, stepByNumber(greenfield, 1)!, judged);
    const problem = at(greenfield, 1, 'in_progress');
    expect(gates(problem, at(greenfield, 2), { reach: { position: stop.position, stop: stop.walk.stop } })).toEqual(['ahead']);
    expect(gates(problem, { ...problem, status: 'completed' }, { reach: { position: stop.position, stop: stop.walk.stop } })).toEqual(['ahead']);
    // Implement walks its batches: nothing on disk carries the run past it.
    expect(gates(at(greenfield, 6, 'in_progress', { subStep: 'batch 1 of 1 — 01' }), at(greenfield, 7))).toEqual(['ahead']);
    // Nothing known of the disk: no further than the journal.
    expect(gates(at(greenfield, 3, 'in_progress'), at(greenfield, 4), { reach: undefined })).toEqual(['ahead']);
  });

  it('edits the files carry, moves back, and any edit of a run with no journaled step are respected: 5 edits, 0 gates', () => {
    // Plan's and UI Design's files on disk: the walk carries the run to Decompose, so the pointer may say so.
    expect(gates(at(greenfield, 3, 'in_progress'), at(greenfield, 5))).toEqual([]);
    expect(gates(at(greenfield, 3, 'in_progress'), at(greenfield, 1))).toEqual([]);
    expect(gates(at(greenfield, 3, 'in_progress'), { ...at(greenfield, 3, 'in_progress'), subStep: 'Dana reviews' })).toEqual([]);
    expect(gates(at(greenfield, 2, 'completed'), at(greenfield, 9), { stepJournaled: false })).toEqual([]);
    expect(gates(at(greenfield, 7, 'failed', { retryCount: 3 }), at(greenfield, 7), { stepJournaled: false })).toEqual([]);
  });

  it('orders places by cycle, then step, then a finished step after an unfinished one', () => {
    expect(comparePlaces(greenfield, at(greenfield, 2, 'completed'), at(greenfield, 2, 'in_progress'))).toBeGreaterThan(0);
    expect(comparePlaces(greenfield, at(greenfield, 'done', 'completed'), at(greenfield, 10, 'completed'))).toBeGreaterThan(0);
    expect(comparePlaces(greenfield, at(greenfield, 1, 'not_started', { cycle: 2 }), at(greenfield, 10))).toBeGreaterThan(0);
  });
});

describe('issue 30 point 6: the batch is the engine’s, a person’s words after it are kept', () => {
  const recorded = at(greenfield, 6, 'in_progress', { subStep: 'batch 2 of 3 — 03, 04' });
  const kept = (subStep: string) => keptSubStep(recorded, { ...recorded, subStep });

  it('free words, words after the batch line, in parentheses, or none: 4 forms, the batch line kept each time', () => {
    expect(kept('pairing with Dana')).toBe('batch 2 of 3 — 03, 04 (pairing with Dana)');
    expect(kept('batch 2 of 3 — 03, 04 — pairing with Dana')).toBe('batch 2 of 3 — 03, 04 (pairing with Dana)');
    expect(kept('batch 2 of 3 — 03 (pairing)')).toBe('batch 2 of 3 — 03, 04 (pairing)');
    expect(kept('0')).toBe('batch 2 of 3 — 03, 04');
  });

  it('another batch, or another step, is the edit as written', () => {
    expect(kept('batch 1 of 3 — 01')).toBe('batch 1 of 3 — 01');
    expect(keptSubStep(recorded, at(greenfield, 7, 'in_progress', { subStep: 'triage' })).valueOf()).toBe('triage');
  });
});

/** A pointer edit to any place of greenfield, or a step command an agent runs (never `ack` or `decide`: those are a person's). */
type Move = { kind: 'edit'; to: Position } | { kind: 'command'; event: Event };

const anyPlace: fc.Arbitrary<Position> = fc
  .record({ step: fc.integer({ min: 1, max: greenfield.steps.length }), status: fc.constantFrom(...STATUSES), retryCount: fc.integer({ min: 0, max: 3 }) })
  .map(({ step, status, retryCount }) => at(greenfield, step, status, { retryCount }));
const move: fc.Arbitrary<Move> = fc.oneof(
  anyPlace.map((to): Move => ({ kind: 'edit', to })),
  fc
    .constantFrom<Event>(
      { type: 'next' },
      { type: 'done' },
      { type: 'fail', reason: 'red' },
      { type: 'skip', reason: 'no' },
      { type: 'substep', text: '2 — x' },
    )
    .map((event): Move => ({ kind: 'command', event })),
);

/**
 * The run as the engine keeps it: a hand edit is classified against the
 * journal's position (every step's files on disk, so the walk carries the run
 * as far as any edit could hope), and a command applies to the position the
 * journal stands at. Returns every event journaled and each position.
 */
function run(start: Position, moves: Move[]): { events: { event: string; step: number | 'done' }[]; places: Position[] } {
  let journal = start;
  const events: { event: string; step: number | 'done' }[] = [];
  const places: Position[] = [journal];
  for (const m of moves) {
    if (m.kind === 'edit') {
      if (gatesPassed(facts(journal, m.to)).length === 0) journal = { ...m.to, subStep: keptSubStep(journal, m.to) };
    } else {
      const t = apply(greenfield, journal, allDone, m.event);
      events.push(...t.entries.map((e) => ({ event: e.event, step: e.step })));
      journal = t.position;
    }
    places.push(journal);
  }
  return { events, places };
}

describe('no sequence of pointer edits and step commands passes a person', () => {
  it('a failed step is never completed, skipped nor left without an ack (300 random sequences of up to 30 moves)', () => {
    const failed = at(greenfield, 7, 'failed', { retryCount: 3 });
    fc.assert(
      fc.property(fc.array(move, { maxLength: 30 }), (moves) => {
        const { events, places } = run(failed, moves);
        expect(events.filter((e) => e.step === 7 && (e.event === 'step_completed' || e.event === 'step_skipped'))).toEqual([]);
        for (const p of places) expect(p).toMatchObject({ step: 7, status: 'failed', retryCount: 3 });
      }),
      { numRuns: 300 },
    );
  });

  it('a decision waiting is never passed without a person’s answer (300 random sequences of up to 30 moves)', () => {
    const research = at(greenfield, 2, 'completed');
    fc.assert(
      fc.property(fc.array(move, { maxLength: 30 }), (moves) => {
        const { events, places } = run(research, moves);
        expect(events.filter((e) => e.event === 'decision_answered')).toEqual([]);
        for (const p of places) expect(comparePlaces(greenfield, p, research)).toBeLessThanOrEqual(0);
      }),
      { numRuns: 300 },
    );
  });
});
