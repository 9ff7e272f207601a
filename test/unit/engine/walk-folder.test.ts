/**
 * Issue 23, point 7: the folder never walks past a person. The pure rule
 * (`walkFolder`, through `reconcile`) over evidence described in a line: no
 * disk. Judge results stand in for what the edge gathers (`judged`).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Evidence } from '../../../src/engine/evidence.js';
import { reconcile, walkFolder } from '../../../src/engine/reconcile.js';
import { decideStep, planStep, reconciliationEntries, type StepState } from '../../../src/engine/step-plan.js';
import type { Finding } from '../../../src/evidence/types.js';
import { checkpointBefore, stepByNumber, type Flow } from '../../../src/formats/flow/model.js';
import { toPointerRecord } from '../../../src/formats/journal-line.js';
import type { Position } from '../../../src/formats/pointer/position.js';
import { at, builtInFlow, evidence, upTo } from '../../helpers/engine.js';

const greenfield = builtInFlow('greenfield');
const existing = builtInFlow('existing-code');
const NOW = new Date('2026-11-27T02:00:00Z');

const finding = (file: string): Finding => ({
  check: 'sections',
  file,
  heading: 'Problem',
  message: 'the required section "Problem" is missing',
  write: 'a `## Problem` heading',
});

/** The evidence with judge results set: `fails` steps get a finding, every other step with files passes. */
function judged(ev: Evidence, fails: number[] = []): Evidence {
  return { ...ev, steps: ev.steps.map((s) => ({ ...s, judged: fails.includes(s.step) ? [finding(s.patterns[0]!.pattern)] : [] })) };
}

const foundSteps = (r: { walk?: { found: { step: number }[] } }) => (r.walk?.found ?? []).map((f) => f.step);

