/**
 * The fork judge (rule 11): two branches' journals after a merge, judged from
 * their events and last pointer records. Sides are walked by the real rules
 * (`apply`) from a common position, as two agents on two branches would.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  describeRecord,
  forkDecision,
  judgeFork,
  mergedEntry,
  mergedOrder,
  outcomeKey,
  settledPosition,
  type ForkSide,
  type JournalFork,
} from '../../../src/engine/fork.js';
import { apply, type Event } from '../../../src/engine/transitions.js';
import { toPointerRecord, type StampedEntry } from '../../../src/formats/journal-line.js';
import type { Position } from '../../../src/formats/pointer/position.js';
import { at, builtInFlow, evidence, upTo } from '../../helpers/engine.js';

const flow = builtInFlow('greenfield');
// Every step's files exist: `done` always has its evidence; what a side does is up to its commands.
const disk = evidence(flow, { done: upTo(flow.steps.length), conditionMet: [4] });
const BASE_SEQ = 2;

/** A side walked from `from` by `commands`, its events stamped from `BASE_SEQ + 1`, its clock starting at `clock` minutes. */
function walk(from: Position, commands: Event[], clock: number, session = 'local'): { side: ForkSide; position: Position } {
  const events: StampedEntry[] = [];
  let position = from;
  let seq = BASE_SEQ;
  commands.forEach((command, i) => {
    const t = apply(flow, position, disk, command, { session });
    if (t.outcome.kind === 'refused' || t.entries.length === 0) {
      position = t.position;
      return;
    }
    const time = new Date(Date.UTC(2026, 10, 26, 10, clock + i)).toISOString();
    t.entries.forEach((e, j) => {
      events.push({
        seq: ++seq,
        at: time,
        session,
        key: `${command.type}:${flow.id}/1/${String(position.step)}`,
        ...e,
        ...(j === t.entries.length - 1 ? { pointer: toPointerRecord(t.position) } : {}),
      } as StampedEntry);
    });
    position = t.position;
  });
  const last = events.findLast((e) => e.pointer);
  const seqs = events.length > 0 ? { from: events[0]!.seq, to: events.at(-1)!.seq } : null;
  return {
    side: {
      events,
      ...(last ? { record: { seq: last.seq, pointer: last.pointer!, at: last.at, session: last.session, ...(last.key ? { key: last.key } : {}) } } : {}),
      seqs,
      lines: events.length,
    },
    position,
  };
}

const start = at(flow, 1, 'in_progress');
const base = { seq: BASE_SEQ, pointer: toPointerRecord(start), at: '2026-11-26T09:00:00.000Z', session: 'local' };
const forkOf = (a: ForkSide, b: ForkSide, over: Partial<JournalFork> = {}): JournalFork => ({
  forkPoint: '0a1b2c3d',
  seam: '4e5f6a7b',
  seams: ['4e5f6a7b'],
  nested: 0,
  base,
  a,
  b,
  partial: false,
  ...over,
});
const swap = (f: JournalFork): JournalFork => ({ ...f, a: f.b, b: f.a });
const judge = (a: Event[], b: Event[], from = start) => judgeFork(forkOf(walk(from, a, 0).side, walk(from, b, 30).side));

const done: Event = { type: 'done' };
const next: Event = { type: 'next' };
const sub = (text: string): Event => ({ type: 'substep', text });
const fail = (reason: string): Event => ({ type: 'fail', reason });

describe('judgeFork: the sides agree', () => {
  it('one side only recorded sub-steps, the other completed the step: merged, at the completed side’s position', () => {
    const verdict = judge([sub('1 — Interview'), sub('2 — Write')], [done]);
    expect(verdict).toMatchObject({ kind: 'agree', from: 'B', record: { pointer: { step: 2, status: 'not_started', retry_count: 0 } } });
    expect(verdict.message).toContain('only side B recorded outcomes');
    expect(verdict.sides.A.did).toEqual(['2 sub-steps (the last: recorded sub-step 2 — Write of step 1 (Problem))']);
  });

  it('both sides made the same completions: merged, at the furthest (then the later) position', () => {
    const verdict = judge([done, next, sub('1 — Sources')], [done]);
    expect(verdict).toMatchObject({ kind: 'agree', from: 'A', record: { pointer: { step: 2, status: 'in_progress', sub_step: '1 — Sources' } } });
    expect(verdict.message).toContain('both sides recorded the same outcomes');
    const same = judge([done, next], [done, next]);
    expect(same).toMatchObject({ kind: 'agree', from: 'B', record: { pointer: { step: 2, status: 'in_progress' } } });
  });

  it('one side’s outcomes are the first of the other’s: the longer side', () => {
    expect(judge([done], [done, next, done])).toMatchObject({ kind: 'agree', from: 'B', record: { pointer: { step: 2, status: 'completed' } } });
  });

  it('one side went on past the other: another research round, then a failure of the step both had completed once', () => {
    const verdict = judge([done, next, done], [done, next, done, { type: 'decide', option: 'A' }, next, fail('red')]);
    expect(verdict).toMatchObject({ kind: 'agree', from: 'B', record: { pointer: { step: 2, status: 'not_started', retry_count: 1 } } });
  });

  it('a failure on one side while the other only started: the failing side, with its retry', () => {
    expect(judge([fail('red')], [])).toMatchObject({ kind: 'agree', from: 'A', record: { pointer: { step: 1, retry_count: 1 } } });
  });
});

