import { describe, expect, it } from 'vitest';
import { chooseCycle, locate, reconcile, resolveByName, scanPosition } from '../../../src/engine/reconcile.js';
import { apply } from '../../../src/engine/transitions.js';
import { at, builtInFlow, evidence, upTo } from '../../helpers/engine.js';

const greenfield = builtInFlow('greenfield');
const existing = builtInFlow('existing-code');

describe('folder scan (no pointer)', () => {
  it('starts an empty folder at step 1', () => {
    const r = reconcile(greenfield, null, evidence(greenfield));
    expect(r.position).toEqual(at(greenfield, 1));
    expect(r.source).toBe('folder');
  });

  it('stops at the first step without its artifacts, in progress when some exist', () => {
    expect(scanPosition(greenfield, evidence(greenfield, { done: [1, 2], touched: [3] }))).toEqual(at(greenfield, 3, 'in_progress'));
  });

  it('treats a conditional step whose condition is false as settled, and one whose condition holds as work', () => {
    expect(scanPosition(greenfield, evidence(greenfield, { done: upTo(3) })).step).toBe(5);
    expect(scanPosition(greenfield, evidence(greenfield, { done: upTo(3), conditionMet: [4] })).step).toBe(4);
  });

  it('leaves a decision open when nothing after it has begun', () => {
    expect(scanPosition(greenfield, evidence(greenfield, { done: [1, 2] }))).toEqual(at(greenfield, 2, 'completed'));
  });

  it('counts a decision as answered once a later step has artifacts', () => {
    expect(scanPosition(greenfield, evidence(greenfield, { done: [1, 2], touched: [3] })).step).toBe(3);
  });

  it('never passes an optional step that was neither done nor skipped in the journal', () => {
    expect(scanPosition(greenfield, evidence(greenfield, { done: upTo(7) })).step).toBe(8);
    expect(scanPosition(greenfield, evidence(greenfield, { done: upTo(7), waived: { 8: 'skipped' } })).step).toBe(9);
  });

  it('ends a non-looping flow at done, and loops a looping one into the next cycle', () => {
    expect(scanPosition(greenfield, evidence(greenfield, { done: upTo(10) })).step).toBe('done');
    const next = scanPosition(existing, evidence(existing, { done: upTo(14), conditionMet: [3] }, 2));
    expect(next).toMatchObject({ step: 8, cycle: 3, status: 'not_started' });
  });
});

describe('pointer cross-checked against the folder', () => {
  it('keeps a pointer that agrees with the folder, with no drift', () => {
    const pointer = at(greenfield, 3, 'in_progress', { subStep: '4 — Architecture review' });
    const r = reconcile(greenfield, pointer, evidence(greenfield, { done: [1, 2], touched: [3] }));
    expect({ position: r.position, drift: r.drift, source: r.source }).toEqual({ position: pointer, drift: [], source: 'state' });
  });

  it('moves a pointer back to the first step that has no evidence, naming the missing file', () => {
    const r = reconcile(greenfield, at(greenfield, 6, 'in_progress'), evidence(greenfield, { done: [1, 2, 3] }));
    expect(r.position).toEqual(at(greenfield, 5));
    expect(r.source).toBe('folder');
    expect(r.drift).toHaveLength(1);
    expect(r.drift[0]!.message).toContain('`02_tasks/_index.md`');
  });

  it('moves a pointer forward when later steps already have artifacts, as far as the research decision (never past it)', () => {
    const r = reconcile(greenfield, at(greenfield, 1, 'in_progress'), evidence(greenfield, { done: upTo(3), touched: [], conditionMet: [] }));
    // Plan's artifacts exist too, but the decision after Research waits for a person: the walk completes 1 and 2 and asks it.
    expect(r.position).toEqual(at(greenfield, 2, 'completed'));
    expect(r.drift[0]!.kind).toBe('ahead-on-disk');
    expect(r.walk).toEqual({
      found: [
        { step: 1, cycle: 1 },
        { step: 2, cycle: 1 },
      ],
      stop: { kind: 'decision', step: 2 },
    });
  });

  it('keeps a step in progress whose artifacts exist while nothing after it has begun (it may still be polished)', () => {
    const r = reconcile(greenfield, at(greenfield, 3, 'in_progress'), evidence(greenfield, { done: upTo(3) }));
    expect(r.position.step).toBe(3);
    expect(r.drift).toEqual([]);
  });

  it('reopens a step the pointer calls completed whose artifacts are missing', () => {
    const r = reconcile(greenfield, at(greenfield, 2, 'completed'), evidence(greenfield, { done: [1] }));
    expect(r.position).toEqual(at(greenfield, 2));
    expect(r.drift[0]!.kind).toBe('missing-evidence');
  });

  it('moves a completed chaining step on to the next step (a hand-edited pointer)', () => {
    const r = reconcile(greenfield, at(greenfield, 1, 'completed'), evidence(greenfield, { done: [1] }));
    expect(r.position).toEqual(at(greenfield, 2));
    expect(r.drift[0]!.kind).toBe('finished-step');
  });

  it('repairs a wrong step name and says so', () => {
    const r = reconcile(greenfield, at(greenfield, 2, 'in_progress', { name: 'Reserch' }), evidence(greenfield, { done: [1] }));
    expect(r.position.name).toBe('Research');
    expect(r.drift.map((d) => d.kind)).toEqual(['name']);
  });

  it('refuses a done pointer while a step lacks evidence', () => {
    const r = reconcile(greenfield, at(greenfield, 'done', 'completed'), evidence(greenfield, { done: upTo(7), waived: { 8: 'skipped' } }));
    expect(r.position.step).toBe(9);
  });
});

