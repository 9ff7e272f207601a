/**
 * The step plan (`engine/step-plan.ts`), in process and without a disk: what
 * a step command journals, writes and says, decided from the state as read
 * under the lock. Random sessions walk it as the shell does (the journal an
 * array, the pointer the plan's), and every command is replayed as a retry
 * after a kill would replay it; then the rules that used to hide in the
 * shell, one by one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StampedEntry } from '../../../src/formats/journal-line.js';
import { toPointerRecord } from '../../../src/formats/journal-line.js';
import { DECISIVE } from '../../../src/engine/repeat.js';
import { aimAt, decideStep, enteredMarkedStep, planStep, reconciliationEntries, type StepInput, type StepState } from '../../../src/engine/step-plan.js';
import { reconcile } from '../../../src/engine/reconcile.js';
import type { Event } from '../../../src/engine/transitions.js';
import type { Flow } from '../../../src/formats/flow/model.js';
import type { Position } from '../../../src/formats/pointer/position.js';
import { at, builtInFlow, evidence, upTo } from '../../helpers/engine.js';

const NOW = new Date('2026-11-26T10:00:00.000Z');
const STALE = 10 * 60_000;

/** The state a command reads when the pointer, the journal and the folder agree. */
function stateAt(flow: Flow, position: Position, done: number[], extra: Partial<StepState> = {}): StepState {
  return {
    flow,
    pointer: { position },
    record: { start: position, drift: [] },
    reconciled: { position, drift: [], source: 'state' },
    evidence: evidence(flow, { done }, position.cycle),
    // The journal's last record is this position: the run is on record (and pinned).
    lastRecord: { seq: 1, pointer: toPointerRecord(position, flow.hash), session: 'agent' },
    ...extra,
  };
}

const input = (state: StepState, event: Event, extra: Partial<StepInput> = {}): StepInput => ({
  state,
  event,
  session: 'agent',
  now: NOW,
  staleMs: STALE,
  ...extra,
});

const plan = (i: StepInput) => planStep(i, decideStep(i));

/** The journal as the shell keeps it: stamped entries, newest last. */
class Journal {
  entries: StampedEntry[] = [];
  record?: StepState['lastRecord'];
  append(p: ReturnType<typeof planStep>, session: string, flow: Flow) {
    p.entries.forEach((e, i) => {
      const last = i === p.entries.length - 1;
      const stamped: StampedEntry = {
        ...e,
        seq: this.entries.length + 1,
        at: NOW.toISOString(),
        session,
        key: p.key,
        ...(last && p.pointer ? { pointer: toPointerRecord(p.pointer.position, flow.hash) } : {}),
      };
      this.entries.push(stamped);
      if (stamped.pointer) this.record = { seq: stamped.seq, pointer: stamped.pointer, session, key: p.key };
    });
  }
  latestAbout(target: { flow: string; cycle: number; step: number } | undefined): StampedEntry | undefined {
    if (!target) return undefined;
    return this.entries.findLast(
      (e) => e.flow === target.flow && e.cycle === target.cycle && e.step === target.step && (DECISIVE as ReadonlySet<string>).has(e.event),
    );
  }
}

const event = fc.oneof(
  { weight: 4, arbitrary: fc.constant<Event>({ type: 'next' }) },
  { weight: 5, arbitrary: fc.constant<Event>({ type: 'done' }) },
  { weight: 2, arbitrary: fc.constantFrom('red', 'still red').map((reason): Event => ({ type: 'fail', reason })) },
  { weight: 1, arbitrary: fc.constant<Event>({ type: 'skip', reason: 'no UI' }) },
  { weight: 2, arbitrary: fc.constantFrom('A', 'B').map((option): Event => ({ type: 'decide', option })) },
  { weight: 1, arbitrary: fc.constant<Event>({ type: 'ack' }) },
  { weight: 1, arbitrary: fc.constant<Event>({ type: 'substep', text: '2 — Middle' }) },
);

describe('a run the journal has no record of', () => {
  it('is pinned by the first command that writes (run_started with the flow), and says so; a refused command pins nothing', () => {
    const flow = builtInFlow('greenfield');
    const { lastRecord: _, ...state } = stateAt(flow, at(flow, 3, 'in_progress'), upTo(2));
    const planned = plan(input(state, { type: 'substep', text: '2 — Architecture' }));
    expect(planned.entries[0]).toMatchObject({ event: 'run_started', flow_hash: flow.hash });
    expect(planned.notices.join('\n')).toContain('pinned now');
    const refused = plan(input(state, { type: 'skip', reason: 'not optional' }));
    expect(refused.entries).toEqual([]);
    expect(refused.notices.join('\n')).not.toContain('pinned now');
  });
});

