/**
 * Random sessions against the pure rules, the way the CLI drives them:
 * reconcile with the disk, apply one event, keep what it journaled. Whatever
 * an agent does, in any order, no step is passed without evidence.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSettled, evidenceFor, inferPassed } from '../../../src/engine/evidence.js';
import { locate } from '../../../src/engine/reconcile.js';
import { apply, type Event } from '../../../src/engine/transitions.js';
import type { Flow } from '../../../src/formats/flow/model.js';
import { MAX_RETRIES, type Position } from '../../../src/formats/pointer/position.js';
import { builtInFlow, evidence } from '../../helpers/engine.js';

type Action =
  | { kind: 'event'; event: Event }
  | { kind: 'write'; which: 'current' | number }
  | { kind: 'delete'; step: number }
  /** What a diligent agent does: write the current step's artifacts, then `done`. */
  | { kind: 'work' };

const action = (steps: number): fc.Arbitrary<Action> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant<Action>({ kind: 'event', event: { type: 'next' } }) },
    { weight: 4, arbitrary: fc.constant<Action>({ kind: 'event', event: { type: 'done' } }) },
    { weight: 4, arbitrary: fc.constant<Action>({ kind: 'write', which: 'current' }) },
    { weight: 8, arbitrary: fc.constant<Action>({ kind: 'work' }) },
    { weight: 1, arbitrary: fc.constant<Action>({ kind: 'event', event: { type: 'done', force: { reason: 'person' } } }) },
    { weight: 2, arbitrary: fc.constant<Action>({ kind: 'event', event: { type: 'fail', reason: 'red' } }) },
    { weight: 1, arbitrary: fc.constant<Action>({ kind: 'event', event: { type: 'skip', reason: 'not needed' } }) },
    { weight: 2, arbitrary: fc.constantFrom('A', 'B', 'C').map((option): Action => ({ kind: 'event', event: { type: 'decide', option } })) },
    { weight: 2, arbitrary: fc.constant<Action>({ kind: 'event', event: { type: 'ack' } }) },
    { weight: 1, arbitrary: fc.constant<Action>({ kind: 'event', event: { type: 'substep', text: '2 — Middle' } }) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: steps }).map((which): Action => ({ kind: 'write', which })) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: steps }).map((step): Action => ({ kind: 'delete', step })) },
  );

/** One cycle's worth of disk: which steps have artifacts, which conditions hold, which waivers were journaled. */
interface Disk {
  cycle: number;
  done: Set<number>;
  waived: Map<number, 'skipped' | 'forced'>;
}

/** The furthest a simulated session got: proof that the walks go somewhere, so the invariant is exercised. */
let furthest = 0;

function simulate(flow: Flow, conditionMet: number[], actions: Action[]): void {
  const disks = new Map<number, Disk>();
  const disk = (cycle: number) => {
    let d = disks.get(cycle);
    if (!d) disks.set(cycle, (d = { cycle, done: new Set(), waived: new Map() }));
    return d;
  };
  let pointer: Position | null = null;
  const loopStart = flow.steps.find((s) => s.then.kind === 'loop')?.then;
  const diskCycle = () => {
    if (!loopStart || loopStart.kind !== 'loop') return 0;
    let c = 0;
    while (disks.get(c + 1)?.done.has(loopStart.to)) c++;
    return c;
  };
  const evidenceOf = (cycle: number) => {
    const d = disk(cycle);
    // Steps outside the loop keep their artifacts across cycles (their patterns have no {cycle}).
    const base = disk(1);
    const inLoop = (n: number) => loopStart?.kind === 'loop' && n >= loopStart.to;
    const done = flow.steps.map((s) => s.number).filter((n) => (inLoop(n) ? d : base).done.has(n));
    const waived = Object.fromEntries(flow.steps.map((s) => [s.number, (inLoop(s.number) ? d : base).waived.get(s.number)]).filter(([, w]) => w));
    return evidence(flow, { done, conditionMet, waived }, cycle);
  };

  for (const act of actions) {
    const { position, evidence: ev } = locate(flow, pointer, diskCycle(), evidenceOf);
    const cycle = position.cycle;

    if (act.kind === 'write' || act.kind === 'delete' || act.kind === 'work') {
      const step = act.kind === 'delete' ? act.step : act.kind === 'work' || act.which === 'current' ? position.step : act.which;
      if (typeof step !== 'number') continue;
      const inLoop = loopStart?.kind === 'loop' && step >= loopStart.to;
      const target = inLoop ? disk(cycle) : disk(1);
      if (act.kind === 'delete') target.done.delete(step);
      else target.done.add(step);
      if (act.kind !== 'work') continue;
    }

    const event: Event = act.kind === 'event' ? act.event : { type: 'done' };
    const t = apply(flow, position, act.kind === 'work' ? evidenceOf(cycle) : ev, event);
    for (const e of t.entries) {
      if (typeof e.step !== 'number') continue;
      const inLoop = loopStart?.kind === 'loop' && e.step >= loopStart.to;
      const target = inLoop ? disk(e.cycle) : disk(1);
      if (e.event === 'step_skipped' && e.by === 'agent') target.waived.set(e.step, 'skipped');
      if (e.event === 'step_completed' && e.forced === true) target.waived.set(e.step, 'forced');
    }
    pointer = t.position;
    furthest = Math.max(furthest, pointer.step === 'done' ? flow.steps.length + 1 : pointer.step + (pointer.cycle - 1) * flow.steps.length);

    // Invariants, judged on the evidence as it now stands.
    expect(pointer.retryCount).toBeGreaterThanOrEqual(0);
    expect(pointer.retryCount).toBeLessThanOrEqual(MAX_RETRIES);
    if (pointer.status === 'failed') expect(pointer.retryCount).toBe(MAX_RETRIES);
    // Files of a later step are evidence that the optional steps before it were passed (seed rule, `inferPassed`).
    const now = inferPassed(flow, evidenceOf(pointer.cycle));
    const limit = pointer.step === 'done' ? flow.steps.length + 1 : pointer.step;
    for (const step of flow.steps) {
      if (step.number >= limit) break;
      // Steps outside a loop were settled in cycle 1; steps inside it, in the pointer's cycle.
      if (!isSettled(step, evidenceFor(now, step.number))) {
        throw new Error(`pointer at ${pointer.step} (cycle ${pointer.cycle}) passed step ${step.number} without evidence after ${JSON.stringify(act)}`);
      }
    }
    if (pointer.status === 'completed' || pointer.status === 'skipped') {
      expect(typeof pointer.step === 'number' ? flow.steps[pointer.step - 1]!.then.kind : 'end').toMatch(/decision|end/);
    }
  }
}

describe('no step is passed without evidence, whatever the agent does', () => {
  for (const id of ['greenfield', 'existing-code'] as const) {
    const flow = builtInFlow(id);
    const conditional = flow.steps.filter((s) => s.runs.kind === 'if').map((s) => s.number);
    it(`holds for ${id}`, () => {
      furthest = 0;
      fc.assert(
        fc.property(fc.subarray(conditional), fc.array(action(flow.steps.length), { minLength: 1, maxLength: 200, size: 'max' }), (met, actions) =>
          simulate(flow, met, actions),
        ),
        { numRuns: 300 },
      );
      expect(furthest).toBeGreaterThan(flow.steps.length);
    });
  }
});
