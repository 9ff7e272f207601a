import { describe, expect, it } from 'vitest';
import { apply, exitCodeOf, type Event } from '../../../src/engine/transitions.js';
import type { Position } from '../../../src/formats/pointer/position.js';
import { at, builtInFlow, evidence, upTo, type EvidenceSpec } from '../../helpers/engine.js';

const greenfield = builtInFlow('greenfield');
const existing = builtInFlow('existing-code');

const run = (position: Position, spec: EvidenceSpec, event: Event, flow = greenfield) => apply(flow, position, evidence(flow, spec, position.cycle), event);
const events = (t: ReturnType<typeof run>) => t.entries.map((e) => e.event);

describe('next', () => {
  it('starts a step: marks it in progress and journals the start', () => {
    const t = run(at(greenfield, 1), {}, { type: 'next' });
    expect(t.outcome).toEqual({ kind: 'work', action: 'start' });
    expect(t.position.status).toBe('in_progress');
    expect(events(t)).toEqual(['step_started']);
  });

  it('resumes a step in progress without writing anything', () => {
    const p = at(greenfield, 3, 'in_progress', { subStep: '4 — Architecture review' });
    const t = run(p, { done: [1, 2] }, { type: 'next' });
    expect(t).toEqual({ position: p, entries: [], outcome: { kind: 'work', action: 'resume' } });
  });

  it('calls a new attempt after a failure a retry', () => {
    expect(run(at(greenfield, 2, 'not_started', { retryCount: 1 }), { done: [1] }, { type: 'next' }).outcome).toEqual({ kind: 'work', action: 'retry' });
  });

  it('passes over a step whose condition does not hold, journaling why, and starts the next', () => {
    const t = run(at(greenfield, 4), { done: upTo(3) }, { type: 'next' });
    expect(t.position).toMatchObject({ step: 5, status: 'in_progress' });
    expect(t.entries[0]).toMatchObject({ event: 'step_skipped', step: 4, by: 'condition' });
    expect(events(t)).toEqual(['step_skipped', 'step_started']);
  });

  it('runs a conditional step whose condition holds', () => {
    expect(run(at(greenfield, 4), { done: upTo(3), conditionMet: [4] }, { type: 'next' }).position.step).toBe(4);
  });

  it('reports a finished flow', () => {
    expect(run(at(greenfield, 'done', 'completed'), { done: upTo(10) }, { type: 'next' }).outcome.kind).toBe('complete');
  });
});

describe('done checks the evidence (rule 8)', () => {
  it('refuses a step whose artifacts are missing, exit 2, naming what is missing', () => {
    const p = at(greenfield, 1, 'in_progress');
    const t = run(p, { touched: [1] }, { type: 'done' });
    expect(t.outcome.kind).toBe('refused');
    expect(exitCodeOf(t.outcome)).toBe(2);
    expect(t.position).toEqual(p);
    expect(t.entries).toEqual([]);
    expect(JSON.stringify(t.outcome)).toContain('00_problem/acceptance_criteria.md');
  });

  it('lets a person force it, and journals that it was forced and why', () => {
    const t = run(at(greenfield, 1, 'in_progress'), {}, { type: 'done', force: { reason: 'written on paper' } });
    expect(t.position).toEqual(at(greenfield, 2));
    expect(t.entries[0]).toMatchObject({ event: 'step_completed', forced: true, reason: 'written on paper' });
  });

  it('chains on to the next step', () => {
    const t = run(at(greenfield, 1, 'in_progress'), { done: [1] }, { type: 'done' });
    expect(t.outcome).toEqual({ kind: 'advanced' });
    expect(t.position).toEqual(at(greenfield, 2));
    expect(exitCodeOf(t.outcome)).toBe(0);
  });
});