describe('a step command replayed as a retry is recorded once', () => {
  const flow = builtInFlow('greenfield');
  it('whatever the session does, in 300 random walks (each command replayed as after a kill before it could answer)', () => {
    let replays = 0;
    let moves = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(event, fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 60 }), fc.integer({ min: 0, max: 3 }), (walk, ahead) => {
        const journal = new Journal();
        let position = at(flow, 1);
        const done: number[] = [];
        for (const [e, writes, killedBeforePointer] of walk) {
          // The agent does the work before it says done; sometimes the next steps' files are there already.
          if (writes && typeof position.step === 'number')
            for (let n = position.step; n <= Math.min(position.step + ahead, flow.steps.length); n++) if (!done.includes(n)) done.push(n);
          const state = () => stateAt(flow, position, done, journal.record ? { lastRecord: journal.record } : {});
          const handed = position;
          const first = input(state(), e, { peeked: handed, latest: journal.latestAbout(aimAt(e, undefined, handed, position)) });
          const p = plan(first);
          if (p.transition.outcome.kind === 'refused') continue;
          journal.append(p, 'agent', flow);
          if (p.pointer) position = p.pointer.position;
          moves += p.entries.length;

          // The same command again: handed the old pointer (killed before the pointer write) or the new one (killed before it answered).
          const peeked = killedBeforePointer ? handed : position;
          const again = input(state(), e, { peeked, latest: journal.latestAbout(aimAt(e, undefined, peeked, position)) });
          const q = plan(again);
          if (['done', 'skip', 'fail', 'decide', 'ack'].includes(e.type) && p.entries.length > 0) {
            replays++;
            expect(q.entries, `${e.type} replayed at ${JSON.stringify(position)}`).toEqual([]);
            expect(['duplicate', 'decision', 'failed', 'boundary']).toContain(q.transition.outcome.kind);
          }
          // Whatever is journaled, the pointer that names it is written with it.
          if (p.entries.length > 0) expect(p.pointer).toBeDefined();
        }
      }),
      { numRuns: 300 },
    );
    console.log(`step plan: ${replays} replayed commands recorded nothing again, over ${moves} journaled entries`);
    expect(replays).toBeGreaterThan(100);
  });
});

