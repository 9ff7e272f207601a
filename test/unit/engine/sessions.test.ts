/**
 * Who drives (docs/sessions.md), in the pure rules: a session is named in one
 * order; one conversation under two names, one of them none, is one session;
 * a conversation that has ended on this machine is taken over at once; a
 * boundary never loops where sessions cannot be told apart; one attempt is
 * one failure, whatever its wording.
 */
import { describe, expect, it } from 'vitest';
import { sessionOf } from '../../../src/app/transaction/context.js';
import { judgeLease, type Lease } from '../../../src/engine/lease.js';
import { judgeRepeat } from '../../../src/engine/repeat.js';
import { apply } from '../../../src/engine/transitions.js';
import { at, builtInFlow, evidence, upTo } from '../../helpers/engine.js';

describe('sessionOf: the conversation, named in one order', () => {
  const env = { AUTOPILOT_SESSION: 'from-env', CLAUDE_CODE_SESSION_ID: 'claude-1', CODEX_THREAD_ID: 'thread-1' };

  it('--session, then $AUTOPILOT_SESSION, then the id a client sent with the call, then the client ids in the environment, else local', () => {
    expect(sessionOf('given', env, 'meta')).toEqual({ session: 'given', from: 'given' });
    expect(sessionOf(undefined, env, 'meta')).toEqual({ session: 'from-env', from: 'env' });
    expect(sessionOf(undefined, { ...env, AUTOPILOT_SESSION: '' }, 'meta')).toEqual({ session: 'meta', from: 'client' });
    expect(sessionOf(undefined, { CLAUDE_CODE_SESSION_ID: 'claude-1', CODEX_THREAD_ID: 'thread-1' })).toEqual({ session: 'claude-1', from: 'client' });
    expect(sessionOf(undefined, { CODEX_THREAD_ID: 'thread-1' })).toEqual({ session: 'thread-1', from: 'client' });
    expect(sessionOf(undefined, {})).toEqual({ session: 'local', from: 'default' });
    expect(sessionOf('  ', { AUTOPILOT_SESSION: ' ' })).toEqual({ session: 'local', from: 'default' });
  });

  it('refuses a name that is too long or holds what does not belong in a journal line (exit 2 naming it)', () => {
    expect(() => sessionOf('x'.repeat(70_000), {})).toThrow(/--session: "x{40}…" is not a session name/);
    expect(() => sessionOf('a b', {})).toThrow(/not a session name/);
    expect(() => sessionOf(undefined, { AUTOPILOT_SESSION: '<script>' })).toThrow(/\$AUTOPILOT_SESSION/);
    expect(() => sessionOf(undefined, { CODEX_THREAD_ID: 'evil\u202e' })).toThrow(/\$CODEX_THREAD_ID/);
    expect(sessionOf('019a2b3c-4d5e-7f80-9a1b-2c3d4e5f6a7b', {}).session).toBe('019a2b3c-4d5e-7f80-9a1b-2c3d4e5f6a7b');
  });
});

describe('judgeLease: conversations', () => {
  const now = new Date('2026-11-26T12:00:00Z');
  const claude = { pid: 4242, start: '991' };
  const lease = (over: Partial<Lease> = {}): Lease => ({
    session: 'conv-a',
    host: 'vm',
    machine: 'm1',
    pid: 100,
    conversation: claude,
    taken_at: '2026-11-26T11:00:00Z',
    heartbeat: '2026-11-26T11:59:30Z',
    ...over,
  });
  const caller = (over: object = {}) => ({ session: 'local', host: 'vm', machine: 'm1', pid: 200, conversation: claude, unnamed: true, ...over });
  const TEN_MIN = 10 * 60_000;

  it('an unnamed call of the same conversation is that conversation: renewed, driving as its name', () => {
    expect(judgeLease(lease(), caller(), now, TEN_MIN, false)).toMatchObject({ kind: 'renew', as: 'conv-a', lease: { session: 'conv-a' } });
  });

  it('a named call of the conversation that first drove unnamed renames the lease', () => {
    const v = judgeLease(lease({ session: 'local' }), caller({ session: 'conv-a', unnamed: false }), now, TEN_MIN, false);
    expect(v).toMatchObject({ kind: 'renew', lease: { session: 'conv-a' } });
    expect('as' in v && v.as).toBeFalsy();
  });

  it('two names given on purpose are two sessions, even in one process', () => {
    expect(judgeLease(lease(), caller({ session: 'conv-b', unnamed: false }), now, TEN_MIN, false)).toMatchObject({ kind: 'held' });
  });

  it('another conversation of this machine: held while its process runs, taken at once when it is gone (reason gone)', () => {
    const other = caller({ session: 'conv-b', unnamed: false, conversation: { pid: 5151, start: '7' } });
    expect(judgeLease(lease(), other, now, TEN_MIN, false, { holderGone: false })).toMatchObject({ kind: 'held', otherMachine: false });
    expect(judgeLease(lease(), other, now, TEN_MIN, false, {})).toMatchObject({ kind: 'held' });
    expect(judgeLease(lease(), other, now, TEN_MIN, false, { holderGone: true })).toMatchObject({
      kind: 'take',
      takenFrom: { reason: 'gone', holder: { session: 'conv-a' } },
    });
  });

  it("another machine's lease is never taken because its conversation looks gone", () => {
    const there = caller({ session: 'conv-b', unnamed: false, machine: 'm2' });
    expect(judgeLease(lease(), there, now, TEN_MIN, false, { holderGone: true })).toMatchObject({ kind: 'held', otherMachine: true });
  });
});

