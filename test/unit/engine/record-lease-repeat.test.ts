/** The pure rules of "Nothing lost": pointer against journal, the lease, and repeated commands. No disk. */
import { describe, expect, it } from 'vitest';
import { toPointerRecord, type JournalEvent, type StampedEntry } from '../../../src/formats/journal-line.js';
import { judgeLease } from '../../../src/engine/lease.js';
import type { Lease } from '../../../src/formats/lease.js';
import { checkRecord } from '../../../src/engine/record.js';
import { judgeCut } from '../../../src/engine/journal-cut.js';
import { commandKey, judgeRepeat } from '../../../src/engine/repeat.js';
import type { Position } from '../../../src/formats/pointer/position.js';
import { positionHash } from '../../../src/formats/pointer/serialize-pointer.js';

const at = (over: Partial<Position> = {}): Position => ({
  flow: 'greenfield',
  step: 3,
  name: 'Plan',
  status: 'in_progress',
  subStep: '0',
  retryCount: 0,
  cycle: 1,
  ...over,
});
const written = (p: Position, seq: number) => ({ position: p, record: { seq, hash: positionHash(p) } });
const journalAt = (p: Position, seq: number) => ({ seq, pointer: toPointerRecord(p) });

describe('checkRecord: the journal is the record', () => {
  it('a pointer edited by hand whose marker names event 8 over a journal cut to event 2 is a cut, not a hand edit judged from the cut journal', () => {
    const failed = at({ status: 'failed', retryCount: 3 });
    const edited = { position: at(), record: { seq: 8, hash: positionHash(failed) } };
    const verdict = checkRecord(edited, journalAt(at(), 2), positionHash, 'j.jsonl');
    expect(verdict.cut).toEqual({ expected: 8, found: 2, by: 'pointer', headHolds: undefined });
    expect(verdict.drift).toEqual([expect.objectContaining({ kind: 'journal-behind', message: expect.stringContaining('event 8 expected, 2 found') })]);
    expect(verdict.journal).toBeUndefined();
  });

  it('judgeCut: the highest sign beyond the journal decides; HEAD reaching it says so; 3 signs within the journal: no cut', () => {
    expect(
      judgeCut(5, [
        { by: 'pointer', seq: 5 },
        { by: 'commit', seq: 4 },
        { by: 'checkpoint', seq: 3 },
      ]),
    ).toBeUndefined();
    expect(
      judgeCut(2, [
        { by: 'commit', seq: 8 },
        { by: 'checkpoint', seq: 7 },
        { by: 'head', seq: 8 },
      ]),
    ).toEqual({ expected: 8, found: 2, by: 'commit', headHolds: true });
    expect(
      judgeCut(2, [
        { by: 'checkpoint', seq: 7 },
        { by: 'head', seq: 2 },
      ]),
    ).toMatchObject({ expected: 7, headHolds: false });
  });

  it('keeps a pointer that is what the engine wrote for the journal’s last record', () => {
    expect(checkRecord(written(at(), 7), journalAt(at(), 7), positionHash)).toEqual({ start: at(), drift: [] });
  });

  it('brings a pointer written for an older event up to the journal', () => {
    const later = at({ status: 'failed', retryCount: 3 });
    const verdict = checkRecord(written(at({ retryCount: 2 }), 7), journalAt(later, 9), positionHash);
    expect(verdict.start).toEqual(later);
    expect(verdict.drift).toEqual([expect.objectContaining({ kind: 'behind-journal' })]);
  });

  it('respects a hand edit and names the fields that changed', () => {
    const edited = { position: at({ step: 6, name: 'Implement', retryCount: 2 }), record: { seq: 7, hash: positionHash(at()) } };
    const verdict = checkRecord(edited, journalAt(at(), 7), positionHash);
    expect(verdict.start).toEqual(edited.position);
    expect(verdict.drift[0]!.kind).toBe('hand-edit');
    expect(verdict.edited).toEqual({ step: { was: 3, now: 6 }, name: { was: 'Plan', now: 'Implement' }, retry_count: { was: 0, now: 2 } });
  });

  it('rebuilds a missing pointer from the journal, and leaves the folder to decide when there is no journal', () => {
    expect(checkRecord(null, journalAt(at({ status: 'failed', retryCount: 3 }), 4), positionHash).start).toMatchObject({ status: 'failed', retryCount: 3 });
    expect(checkRecord(null, undefined, positionHash)).toEqual({ start: null, drift: [] });
  });

  it('keeps the pointer when the journal has lost events, and says so', () => {
    const verdict = checkRecord(written(at(), 12), journalAt(at({ step: 2, name: 'Research' }), 5), positionHash);
    expect(verdict.start).toEqual(at());
    expect(verdict.drift[0]!.kind).toBe('journal-behind');
  });

  it('says the record is gone when the pointer names event 5 and the journal holds none, edited or not, naming the file and the way back', () => {
    for (const pointer of [written(at(), 5), { position: at({ retryCount: 1 }), record: { seq: 5, hash: positionHash(at()) } }]) {
      const verdict = checkRecord(pointer, undefined, positionHash, 'docs/_autopilot/journal.jsonl');
      expect(verdict.start).toEqual(pointer.position);
      expect(verdict.drift).toHaveLength(1);
      expect(verdict.drift[0]).toMatchObject({ kind: 'journal-gone', step: 3 });
      expect(verdict.drift[0]!.message).toContain('event 5');
      expect(verdict.drift[0]!.message).toContain('git checkout HEAD -- docs/_autopilot/journal.jsonl');
    }
    // A pointer with no marker (hand-written, the seed's format) names no event: nothing was lost.
    expect(checkRecord({ position: at() }, undefined, positionHash)).toEqual({ start: at(), drift: [] });
  });
});

