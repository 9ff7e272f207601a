/**
 * Two clocks and one lease (docs/sessions.md): staleness judged by the
 * holder's own sequence of heartbeats as this machine has seen it, measured
 * on this machine's clock alone, where one comparison of two clocks would
 * take over an active lease. Every clock here is injected: a true time `t`,
 * the holder's clock `t + skew`, the observer's clock `t`.
 */
import { describe, expect, it } from 'vitest';
import { judgeBySighting, judgeLease, leaseMark, sight, type Lease, type LeaseVerdict, type Sighting } from '../../../src/engine/lease.js';

const T0 = Date.parse('2026-11-26T12:00:00Z');
const MIN = 60_000;
const TEN_MIN = 10 * MIN;
const at = (ms: number) => new Date(ms);

const holder = { session: 'A', host: 'vm', machine: 'm1', pid: 100, conversation: { pid: 4242, start: '991' } };
const observer = { session: 'B', host: 'vm', machine: 'm1', pid: 200, conversation: { pid: 5151, start: '7' } };

/** One observer on this machine: judges the lease as a step command does, and keeps the note it is handed. */
function observe(holderGone: boolean | undefined) {
  let noted: Sighting | undefined;
  return (lease: Lease, now: Date): LeaseVerdict => {
    const verdict = judgeLease(lease, observer, now, TEN_MIN, false, { holderGone, ...(noted ? { noted } : {}) });
    if (verdict.kind === 'held' && verdict.seen.first) noted = verdict.seen.sighting;
    return verdict;
  };
}

/** The holder renews with its own clock. */
const renew = (lease: Lease | undefined, holderNow: Date): Lease => {
  const v = judgeLease(lease, holder, holderNow, TEN_MIN, false);
  if (v.kind === 'held') throw new Error('the holder was refused');
  return v.lease;
};

const takeovers = (verdicts: LeaseVerdict[]) => verdicts.filter((v) => v.kind === 'take').length;

describe('a lease on this machine whose conversation runs', () => {
  it('11-minute-slow clock: 0 takeovers in 20 renewals (an observer in between each)', () => {
    const judge = observe(false);
    let lease: Lease | undefined;
    const verdicts: LeaseVerdict[] = [];
    for (let i = 0; i < 20; i++) {
      const t = T0 + i * 2 * MIN;
      lease = renew(lease, at(t - 11 * MIN));
      verdicts.push(judge(lease, at(t + MIN)));
    }
    expect(takeovers(verdicts)).toBe(0);
    expect(lease!.beat).toBe(20);
    // Each renewal is a new heartbeat: every sighting is a first one, and the heartbeat reads old to this clock.
    expect(verdicts.every((v) => v.kind === 'held' && v.seen.first && v.oldWhileRunning)).toBe(true);
  });

  it('a clock that jumped 11 minutes ahead after the heartbeat was written: 0 takeovers on the first sighting; stale only 10 minutes of this clock later', () => {
    const judge = observe(false);
    const lease = renew(undefined, at(T0));
    // The heartbeat was written at T0; this clock jumped forward by 11 minutes a moment later.
    const first = judge(lease, at(T0 + 11 * MIN));
    expect(first).toMatchObject({ kind: 'held', oldWhileRunning: true, seen: { first: true, staleAt: at(T0 + 21 * MIN).toISOString() } });
    expect(judge(lease, at(T0 + 20 * MIN))).toMatchObject({ kind: 'held', seen: { first: false } });
    expect(judge(lease, at(T0 + 21 * MIN + 1))).toMatchObject({ kind: 'take', takenFrom: { reason: 'stale' } });
  });

  it('quiet (the holder stopped renewing): taken only after this observer saw the same heartbeat for 10 minutes — 10 refusals, then 1 takeover, polling each minute', () => {
    const judge = observe(false);
    // Its clock is 11 minutes slow: the heartbeat reads 11 minutes old the moment it is written.
    const lease = renew(undefined, at(T0 - 11 * MIN));
    const verdicts = Array.from({ length: 12 }, (_, i) => judge(lease, at(T0 + i * MIN)));
    expect(verdicts.map((v) => v.kind)).toEqual([...Array<string>(11).fill('held'), 'take']);
    expect(verdicts.at(-1)).toMatchObject({ takenFrom: { reason: 'stale' } });
  });

  it('a first sighting is never stale, however old the heartbeat; the answer says when it would be', () => {
    const lease = renew(undefined, at(T0 - 24 * 60 * MIN));
    const v = judgeLease(lease, observer, at(T0), TEN_MIN, false, { holderGone: false });
    expect(v).toMatchObject({ kind: 'held', seen: { first: true, sighting: { since: at(T0).toISOString() }, staleAt: at(T0 + TEN_MIN).toISOString() } });
  });

  it('a fresh heartbeat is stale by its age as before, counted from the later of the two: its age and this machine’s sighting', () => {
    const judge = observe(false);
    const lease = renew(undefined, at(T0));
    expect(judge(lease, at(T0 + MIN))).toMatchObject({ kind: 'held', seen: { first: true, staleAt: at(T0 + 11 * MIN).toISOString() } });
    expect(judge(lease, at(T0 + 10 * MIN + 1))).toMatchObject({ kind: 'held' });
    expect(judge(lease, at(T0 + 11 * MIN + 1))).toMatchObject({ kind: 'take', takenFrom: { reason: 'stale' } });
  });

  it('a clock that repeats one time (frozen): the heartbeat count still tells 20 renewals apart, 0 takeovers', () => {
    const judge = observe(false);
    let lease: Lease | undefined;
    const verdicts: LeaseVerdict[] = [];
    for (let i = 0; i < 20; i++) {
      lease = renew(lease, at(T0));
      verdicts.push(judge(lease, at(T0 + 20 * MIN + i * 2 * MIN)));
    }
    expect(takeovers(verdicts)).toBe(0);
    expect(new Set(verdicts.map((v) => v.kind === 'held' && v.seen.sighting.mark)).size).toBe(20);
  });
});