describe('the rules that live in the step plan', () => {
  const flow = builtInFlow('greenfield');

  it('a boundary ends the lease and takes a checkpoint; a third failure takes one too', () => {
    const decompose = at(flow, 5, 'in_progress');
    const boundary = plan(input(stateAt(flow, decompose, upTo(5)), { type: 'done' }, { lease: { kind: 'renew', lease: lease('agent') } }));
    expect(boundary.transition.outcome).toMatchObject({ kind: 'boundary', after: 5 });
    expect(boundary.lease).toBe('release');
    expect(boundary.checkpoint).toEqual({ label: 'boundary', note: 'automatic: a session boundary' });

    const third = plan(input(stateAt(flow, at(flow, 7, 'in_progress', { retryCount: 2 }), upTo(6)), { type: 'fail', reason: 'red' }));
    expect(third.transition.outcome.kind).toBe('failed');
    expect(third.checkpoint?.label).toBe('failed');
    const second = plan(input(stateAt(flow, at(flow, 7, 'in_progress', { retryCount: 1 }), upTo(6)), { type: 'fail', reason: 'red' }));
    expect(second.checkpoint).toBeUndefined();
  });

  it("a person's answer leaves the lease as it is: decide A at a boundary, decide B at a decision, done --force; and says which option it chose", () => {
    const boundary = { after: 5, session: 'agent' };
    const a = plan(input(stateAt(flow, at(flow, 6), upTo(5), { boundary }), { type: 'decide', option: 'A' }, { session: 'local', person: true }));
    expect(a.transition.outcome).toMatchObject({ kind: 'boundary', answered: 'A' });
    expect(a.lease).toBeUndefined();
    const b = plan(input(stateAt(flow, at(flow, 6), upTo(5), { boundary }), { type: 'decide', option: 'B' }, { session: 'local', person: true }));
    expect(b).toMatchObject({ transition: { outcome: { kind: 'advanced' } }, answer: 'B) Continue in this conversation' });
    expect(b.lease).toBeUndefined();
    const decided = plan(input(stateAt(flow, at(flow, 2, 'completed'), upTo(2)), { type: 'decide', option: 'B' }, { session: 'local', person: true }));
    expect(decided).toMatchObject({ answer: 'B) Go on to Plan with the drafts as they are' });
    expect(decided.lease).toBeUndefined();
    const forced = plan(input(stateAt(flow, at(flow, 1, 'in_progress'), []), { type: 'done', force: { reason: 'a person says so' } }, { person: true }));
    expect(forced.transition.outcome.kind).toBe('advanced');
    expect(forced.lease).toBeUndefined();
  });

  it('a command for a step the work has left is refused, naming both, and records nothing', () => {
    const state = stateAt(flow, at(flow, 3), upTo(2));
    const p = plan(input(state, { type: 'done' }, { step: 2, latest: undefined }));
    expect(p.transition.outcome.kind).toBe('refused');
    expect(p.entries).toEqual([]);
    expect(JSON.stringify(p.transition.outcome)).toMatch(/step 2.*step 3/);
  });

  it('a step the flow lacks is bad input', () => {
    expect(() => plan(input(stateAt(flow, at(flow, 1), []), { type: 'done' }, { step: 99 }))).toThrow(/no such step/);
  });

  it("the skill's own state is where the work resumes, journaled once; an agreeing one changes nothing", () => {
    const state = stateAt(flow, at(flow, 3, 'in_progress', { subStep: '2 — Middle' }), upTo(2));
    const i = input(state, { type: 'next' });
    const differs = planStep(i, decideStep(i), { file: '_docs/02_plan/state.json', position: '4 — Risks' });
    expect(differs.transition.position).toMatchObject({ status: 'in_progress', subStep: '4 — Risks' });
    expect(differs.entries.map((e) => e.event)).toEqual(['skill_state_differs']);
    expect(differs.notices[0]).toMatch(/says sub-step 4 — Risks, the pointer says 2 — Middle/);
    const agrees = planStep(i, decideStep(i), { file: '_docs/02_plan/state.json', position: '2 — Middle' });
    expect(agrees.entries).toEqual([]);
    expect(agrees.pointer).toBeUndefined();
  });

  it('a lease taken from another session is journaled before what the command did', () => {
    const taken = { kind: 'take' as const, lease: lease('agent'), takenFrom: { holder: lease('other'), reason: 'stale' as const } };
    const p = plan(input(stateAt(flow, at(flow, 1), []), { type: 'next' }, { lease: taken }));
    expect(p.entries.map((e) => e.event)).toEqual(['lease_taken_over', 'step_started']);
    expect(p.entries[0]).toMatchObject({ from: 'other', reason: 'stale' });
    expect(p.lease).toEqual(taken.lease);
  });

  it('re-entry says when the work went elsewhere than the last session expected, first', () => {
    const lastAction = { action: 'done step 1 (Problem)', result: 'success' as const, at: NOW.toISOString(), next: 'step 2 (Research)', nextStep: 2 };
    const state = { ...stateAt(flow, at(flow, 3), upTo(2)), pointer: { position: at(flow, 3), lastAction } };
    const p = plan(input(state, { type: 'next' }));
    expect(p.entries[0]).toMatchObject({ event: 'follow_through', expected: 'step 2 (Research)' });
    expect(p.notices[0]).toMatch(/expected step 2 \(Research\) next, but the work is at step 3/);
  });

  it('a run begun from the folder journals run_started, a completion by folder for each step the walk completed (2), and the decision it stopped at', () => {
    const found = evidence(flow, { done: upTo(3) });
    const { evidence: judged, ...reconciled } = reconcile(flow, null, found);
    const entries = reconciliationEntries({ flow, pointer: null, record: { start: null, drift: [] }, reconciled, evidence: judged });
    expect(entries.map((e) => `${e.event}:${e.step}`)).toEqual(['run_started:2', 'step_completed:1', 'step_completed:2', 'decision_required:2']);
    expect(entries.filter((e) => e.event === 'step_completed').every((e) => e.by === 'folder')).toBe(true);
  });

  it('the key names the command, the step it was aimed at and the attempt', () => {
    const p = plan(input(stateAt(flow, at(flow, 7, 'in_progress', { retryCount: 1 }), upTo(6)), { type: 'fail', reason: 'red' }));
    expect(p.key).toMatch(/^fail:greenfield\/1\/7:a2:[0-9a-f]{8}$/);
  });

  it("a failed step shows the last failure's reason, from whichever session asks", () => {
    const failed = at(flow, 7, 'failed', { retryCount: 3 });
    const p = plan(input(stateAt(flow, failed, upTo(6)), { type: 'next' }, { session: 'other', lastFailure: 'the build is red' }));
    expect(p.transition.outcome.kind).toBe('failed');
    expect(p.reason).toBe('the build is red');
  });

  it('2 refused `fail`s at a failed step (a reason, an empty one): each shows the recorded failure, 0 their own', () => {
    const failed = at(flow, 7, 'failed', { retryCount: 3 });
    const refused: Event[] = [
      { type: 'fail', reason: 'refused, never recorded' },
      { type: 'fail', reason: '' },
    ];
    for (const event of refused) {
      const p = plan(input(stateAt(flow, failed, upTo(6)), event, { lastFailure: 'the scanner crashed' }));
      expect(p.transition.outcome.kind).toBe('failed');
      expect(p.entries.some((e) => e.event === 'step_failed')).toBe(false);
      expect(p.reason).toBe('the scanner crashed');
    }
  });

  it('the third failure shows its own reason, the one it records', () => {
    const twice = at(flow, 7, 'in_progress', { retryCount: 2 });
    const p = plan(input(stateAt(flow, twice, upTo(6)), { type: 'fail', reason: 'red a third time' }, { lastFailure: 'red twice' }));
    expect(p.transition.outcome.kind).toBe('failed');
    expect(p.reason).toBe('red a third time');
  });
});