describe('walkFolder: work found on disk is completed up to the first person or stop', () => {
  it("the issue's eight `# x` files (steps 1, 2, 3, 5, 6, 7): step 1's files fail their checks, so 0 steps complete and the run stands at step 1", () => {
    const r = reconcile(greenfield, null, judged(evidence(greenfield, { done: [1, 2, 3, 5, 6, 7] }), [1, 2, 3, 5, 6, 7]));
    expect(r.position).toEqual(at(greenfield, 1));
    expect(foundSteps(r)).toEqual([]);
    expect(r.walk!.stop).toMatchObject({ kind: 'findings', step: 1 });
  });

  it('with a pointer at step 1 in progress and the same files: the pointer stands (no drift), and the walk says why', () => {
    const pointer = at(greenfield, 1, 'in_progress', { subStep: '2 — Restrictions' });
    const r = reconcile(greenfield, pointer, judged(evidence(greenfield, { done: [1, 2, 3, 5, 6, 7] }), [1]));
    expect(r.position).toEqual(pointer);
    expect(r.drift).toEqual([]);
    expect(r.walk!.stop).toMatchObject({ kind: 'findings', step: 1 });
  });

  it('files that pass for steps 1–7: 2 steps complete and the walk stops on the research decision (completed, the question open)', () => {
    const r = reconcile(greenfield, null, judged(evidence(greenfield, { done: upTo(7) })));
    expect(r.position).toEqual(at(greenfield, 2, 'completed'));
    expect(foundSteps(r)).toEqual([1, 2]);
    expect(r.walk!.stop).toEqual({ kind: 'decision', step: 2 });
  });

  it('after the decision (pointer at Plan), passing files for 3–7: 2 steps complete (3, 5; 4 passed over) and the walk stops at the boundary after Decompose', () => {
    const r = reconcile(greenfield, at(greenfield, 3, 'in_progress'), judged(evidence(greenfield, { done: [1, 2, 3, 5, 6, 7] })));
    expect(r.position).toEqual(at(greenfield, 6));
    expect(foundSteps(r)).toEqual([3, 5]);
    expect(r.walk!.stop).toEqual({ kind: 'boundary', after: 5 });
    expect(r.drift[0]).toMatchObject({ kind: 'ahead-on-disk', step: 6 });
    expect(r.drift[0]!.message).toMatch(/steps 3, 5; the walk stops at step 6 \(Implement\): step 5 \(Decompose\) ends at a session boundary/);
  });

  it('past the boundary, passing files for every step: 4 steps complete (6–9) and the walk stops before Deploy, which starts with a checkpoint', () => {
    expect(checkpointBefore(greenfield, stepByNumber(greenfield, 10)!)).toBe(true);
    const r = reconcile(greenfield, at(greenfield, 6, 'in_progress'), judged(evidence(greenfield, { done: upTo(10) })));
    expect(r.position).toEqual(at(greenfield, 10));
    expect(foundSteps(r)).toEqual([6, 7, 8, 9]);
    expect(r.walk!.stop).toEqual({ kind: 'checkpoint', step: 10 });
  });

  it('a step whose files fail mid-walk: the steps before it complete (1), and the run stands at it, not started, with its findings', () => {
    const r = reconcile(greenfield, at(greenfield, 3, 'in_progress'), judged(evidence(greenfield, { done: [1, 2, 3, 5, 6, 7] }), [5]));
    expect(foundSteps(r)).toEqual([3]);
    expect(r.position).toEqual(at(greenfield, 5));
    expect(r.walk!.stop).toMatchObject({ kind: 'findings', step: 5, findings: [{ check: 'sections' }] });
  });

  it('a pointer waiting at its decision (Research completed) with later files: it stands; nothing is completed again', () => {
    const pointer = at(greenfield, 2, 'completed');
    const r = reconcile(greenfield, pointer, judged(evidence(greenfield, { done: upTo(7) })));
    expect(r.position).toEqual(pointer);
    expect(r.drift).toEqual([]);
    expect(foundSteps(r)).toEqual([]);
  });

  it('a session boundary waiting at the pointer holds the walk: the pointer stands', () => {
    const pointer = at(greenfield, 6);
    const r = reconcile(greenfield, pointer, judged(evidence(greenfield, { done: upTo(9) })), undefined, { waiting: true });
    expect(r.position).toEqual(pointer);
    expect(r.walk).toBeUndefined();
  });

  it('a round a decision repeats, with no new draft: the walk does not complete it (the round is still to do)', () => {
    const ev = judged(evidence(greenfield, { done: upTo(3) }));
    ev.steps[1] = { ...ev.steps[1]!, roundBaseline: ev.steps[1]!.patterns[0]!.matches };
    const pointer = at(greenfield, 2);
    const r = reconcile(greenfield, pointer, ev);
    expect(r.position).toEqual(pointer);
    expect(r.walk!.stop).toEqual({ kind: 'round', step: 2 });
  });

  it('existing-code: Document and Test Spec complete (2), Decompose Tests ends at a boundary, whatever is on disk after it', () => {
    const r = reconcile(existing, null, judged(evidence(existing, { done: upTo(14) })));
    expect(foundSteps(r)).toEqual([1, 2, 4]);
    expect(r.position).toEqual(at(existing, 5));
    expect(r.walk!.stop).toEqual({ kind: 'boundary', after: 4 });
  });

  it('in 300 random folders, the walk never completes a step past a decision or a boundary, never a checkpointed one, and never one whose files fail', () => {
    fc.assert(
      fc.property(
        fc.subarray(upTo(10)),
        fc.subarray(upTo(10)),
        fc.integer({ min: 1, max: 10 }),
        fc.constantFrom('not_started', 'in_progress', 'completed') as fc.Arbitrary<Position['status']>,
        (done, fails, from, status) => {
          const ev = judged(evidence(greenfield, { done }), fails);
          const pointer = from === 1 && status === 'not_started' ? null : at(greenfield, from, status);
          const r = reconcile(greenfield, pointer, ev);
          const found = foundSteps(r);
          for (const n of found) {
            const step = stepByNumber(greenfield, n)!;
            expect(fails).not.toContain(n);
            expect(checkpointBefore(greenfield, step)).toBe(false);
            // A step a decision or a boundary follows is the last the walk completes.
            if (step.then.kind === 'decision' || step.then.kind === 'boundary') expect(n).toBe(found.at(-1));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('what a walk journals and how the run stops', () => {
  function walkedState(flow: Flow, pointer: Position, ev: Evidence): StepState {
    const { evidence: judgedEv, ...reconciled } = reconcile(flow, pointer, ev);
    return {
      flow,
      pointer: { position: pointer },
      record: { start: pointer, drift: [] },
      reconciled,
      evidence: judgedEv,
      lastRecord: { seq: 1, pointer: toPointerRecord(pointer, flow.hash), session: 'agent' },
    };
  }

  it('a walk to the boundary: `next` journals each step by folder (2), reaches the boundary (boundary_reached) and takes its checkpoint; exit 3 with the question', () => {
    const state = walkedState(greenfield, at(greenfield, 3, 'in_progress'), judged(evidence(greenfield, { done: [1, 2, 3, 5, 6, 7] })));
    const input = { state, event: { type: 'next' as const }, session: 'agent', now: NOW, staleMs: 60_000 };
    const decided = decideStep(input);
    expect(decided.outcome).toEqual({ kind: 'boundary', after: 5 });
    const plan = planStep(input, decided);
    expect(plan.entries.map((e) => `${e.event}:${e.step}${'by' in e ? `:${String(e.by)}` : ''}`)).toEqual([
      'step_completed:3:folder',
      'step_completed:5:folder',
      'position_repaired:6',
      'boundary_reached:6',
    ]);
    expect(plan.checkpoint?.label).toBe('boundary');
    expect(plan.pointer?.position).toEqual(at(greenfield, 6));
  });

  it('a walk to the research decision: `next` journals steps 1 and 2 by folder and decision_required, and asks the question', () => {
    const state = walkedState(greenfield, at(greenfield, 1, 'in_progress'), judged(evidence(greenfield, { done: upTo(7) })));
    const input = { state, event: { type: 'next' as const }, session: 'agent', now: NOW, staleMs: 60_000 };
    const decided = decideStep(input);
    expect(decided.outcome).toMatchObject({ kind: 'decision', decision: { id: 'research-round' } });
    expect(reconciliationEntries(state).map((e) => `${e.event}:${e.step}`)).toEqual([
      'step_completed:1',
      'step_completed:2',
      'decision_required:2',
      'position_repaired:2',
    ]);
  });

  it('a person answering the boundary a walk reached, before any `next`: boundary_reached, then boundary_answered', () => {
    const state = walkedState(greenfield, at(greenfield, 3, 'in_progress'), judged(evidence(greenfield, { done: [1, 2, 3, 5] })));
    const input = { state, event: { type: 'decide' as const, option: 'B' }, session: 'person', now: NOW, staleMs: 60_000, person: true };
    const decided = decideStep(input);
    expect(decided.entries.map((e) => e.event)).toEqual(['boundary_reached', 'boundary_answered']);
    expect(decided.outcome.kind).toBe('advanced');
  });

  it('walkFolder on its own: from a step already recorded completed, it is not completed again', () => {
    const { walk } = walkFolder(greenfield, stepByNumber(greenfield, 2)!, judged(evidence(greenfield, { done: upTo(3) })), true);
    expect(walk).toEqual({ found: [], stop: { kind: 'decision', step: 2 } });
  });
});