describe('cycles of a looping flow', () => {
  it("accepts the pointer in the folder's cycle or at the start of the next", () => {
    expect(chooseCycle(existing, at(existing, 9, 'in_progress', { cycle: 2 }), 2)).toEqual({ cycle: 2 });
    expect(chooseCycle(existing, at(existing, 8, 'not_started', { cycle: 3 }), 2)).toEqual({ cycle: 3 });
  });

  it('repairs a cycle the folder does not support', () => {
    const r = chooseCycle(existing, at(existing, 9, 'in_progress', { cycle: 5 }), 2);
    expect(r.cycle).toBe(2);
    expect(r.drift?.kind).toBe('cycle');
  });

  it('starts at cycle 1 when no cycle has begun, and a flow without a loop is always in cycle 1', () => {
    expect(chooseCycle(existing, null, 0)).toEqual({ cycle: 1 });
    expect(chooseCycle(existing, at(existing, 8, 'not_started', { cycle: 2 }), 0).cycle).toBe(1);
    expect(chooseCycle(greenfield, at(greenfield, 3, 'in_progress', { cycle: 4 }), 0).cycle).toBe(1);
  });
});

describe('locate: a cycle the folder finished is left behind', () => {
  it("judges the next cycle by its own files, never by the finished one's", () => {
    // Cycle 1 is complete on disk; cycle 2 has nothing yet.
    const byCycle = (cycle: number) =>
      cycle === 1 ? evidence(existing, { done: upTo(14), conditionMet: [3] }, 1) : evidence(existing, { done: upTo(7), conditionMet: [3] }, cycle);
    // The pointer says Deploy of cycle 1 is completed: the run moves into cycle 2.
    const found = locate(existing, at(existing, 14, 'completed'), 1, byCycle);
    expect(found.position).toMatchObject({ step: 8, cycle: 2, status: 'not_started' });
    expect(found.evidence.cycle).toBe(2);
    // So `done` on New Task of cycle 2 is refused: cycle 1's task index proves nothing.
    expect(apply(existing, found.position, found.evidence, { type: 'done' }).outcome.kind).toBe('refused');
  });
});

describe('optional steps the run passed without a record (seed rule: evidence of a later step is evidence of the optional steps before it)', () => {
  it('a pointer the journal does not back, at greenfield step 10 with steps 1–7 done, keeps its step and sub-step; steps 8 and 9 count as inferred skips', () => {
    const pointer = at(greenfield, 10, 'in_progress', { subStep: '3 — Smoke test' });
    const r = reconcile(greenfield, pointer, evidence(greenfield, { done: upTo(7) }), undefined, { claimed: true });
    expect(r.position).toEqual(pointer);
    expect(r.drift.map((d) => [d.kind, d.step])).toEqual([
      ['inferred-skip', 8],
      ['inferred-skip', 9],
    ]);
    expect(r.evidence.steps[7]!.inferred).toContain('step 10');
  });

  it('the same pointer when the journal backs it (not claimed) is still judged by the folder: back to step 8', () => {
    const r = reconcile(greenfield, at(greenfield, 10, 'in_progress'), evidence(greenfield, { done: upTo(7) }));
    expect(r.position.step).toBe(8);
  });

  it('a claimed pointer does not pass a required step that has no files', () => {
    const r = reconcile(greenfield, at(greenfield, 10, 'in_progress'), evidence(greenfield, { done: upTo(6) }), undefined, { claimed: true });
    expect(r.position.step).toBe(7);
  });

  it('files of a later step are evidence the optional step before it was passed, journal or not', () => {
    const r = reconcile(greenfield, at(greenfield, 10, 'in_progress'), evidence(greenfield, { done: [...upTo(7), 9] }));
    expect(r.position.step).toBe(10);
    expect(r.drift.map((d) => [d.kind, d.step])).toEqual([['inferred-skip', 8]]);
  });

  it('an existing-code pointer at step 13 with cycle-1 steps 8–12 on disk (step 12 absent, optional) stays at 13', () => {
    const r = reconcile(existing, at(existing, 13, 'in_progress'), evidence(existing, { done: [...upTo(6), 8, 9, 10, 11], conditionMet: [] }), undefined, {
      claimed: true,
    });
    expect(r.position.step).toBe(13);
    expect(r.drift.map((d) => d.step)).toEqual([7, 12]);
  });

  it('a seed pointer that says `status: skipped` on an optional step is a skip: the run goes on after it', () => {
    const r = reconcile(greenfield, at(greenfield, 8, 'skipped'), evidence(greenfield, { done: upTo(7) }));
    expect(r.evidence.steps[7]!.inferred).toBe('the pointer says it was skipped');
    expect(r.drift.map((d) => d.kind)).not.toContain('missing-evidence');
  });
});

describe('a pointer whose step name and number disagree (the seed counts existing-code in 13 steps)', () => {
  it('is read by the name when the name is a step of the flow: seed step 13 "Deploy" is step 14', () => {
    const r = resolveByName(existing, { ...at(existing, 13, 'in_progress'), name: 'Deploy' });
    expect(r?.position).toMatchObject({ step: 14, name: 'Deploy', status: 'in_progress' });
    expect(r?.drift).toMatchObject({ kind: 'read-as', step: 14 });
  });

  it('a name two steps share is read as the one nearest the number; an unknown name or an agreeing one changes nothing', () => {
    expect(resolveByName(existing, { ...at(existing, 11), name: 'run tests' })?.position.step).toBe(10);
    expect(resolveByName(existing, { ...at(existing, 13), name: 'Perf' })).toBeUndefined();
    expect(resolveByName(existing, at(existing, 13))).toBeUndefined();
  });
});