describe('session boundaries (rule 4)', () => {
  it('after Decompose: marks it completed, moves to Implement not started, and stops', () => {
    const t = run(at(greenfield, 5, 'in_progress'), { done: upTo(5) }, { type: 'done' });
    expect(t.outcome).toEqual({ kind: 'boundary', after: 5 });
    expect(exitCodeOf(t.outcome)).toBe(3);
    expect(t.position).toEqual(at(greenfield, 6));
    expect(events(t)).toEqual(['step_completed', 'boundary_reached']);
  });

  it('existing-code stops after Decompose Tests and after New Task', () => {
    expect(run(at(existing, 4, 'in_progress'), { done: upTo(4) }, { type: 'done' }, existing).outcome.kind).toBe('boundary');
    expect(run(at(existing, 8, 'in_progress'), { done: upTo(8) }, { type: 'done' }, existing).position.step).toBe(9);
    expect(run(at(existing, 8, 'in_progress'), { done: upTo(8) }, { type: 'done' }, existing).outcome.kind).toBe('boundary');
  });
});

describe('decisions (rule 5)', () => {
  const afterResearch = at(greenfield, 2, 'completed');

  it('stop after Research with the decision, keeping the pointer on the finished step', () => {
    const t = run(at(greenfield, 2, 'in_progress'), { done: [1, 2] }, { type: 'done' });
    expect(t.outcome.kind).toBe('decision');
    expect(exitCodeOf(t.outcome)).toBe(3);
    expect(t.position).toEqual(afterResearch);
    expect(events(t)).toEqual(['step_completed', 'decision_required']);
  });

  it('keep asking until answered: next and done both stop with the decision', () => {
    expect(run(afterResearch, { done: [1, 2] }, { type: 'next' }).outcome.kind).toBe('decision');
    expect(run(afterResearch, { done: [1, 2] }, { type: 'done' }).outcome.kind).toBe('decision');
  });

  it('continue on B to Plan', () => {
    const t = run(afterResearch, { done: [1, 2] }, { type: 'decide', option: 'b' });
    expect(t.position).toEqual(at(greenfield, 3));
    expect(t.entries[0]).toMatchObject({ event: 'decision_answered', decision: 'research-round', option: 'B' });
  });

  it('repeat the step on A', () => {
    expect(run(afterResearch, { done: [1, 2] }, { type: 'decide', option: 'A' }).position).toEqual(at(greenfield, 2));
  });

  it('refuse an option that does not exist, and an answer when nothing is asked', () => {
    const bad = run(afterResearch, { done: [1, 2] }, { type: 'decide', option: 'C' });
    expect(bad.outcome.kind).toBe('refused');
    expect(bad.position).toEqual(afterResearch);
    expect(run(at(greenfield, 3, 'in_progress'), { done: [1, 2] }, { type: 'decide', option: 'A' }).outcome.kind).toBe('refused');
  });
});

describe('the three-retry rule (rule 3)', () => {
  const step = at(greenfield, 7, 'in_progress');
  const spec = { done: upTo(6) };

  it('counts failed attempts and resets on success', () => {
    const once = run(step, spec, { type: 'fail', reason: 'flaky' });
    expect(once.position).toMatchObject({ step: 7, status: 'not_started', retryCount: 1 });
    expect(once.outcome.kind).toBe('recorded');
    expect(once.entries[0]).toMatchObject({ event: 'step_failed', reason: 'flaky', attempt: 1 });
    const success = run({ ...once.position, status: 'in_progress' }, { done: upTo(7) }, { type: 'done' });
    expect(success.entries[0]).toMatchObject({ event: 'step_completed', step: 7, retry_count: 0 });
    expect(success.position.retryCount).toBe(0);
  });

  it('marks the step failed at the third failure and stops for a person', () => {
    const third = run({ ...step, retryCount: 2 }, spec, { type: 'fail', reason: 'still red' });
    expect(third.position).toMatchObject({ status: 'failed', retryCount: 3 });
    expect(exitCodeOf(third.outcome)).toBe(3);
  });

  it('refuses to retry a failed step until a person acknowledges it', () => {
    const failed = at(greenfield, 7, 'failed', { retryCount: 3 });
    for (const event of [{ type: 'next' }, { type: 'done' }, { type: 'fail', reason: 'again' }, { type: 'substep', text: '2' }] as Event[]) {
      const t = run(failed, { done: upTo(7) }, event);
      expect(t.outcome.kind).toBe('failed');
      expect(t.position).toEqual(failed);
      expect(t.entries).toEqual([]);
    }
    const acked = run(failed, spec, { type: 'ack' });
    expect(acked.position).toMatchObject({ status: 'not_started', retryCount: 0 });
    expect(events(acked)).toEqual(['failure_acknowledged']);
    expect(run(acked.position, spec, { type: 'next' }).outcome).toEqual({ kind: 'work', action: 'start' });
  });

  it('has nothing to acknowledge when the step has not failed', () => {
    expect(run(step, spec, { type: 'ack' }).outcome.kind).toBe('refused');
  });
});