describe('judgeFork: the sides disagree', () => {
  it('a step completed on one side and failed on the other: a person keeps one, the further recommended', () => {
    const verdict = judge([done], [fail('tests red')]);
    expect(verdict.kind).toBe('disagree');
    if (verdict.kind !== 'disagree') return;
    expect(verdict.reasons).toEqual(['side A completed step 1 (Problem), side B failed step 1 (Problem) (attempt 1: tests red)']);
    expect(verdict.recommended).toBe('A');
    const decision = forkDecision(verdict);
    expect(decision.options.map((o) => o.letter)).toEqual(['A', 'B']);
    expect(decision.options[0]!.choice).toBe('keep side A (event 3): step 2 (Research), not_started, retry 0 — it completed step 1 (Problem)');
    expect(decision.options[1]!.choice).toContain('step 1 (Problem), not_started, retry 1');
    expect(decision.recommendation.letter).toBe('A');
  });

  it('both failed the same attempt for different reasons; different answers to one decision; a skip against a completion', () => {
    expect(judge([fail('red')], [fail('flaky')]).kind).toBe('disagree');
    const atResearch = at(flow, 2, 'in_progress');
    expect(judge([done, { type: 'decide', option: 'A' }], [done, { type: 'decide', option: 'B' }], atResearch).kind).toBe('disagree');
    const atAudit = at(flow, 8, 'in_progress');
    expect(judge([{ type: 'skip', reason: 'not needed' }], [done], atAudit).kind).toBe('disagree');
  });

  it('progress recorded on a step the other side failed', () => {
    const verdict = judge([sub('2 — Write')], [fail('red')]);
    expect(verdict).toMatchObject({
      kind: 'disagree',
      reasons: ['side A recorded sub-step 2 — Write of step 1 (Problem), while side B failed step 1 (Problem) (attempt 1: red)'],
    });
  });

  it('side A holds another merge not settled, or reaches further back than was read', () => {
    const a = walk(start, [done], 0).side;
    const b = walk(start, [done], 5).side;
    expect(judgeFork(forkOf(a, b, { nested: 1 }))).toMatchObject({ kind: 'disagree', reasons: ['side A itself holds 1 more merge not settled'] });
    expect(judgeFork(forkOf(a, b, { partial: true })).kind).toBe('disagree');
  });
});

describe('settling', () => {
  it('the event names the fork point, the seams, both sides’ numbers and how it was settled; the kept side’s position', () => {
    const fork = forkOf(walk(start, [done], 0).side, walk(start, [fail('red')], 5).side);
    const verdict = judgeFork(fork);
    const kept = settledPosition(fork, verdict, 'B')!;
    expect(kept).toMatchObject({ step: 1, retryCount: 1 });
    expect(mergedEntry(fork, kept, { settled: 'kept', kept: 'B' }, 'kept B')).toMatchObject({
      event: 'journal_merged',
      fork_point: '0a1b2c3d',
      seams: ['4e5f6a7b'],
      sides: { A: { from: 3, to: 3 }, B: { from: 3, to: 3 } },
      settled: 'kept',
      kept: 'B',
      step: 1,
      retry_count: 1,
    });
    expect(settledPosition(fork, verdict)).toMatchObject({ step: 1, status: 'in_progress' });
    expect(describeRecord(undefined)).toBe('no position recorded');
  });
});

const command: fc.Arbitrary<Event> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(next) },
  { weight: 4, arbitrary: fc.constant(done) },
  { weight: 2, arbitrary: fc.constantFrom('red', 'flaky').map(fail) },
  { weight: 2, arbitrary: fc.constantFrom('1 — a', '2 — b').map(sub) },
  { weight: 1, arbitrary: fc.constantFrom('A', 'B').map((option): Event => ({ type: 'decide', option })) },
  { weight: 1, arbitrary: fc.constant<Event>({ type: 'ack' }) },
  { weight: 1, arbitrary: fc.constant<Event>({ type: 'skip', reason: 'not needed' }) },
);
const commands = fc.array(command, { maxLength: 12 });

const outcomeKeys = (s: ForkSide) =>
  s.events.filter((e) => !['step_started', 'substep', 'decision_required', 'boundary_reached', 'cycle_started', 'flow_completed'].includes(e.event));