describe('session boundaries never loop', () => {
  const flow = builtInFlow('greenfield');
  const waiting = at(flow, 6);
  const ev = evidence(flow, { done: upTo(5) });
  const boundary = { after: 5, session: 'local' };

  it('a named session that reached it is asked again; an unnamed one was asked once and goes on', () => {
    expect(apply(flow, waiting, ev, { type: 'next' }, { session: 'conv-a', boundary: { after: 5, session: 'conv-a' } }).outcome).toEqual({
      kind: 'boundary',
      after: 5,
    });
    const unnamed = apply(flow, waiting, ev, { type: 'next' }, { session: 'local', unnamed: true, boundary });
    expect(unnamed.outcome).toMatchObject({ kind: 'work' });
    expect(unnamed.entries[0]).toMatchObject({ event: 'boundary_answered', option: 'A', reached_by: 'local' });
  });

  it("a person's A records the session that reached it as `stopped`; B records none", () => {
    const reached = { after: 5, session: 'conv-a' };
    const a = apply(flow, waiting, ev, { type: 'decide', option: 'A' }, { session: 'local', unnamed: true, boundary: reached });
    expect(a.outcome).toEqual({ kind: 'boundary', after: 5, answered: 'A' });
    expect(a.entries).toEqual([expect.objectContaining({ event: 'boundary_answered', option: 'A', stopped: 'conv-a' })]);
    const b = apply(flow, waiting, ev, { type: 'decide', option: 'B' }, { session: 'local', unnamed: true, boundary: reached });
    expect(b.entries[0]).not.toHaveProperty('stopped');
  });

  it("after a person's A: 4 commands of the conversation that reached it stop (exit 3, 0 entries); a new one, an unnamed one and a person's B go on", () => {
    const stopped = { after: 5, session: 'conv-a' };
    const held = (['next', 'done', 'substep', 'fail'] as const).map((type) => {
      const event = type === 'substep' ? { type, text: '1 — x' } : type === 'fail' ? { type, reason: 'x' } : { type };
      return apply(flow, waiting, ev, event, { session: 'conv-a', stopped });
    });
    expect(held.map((t) => [t.outcome, t.entries.length])).toEqual(Array(4).fill([{ kind: 'boundary', after: 5, answered: 'A' }, 0]));
    expect(apply(flow, waiting, ev, { type: 'next' }, { session: 'conv-b', stopped })).toMatchObject({
      outcome: { kind: 'work', action: 'start' },
      entries: [expect.objectContaining({ event: 'step_started' })],
    });
    expect(apply(flow, waiting, ev, { type: 'next' }, { session: 'local', unnamed: true, stopped: { after: 5, session: 'local' } }).outcome).toMatchObject({
      kind: 'work',
    });
    const b = apply(flow, waiting, ev, { type: 'decide', option: 'B' }, { session: 'local', unnamed: true, stopped });
    expect(b).toMatchObject({ outcome: { kind: 'advanced' }, entries: [expect.objectContaining({ event: 'boundary_answered', option: 'B' })] });
  });
});

describe('one attempt, one failure', () => {
  const target = { flow: 'greenfield', cycle: 1, step: 7 };
  const failedOnce = { ...at(builtInFlow('greenfield'), 7, 'not_started', { retryCount: 1 }) };
  const stamped = {
    ...failedOnce,
    event: 'step_failed' as const,
    index: 6,
    retry_count: 1,
    reason: 'the build is red',
    attempt: 1,
    seq: 9,
    at: '2026-11-26T12:00:00Z',
    session: 'agent',
  };

  it('a second fail of the same attempt, reworded, is the same failure: duplicate, not a second retry spent', () => {
    expect(judgeRepeat({ type: 'fail', reason: 'tests fail on Node 20' }, target, 'Run Tests', failedOnce, stamped).kind).toBe('duplicate');
  });
});