describe('optional steps and skip', () => {
  it('skips an optional step with a journaled reason and moves on', () => {
    const t = run(at(greenfield, 8, 'in_progress'), { done: upTo(7) }, { type: 'skip', reason: 'no secrets handled' });
    expect(t.position).toEqual(at(greenfield, 9));
    expect(t.entries[0]).toMatchObject({ event: 'step_skipped', step: 8, by: 'agent', reason: 'no secrets handled' });
  });

  it('refuses to skip a step that is not optional, naming the optional ones', () => {
    const t = run(at(greenfield, 3, 'in_progress'), { done: [1, 2] }, { type: 'skip', reason: 'bored' });
    expect(t.outcome.kind).toBe('refused');
    expect(JSON.stringify(t.outcome)).toContain('8 Security Audit');
  });
});

describe('the end of a flow', () => {
  it('greenfield ends at done after Deploy', () => {
    const t = run(at(greenfield, 10, 'in_progress'), { done: upTo(10) }, { type: 'done' });
    expect(t.position).toMatchObject({ step: 'done', status: 'completed' });
    expect(t.outcome.kind).toBe('complete');
    expect(events(t)).toEqual(['step_completed', 'flow_completed']);
  });

  it('existing-code loops from Deploy back to New Task in the next cycle', () => {
    const p = at(existing, 14, 'in_progress', { cycle: 2 });
    const t = run(p, { done: upTo(14), conditionMet: [3] }, { type: 'done' }, existing);
    expect(t.position).toEqual(at(existing, 8, 'not_started', { cycle: 3 }));
    expect(events(t)).toEqual(['step_completed', 'cycle_started']);
    expect(t.outcome.kind).toBe('advanced');
  });

  it('refuses step commands once the flow is done', () => {
    expect(run(at(greenfield, 'done', 'completed'), { done: upTo(10) }, { type: 'done' }).outcome.kind).toBe('refused');
  });
});

describe('substep', () => {
  it("records the sub-skill's position on one line, in the step in progress", () => {
    const t = run(at(greenfield, 3, 'in_progress'), { done: [1, 2] }, { type: 'substep', text: '2 —\n Architecture ' });
    expect(t.position).toMatchObject({ subStep: '2 — Architecture', status: 'in_progress' });
    expect(t.entries[0]).toMatchObject({ event: 'substep', sub_step: '2 — Architecture' });
  });

  it('issue 29 point 7: substep, done and fail on a step not started are refused naming next (3 of 3), writing nothing', () => {
    for (const event of [{ type: 'substep', text: '1 — Sources' }, { type: 'done' }, { type: 'fail', reason: 'red' }] as const) {
      const t = run(at(greenfield, 3), { done: [1, 2, 3] }, event);
      expect(t.outcome.kind, event.type).toBe('refused');
      expect(t.entries).toEqual([]);
      expect(t.outcome.kind === 'refused' && t.outcome.problem.message).toContain('`autopilot next`');
    }
  });

  it('issue 29 point 7: in progress with no start on record, `next` records the start and substep is refused', () => {
    const inProgress = at(greenfield, 3, 'in_progress');
    const next = apply(greenfield, inProgress, evidence(greenfield, { done: [1, 2] }), { type: 'next' }, { opened: 'none' });
    expect(next.entries.map((e) => e.event)).toEqual(['step_started']);
    const substep = apply(greenfield, inProgress, evidence(greenfield, { done: [1, 2] }), { type: 'substep', text: '2 — Components' }, { opened: 'none' });
    expect(substep.outcome.kind).toBe('refused');
    const begun = apply(greenfield, inProgress, evidence(greenfield, { done: [1, 2] }), { type: 'next' }, { opened: 'step_started' });
    expect(begun.entries).toEqual([]);
  });

  it('refuses an empty one', () => {
    expect(run(at(greenfield, 3), { done: [1, 2] }, { type: 'substep', text: '  ' }).outcome.kind).toBe('refused');
  });
});