describe('judgeLease: one driving session', () => {
  const now = new Date('2026-11-26T12:00:00Z');
  const me = { session: 'B', host: 'vm', machine: 'm1', pid: 2 };
  const lease = (over: Partial<Lease> = {}): Lease => ({
    session: 'A',
    host: 'vm',
    machine: 'm1',
    pid: 1,
    taken_at: '2026-11-26T11:00:00Z',
    heartbeat: '2026-11-26T11:58:00Z',
    ...over,
  });
  const TEN_MIN = 10 * 60_000;

  it('takes a free repository and renews its own lease', () => {
    expect(judgeLease(undefined, me, now, TEN_MIN, false).kind).toBe('take');
    expect(judgeLease(lease({ session: 'B' }), me, now, TEN_MIN, false)).toMatchObject({
      kind: 'renew',
      lease: { taken_at: '2026-11-26T11:00:00Z', heartbeat: now.toISOString() },
    });
  });

  it('refuses another session’s fresh lease, takes a stale one on this machine, and any with --take-over', () => {
    expect(judgeLease(lease(), me, now, TEN_MIN, false)).toMatchObject({ kind: 'held', stale: false, otherMachine: false });
    expect(judgeLease(lease({ heartbeat: '2026-11-26T11:49:00Z' }), me, now, TEN_MIN, false)).toMatchObject({ kind: 'take', takenFrom: { reason: 'stale' } });
    expect(judgeLease(lease(), me, now, TEN_MIN, true)).toMatchObject({ kind: 'take', takenFrom: { reason: 'take-over' } });
  });

  it('never takes another machine’s lease for its age, even a day old, nor a renamed host’s by its name', () => {
    const old = lease({ machine: 'm2', heartbeat: '2026-11-25T11:00:00Z' });
    expect(judgeLease(old, me, now, TEN_MIN, false)).toMatchObject({ kind: 'held', otherMachine: true });
    expect(judgeLease(lease({ session: 'B', machine: 'm2' }), me, now, TEN_MIN, false).kind).toBe('held');
    expect(judgeLease(lease({ host: 'renamed', heartbeat: '2026-11-26T11:00:00Z' }), me, now, TEN_MIN, false).kind).toBe('take');
  });
});

describe('judgeRepeat: a command names its step', () => {
  const target = { flow: 'greenfield', cycle: 1, step: 3 };
  const stamped = (event: JournalEvent, extra: Record<string, unknown> = {}): StampedEntry =>
    ({
      seq: 9,
      at: '',
      session: 'local',
      event,
      flow: 'greenfield',
      cycle: 1,
      step: 3,
      name: 'Plan',
      index: 2,
      status: 'completed',
      retry_count: 0,
      ...extra,
    }) as StampedEntry;

  it('recognises a `done` that already completed its step, and refuses one whose step the work left some other way', () => {
    const moved = at({ step: 4, name: 'UI Design', status: 'not_started' });
    expect(judgeRepeat({ type: 'done' }, target, 'Plan', moved, stamped('step_completed', { key: commandKey({ type: 'done' }, target, 1) })).kind).toBe(
      'duplicate',
    );
    const refused = judgeRepeat({ type: 'done' }, target, 'Plan', moved, stamped('step_skipped', { by: 'agent' }));
    expect(refused).toMatchObject({ kind: 'moved', problem: { message: expect.stringContaining('step 3 (Plan)') } });
    expect(refused.kind === 'moved' && refused.problem.message).toContain('step 4 (UI Design)');
  });

  it('counts a second `fail` of the same attempt once, and applies a `fail` of an attempt under way', () => {
    expect(judgeRepeat({ type: 'fail', reason: 'x' }, target, 'Plan', at({ status: 'not_started', retryCount: 1 }), stamped('step_failed')).kind).toBe(
      'duplicate',
    );
    expect(judgeRepeat({ type: 'fail', reason: 'x' }, target, 'Plan', at({ retryCount: 1 }), stamped('step_started')).kind).toBe('apply');
  });

  it('applies anything aimed at the current step that would change it', () => {
    expect(judgeRepeat({ type: 'substep', text: 'b' }, target, 'Plan', at({ subStep: 'a' }), stamped('substep', { sub_step: 'a' })).kind).toBe('apply');
    expect(judgeRepeat({ type: 'substep', text: 'a' }, target, 'Plan', at({ subStep: 'a' }), stamped('substep', { sub_step: 'a' })).kind).toBe('duplicate');
  });
});