describe('what stays as it was', () => {
  it('a holder of this machine whose conversation cannot be seen is judged by its heartbeat’s age alone (this clock wrote it)', () => {
    const lease = renew(undefined, at(T0));
    expect(judgeLease(lease, observer, at(T0 + 11 * MIN), TEN_MIN, false, {})).toMatchObject({ kind: 'take', takenFrom: { reason: 'stale' } });
  });

  it('a holder whose conversation has ended is taken at once, sighting or none', () => {
    const lease = renew(undefined, at(T0));
    expect(judgeLease(lease, observer, at(T0 + MIN), TEN_MIN, false, { holderGone: true })).toMatchObject({ kind: 'take', takenFrom: { reason: 'gone' } });
  });

  it('another machine’s lease file: 0 takeovers in 20 polls a day apart, however long this machine has seen it unchanged; the sighting is kept for people', () => {
    let noted: Sighting | undefined;
    const lease = { ...renew(undefined, at(T0 - 11 * MIN)), machine: 'm2' };
    const verdicts = Array.from({ length: 20 }, (_, i) => {
      const v = judgeLease(lease, observer, at(T0 + i * 24 * 60 * MIN), TEN_MIN, false, noted ? { noted } : {});
      if (v.kind === 'held' && v.seen.first) noted = v.seen.sighting;
      return v;
    });
    expect(takeovers(verdicts)).toBe(0);
    expect(verdicts.at(-1)).toMatchObject({ kind: 'held', otherMachine: true, seen: { first: false, sighting: { since: at(T0).toISOString() } } });
    expect(verdicts.at(-1)).not.toHaveProperty('seen.staleAt');
  });

  it('a heartbeat in the future on this machine is for a person, seen or not', () => {
    const lease = renew(undefined, at(T0 + 365 * 24 * 60 * MIN));
    const noted = { mark: leaseMark(lease), since: at(T0).toISOString() };
    expect(judgeLease(lease, observer, at(T0 + 60 * MIN), TEN_MIN, false, { holderGone: false, noted })).toMatchObject({
      kind: 'held',
      aheadMs: expect.any(Number),
    });
  });
});

describe('a lease whose heartbeat another machine’s clock wrote (the shared remote)', () => {
  /** The remote's ref names a new commit at each renewal. */
  const shaOf = (n: number) => n.toString(16).padStart(40, '0');

  function poll(staleMs: number | undefined) {
    let noted: Sighting | undefined;
    return (mark: string, now: Date) => {
      const judged = judgeBySighting(mark, noted, now, staleMs);
      if (judged.first) noted = judged.sighting;
      return judged;
    };
  }

  it('20 renewals two minutes apart, whatever the holder’s clock wrote: 0 takeovers (only the commit the ref names is compared, never its heartbeat)', () => {
    const judge = poll(TEN_MIN);
    const stale = Array.from({ length: 20 }, (_, i) => judge(shaOf(i), at(T0 + i * 2 * MIN))).filter((j) => j.stale);
    expect(stale).toHaveLength(0);
  });

  it('the holder stopped: taken only once this machine has seen the same commit for 10 minutes — 10 refusals polling each minute, then stale', () => {
    const judge = poll(TEN_MIN);
    const verdicts = Array.from({ length: 12 }, (_, i) => judge(shaOf(1), at(T0 + i * MIN)));
    expect(verdicts.map((j) => j.stale)).toEqual([...Array<boolean>(11).fill(false), true]);
    expect(verdicts[0]).toMatchObject({ first: true, staleAt: at(T0 + TEN_MIN).toISOString() });
  });

  it('a first sighting is never stale; without the fleet’s setting, nothing is ever stale', () => {
    expect(judgeBySighting(shaOf(1), undefined, at(T0), 0)).toMatchObject({ stale: false, first: true });
    const never = poll(undefined);
    expect(Array.from({ length: 20 }, (_, i) => never(shaOf(1), at(T0 + i * 24 * 60 * MIN))).filter((j) => j.stale)).toHaveLength(0);
  });

  it("a note from this clock's future (this clock was set back since) starts the wait again", () => {
    const noted = { mark: shaOf(1), since: at(T0 + 60 * MIN).toISOString() };
    expect(sight(shaOf(1), noted, at(T0))).toEqual({ first: true, sighting: { mark: shaOf(1), since: at(T0).toISOString() } });
    expect(judgeBySighting(shaOf(1), noted, at(T0 + 30 * MIN), TEN_MIN)).toMatchObject({ first: true, stale: false });
  });
});