describe('the hourly checkpoint (seed 002)', () => {
  const flow = builtInFlow('greenfield');
  const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000);
  const working = at(flow, 3, 'in_progress');
  const substep: Event = { type: 'substep', text: '2 — Architecture' };

  it('4 commands an hour or more after the last checkpoint: the 3 that record something take 1 each, labelled hourly; a resume takes none', () => {
    const taken = [
      plan(input(stateAt(flow, working, upTo(2)), substep, { lastCheckpoint: minutesAgo(61) })).checkpoint,
      plan(input(stateAt(flow, working, upTo(2)), { type: 'fail', reason: 'red' }, { lastCheckpoint: minutesAgo(60) })).checkpoint,
      plan(input(stateAt(flow, at(flow, 3), upTo(2)), { type: 'next' }, { lastCheckpoint: minutesAgo(600) })).checkpoint,
      plan(input(stateAt(flow, working, upTo(2)), { type: 'next' }, { lastCheckpoint: minutesAgo(61) })).checkpoint,
    ];
    const hourly = { label: 'hourly', note: 'automatic: an hour since the last checkpoint' };
    expect(taken).toEqual([hourly, hourly, hourly, undefined]);
  });

  it('59 minutes after the last: none; a boundary an hour after: the boundary’s, one only', () => {
    expect(plan(input(stateAt(flow, working, upTo(2)), substep, { lastCheckpoint: minutesAgo(59) })).checkpoint).toBeUndefined();
    const decompose = at(flow, 5, 'in_progress');
    expect(plan(input(stateAt(flow, decompose, upTo(5)), { type: 'done' }, { lastCheckpoint: minutesAgo(90) })).checkpoint).toEqual({
      label: 'boundary',
      note: 'automatic: a session boundary',
    });
  });
});