describe('judgeFork: properties over sides walked by the rules', () => {
  it('does not depend on which side the merge put first', () => {
    fc.assert(
      fc.property(commands, commands, (ca, cb) => {
        const fork = forkOf(walk(start, ca, 0).side, walk(start, cb, 30).side);
        const one = judgeFork(fork);
        const two = judgeFork(swap(fork));
        expect(two.kind).toBe(one.kind);
        if (one.kind === 'agree' && two.kind === 'agree') expect(two.record?.pointer).toEqual(one.record?.pointer);
        if (one.kind === 'disagree' && two.kind === 'disagree') expect(two.recommended).toBe(one.recommended === 'A' ? 'B' : 'A');
      }),
      { numRuns: 400 },
    );
  });

  it('the same commands on both sides (at other times) agree, at the same position; one side with nothing agrees with the other', () => {
    fc.assert(
      fc.property(commands, (cs) => {
        const a = walk(start, cs, 0);
        const b = walk(start, cs, 30);
        expect(judgeFork(forkOf(a.side, b.side))).toMatchObject({ kind: 'agree' });
        const empty = walk(start, [], 0).side;
        const verdict = judgeFork(forkOf(empty, b.side));
        expect(verdict.kind).toBe('agree');
        if (verdict.kind === 'agree') expect(verdict.record?.pointer).toEqual(b.side.record?.pointer ?? base.pointer);
      }),
      { numRuns: 200 },
    );
  });

  it('a side that went on from the other’s commands agrees, at its own position', () => {
    fc.assert(
      fc.property(commands, commands, (cs, more) => {
        const short = walk(start, cs, 0).side;
        const long = walk(start, [...cs, ...more], 30).side;
        fc.pre(outcomeKeys(long).length > outcomeKeys(short).length);
        // The shorter side's last sub-steps may conflict with what the longer side did next: then it is a disagreement, said.
        const verdict = judgeFork(forkOf(short, long));
        if (verdict.kind === 'agree') expect(verdict.record?.pointer).toEqual(long.record?.pointer);
        else expect(verdict.reasons[0]).toMatch(/^side A recorded sub-step/);
      }),
      { numRuns: 300 },
    );
  });

  it('a step completed on one side and failed on the other (a failure the completing side never had, not after its own completion) is never merged', () => {
    fc.assert(
      fc.property(commands, commands, (ca, cb) => {
        const a = walk(start, ca, 0).side;
        const b = walk(start, cb, 30).side;
        const stepOf = (e: StampedEntry) => `${e.cycle}/${String(e.step)}`;
        const completed = new Set(a.events.filter((e) => e.event === 'step_completed').map(stepOf));
        const failedOnA = new Set(a.events.map(outcomeKey));
        // A failure of a step side B had itself completed first (a decision sent it back: another research round) is B going on from A, not a clash.
        const rerun = (i: number) => b.events.slice(0, i).some((f) => f.event === 'step_completed' && stepOf(f) === stepOf(b.events[i]!));
        const clash = b.events.some((e, i) => e.event === 'step_failed' && completed.has(stepOf(e)) && !failedOnA.has(outcomeKey(e)) && !rerun(i));
        if (clash) expect(judgeFork(forkOf(a, b)).kind).toBe('disagree');
      }),
      { numRuns: 400 },
    );
  });

  it('never says "attempt 2" for a step that did not fail on the side it kept', () => {
    fc.assert(
      fc.property(commands, commands, (ca, cb) => {
        const a = walk(start, ca, 0).side;
        const b = walk(start, cb, 30).side;
        const verdict = judgeFork(forkOf(a, b));
        if (verdict.kind !== 'agree' || !verdict.record || verdict.record.pointer.retry_count === 0) return;
        const side = verdict.from === 'A' ? a : b;
        const p = verdict.record.pointer;
        expect(side.events.some((e) => e.event === 'step_failed' && e.step === p.step && e.cycle === p.cycle)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('the merged order holds every event once, by time, each side in its own order', () => {
    fc.assert(
      fc.property(commands, commands, fc.integer({ min: -20, max: 20 }), (ca, cb, shift) => {
        const a = walk(start, ca, 0).side.events;
        const b = walk(start, cb, shift).side.events;
        const order = mergedOrder(a, b);
        expect(order).toHaveLength(a.length + b.length);
        for (let i = 1; i < order.length; i++) expect(order[i - 1]!.entry.at <= order[i]!.entry.at).toBe(true);
        expect(order.filter((o) => o.side === 'A').map((o) => o.entry)).toEqual(a);
        expect(order.filter((o) => o.side === 'B').map((o) => o.entry)).toEqual(b);
      }),
      { numRuns: 200 },
    );
  });
});