describe('a checkpoint before a step the flow marks (checkpoint_before: [Deploy])', () => {
  const greenfield = builtInFlow('greenfield');
  const existing = builtInFlow('existing-code');
  const deploy = at(greenfield, 10);

  it('the `next` that starts Deploy takes 1 checkpoint, labelled before-deploy, with the step_started it journals', () => {
    const p = plan(input(stateAt(greenfield, deploy, upTo(9)), { type: 'next' }));
    expect(p.transition.outcome).toMatchObject({ kind: 'work', action: 'start' });
    expect(p.entries).toEqual([expect.objectContaining({ event: 'step_started', step: 10, attempt: 1 })]);
    expect(p.checkpoint).toEqual({ label: 'before Deploy', note: 'automatic: before step 10 Deploy' });
    expect(p.pointer?.position).toMatchObject({ step: 10, status: 'in_progress' });
  });

  it('a resumed `next` (Deploy in progress), the same `next` replayed, and a retry after a failure take 0', () => {
    const started = plan(input(stateAt(greenfield, deploy, upTo(9)), { type: 'next' }));
    const resumed = plan(input(stateAt(greenfield, started.pointer!.position, upTo(9)), { type: 'next' }));
    expect(resumed.transition.outcome).toMatchObject({ kind: 'work', action: 'resume' });
    expect(resumed.entries).toEqual([]);
    expect(resumed.checkpoint).toBeUndefined();
    const retry = plan(input(stateAt(greenfield, at(greenfield, 10, 'not_started', { retryCount: 1 }), upTo(9)), { type: 'next' }));
    expect(retry.transition.outcome).toMatchObject({ kind: 'work', action: 'retry' });
    expect(retry.entries).toEqual([expect.objectContaining({ event: 'step_started', attempt: 2 })]);
    expect(retry.checkpoint).toBeUndefined();
  });

  it('the other commands at Deploy take 0: substep, fail, done (the flow ends, no step starts)', () => {
    const inProgress = at(greenfield, 10, 'in_progress');
    const events: Event[] = [
      { type: 'substep', text: '2 — Release' },
      { type: 'fail', reason: 'smoke test red' },
    ];
    for (const e of events) expect(plan(input(stateAt(greenfield, inProgress, upTo(9)), e)).checkpoint, e.type).toBeUndefined();
    expect(plan(input(stateAt(greenfield, inProgress, upTo(10)), { type: 'done' })).checkpoint).toBeUndefined();
  });

  it("existing-code takes 1 in each cycle's Deploy (step 14), its note naming the cycle", () => {
    for (const cycle of [1, 2, 3]) {
      const position = at(existing, 14, 'not_started', { cycle });
      const state = { ...stateAt(existing, position, upTo(13)), evidence: evidence(existing, { done: upTo(13) }, cycle) };
      expect(plan(input(state, { type: 'next' })).checkpoint).toEqual({ label: 'before Deploy', note: `automatic: before step 14 Deploy, cycle ${cycle}` });
    }
  });

  it('the `next` that passes over a conditional step onto a marked one takes it (UI Design passed over, Decompose marked)', () => {
    const flow: Flow = { ...greenfield, checkpointBefore: [{ step: 'Decompose', line: 7 }] };
    const p = plan(input(stateAt(flow, at(flow, 4), upTo(3)), { type: 'next' }));
    expect(p.entries.map((e) => `${e.event}:${e.step}`)).toEqual(['step_skipped:4', 'step_started:5']);
    expect(p.checkpoint).toEqual({ label: 'before Decompose', note: 'automatic: before step 5 Decompose' });
  });

  it('a flow without the key (a repository’s own, or one pinned before it existed) takes 0 at any step', () => {
    const { checkpointBefore: _, ...unmarked } = greenfield;
    for (const step of upTo(10)) {
      const p = plan(input(stateAt(unmarked, at(unmarked, step), upTo(step - 1)), { type: 'next' }));
      expect(p.checkpoint, `step ${step}`).toBeUndefined();
    }
  });

  it('enteredMarkedStep reads only a first attempt’s step_started: a transition without one enters nothing', () => {
    const started = { position: deploy, entries: [], outcome: { kind: 'work' as const, action: 'start' as const } };
    expect(enteredMarkedStep(greenfield, started)).toBeUndefined();
    const p = plan(input(stateAt(greenfield, deploy, upTo(9)), { type: 'next' }));
    expect(enteredMarkedStep(greenfield, p.transition)?.step.name).toBe('Deploy');
  });

  it('in 300 random walks of greenfield, as many before-deploy checkpoints as Deploy entries (first attempts started), and none from a replayed `next`', () => {
    let taken = 0;
    fc.assert(
      fc.property(fc.integer({ min: 6, max: 10 }), fc.array(fc.tuple(event, fc.boolean()), { minLength: 1, maxLength: 80 }), (from, walk) => {
        const journal = new Journal();
        let position = at(greenfield, from);
        const done: number[] = upTo(from - 1);
        let checkpoints = 0;
        for (const [e, writes] of walk) {
          if (writes && typeof position.step === 'number' && !done.includes(position.step)) done.push(position.step);
          const state = () => stateAt(greenfield, position, done, journal.record ? { lastRecord: journal.record } : {});
          const p = plan(input(state(), e, { peeked: position, latest: journal.latestAbout(aimAt(e, undefined, position, position)) }));
          if (p.transition.outcome.kind === 'refused') continue;
          journal.append(p, 'agent', greenfield);
          if (p.pointer) position = p.pointer.position;
          if (p.checkpoint?.label === 'before Deploy') checkpoints++;
          if (e.type === 'next') expect(plan(input(state(), e)).checkpoint?.label).not.toBe('before Deploy');
        }
        const entries = journal.entries.filter((x) => x.event === 'step_started' && x.step === 10 && x.attempt === 1);
        expect(checkpoints).toBe(entries.length);
        taken += checkpoints;
      }),
      { numRuns: 300 },
    );
    console.log(`step plan: ${taken} checkpoints before Deploy, one per entry`);
    expect(taken).toBeGreaterThan(10);
  });
});

function lease(session: string) {
  return { session, host: 'h', machine: 'm', pid: 1, taken_at: NOW.toISOString(), heartbeat: NOW.toISOString() };
}
