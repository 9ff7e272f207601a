/**
 * Rule 6: one session drives a repository at a time (docs/sessions.md). Pure:
 * given the lease on disk, who asks, whether the holder's conversation is
 * gone, the time and the stale threshold, decide whether the caller may
 * drive, and what that changes.
 *
 * - No lease, or the caller's own: take or renew it.
 * - The same conversation (its process) under another name, one of the two
 *   unnamed (`local`): the same session, renewed.
 * - Another session's on this machine whose conversation has ended: taken
 *   over at once (journaled).
 * - Another session's on this machine whose heartbeat is older than the
 *   threshold: stale, taken over (journaled).
 * - Another machine's: never probed, never taken because it looks old (the
 *   clocks and the network between the two are unknown); only `--take-over`.
 * - `--take-over` takes any lease, journaled.
 * The machine id, not the host name, says "this machine", so a renamed host
 * neither locks its own repository forever nor lets another machine in.
 */
import type { Lease, ProcessRef } from '../formats/lease.js';
import { CLOCK_TOLERANCE_MS } from '../limits.js';

export type { Lease, ProcessRef };

export interface Caller {
  session: string;
  host: string;
  machine: string;
  pid: number;
  conversation?: ProcessRef;
  /** Nothing named the caller (`local`): it cannot be told apart from another unnamed caller. */
  unnamed?: boolean;
}

export type LeaseVerdict =
  | { kind: 'take'; lease: Lease; takenFrom?: { holder: Lease; reason: 'gone' | 'stale' | 'take-over' } }
  /** `as`: the caller is the holder's conversation under another name, and drives as that session. */
  | { kind: 'renew'; lease: Lease; as?: string }
  /** `aheadMs`: the holder's heartbeat is this far in the future (a clock ahead, or this one set back): its age cannot be judged. */
  | { kind: 'held'; holder: Lease; ageMs: number; stale: boolean; otherMachine: boolean; aheadMs?: number };

export const holds = (lease: Lease, caller: Caller) => lease.session === caller.session && lease.machine === caller.machine;

const sameProcess = (a: ProcessRef | undefined, b: ProcessRef | undefined) => a !== undefined && b !== undefined && a.pid === b.pid && a.start === b.start;

/** The same conversation under two names, one of them no name at all: the Bash and the MCP calls of one agent that forgot its id. */
export function sameConversation(lease: Lease, caller: Caller, unnamedHolder = 'local'): boolean {
  return (
    lease.machine === caller.machine && sameProcess(lease.conversation, caller.conversation) && (caller.unnamed === true || lease.session === unnamedHolder)
  );
}

/**
 * How far in the future a heartbeat is, past a minute's tolerance; 0 when it
 * is not. A heartbeat ahead of this clock is suspect: written by a clock that
 * ran fast, or this clock was set back. Its age reads 0 for as long as that
 * lasts, so it is reported, and a person decides.
 */
export function heartbeatAhead(lease: Lease, now: Date): number {
  const at = Date.parse(lease.heartbeat);
  const ahead = Number.isNaN(at) ? 0 : at - now.getTime();
  return ahead > CLOCK_TOLERANCE_MS ? ahead : 0;
}

export function heartbeatAge(lease: Lease, now: Date): number {
  const at = Date.parse(lease.heartbeat);
  return Number.isNaN(at) ? Number.POSITIVE_INFINITY : Math.max(0, now.getTime() - at);
}

/**
 * `holderGone`: whether the holder's conversation has provably ended on this
 * machine (its process is gone); undefined when that cannot be told.
 */
export function judgeLease(current: Lease | undefined, caller: Caller, now: Date, staleMs: number, takeOver: boolean, holderGone?: boolean): LeaseVerdict {
  const at = now.toISOString();
  const mine = (takenAt: string, session = caller.session): Lease => ({
    session,
    host: caller.host,
    machine: caller.machine,
    pid: caller.pid,
    ...(caller.conversation ? { conversation: caller.conversation } : {}),
    taken_at: takenAt,
    heartbeat: at,
  });
  if (!current) return { kind: 'take', lease: mine(at) };
  if (holds(current, caller)) return { kind: 'renew', lease: mine(current.taken_at) };
  if (sameConversation(current, caller)) {
    // The named one of the two names the session.
    const session = caller.unnamed ? current.session : caller.session;
    return { kind: 'renew', lease: mine(current.taken_at, session), ...(session !== caller.session ? { as: session } : {}) };
  }
  const ageMs = heartbeatAge(current, now);
  const otherMachine = current.machine !== caller.machine;
  const stale = !otherMachine && ageMs > staleMs;
  if (takeOver) return { kind: 'take', lease: mine(at), takenFrom: { holder: current, reason: 'take-over' } };
  if (!otherMachine && holderGone === true) return { kind: 'take', lease: mine(at), takenFrom: { holder: current, reason: 'gone' } };
  if (stale) return { kind: 'take', lease: mine(at), takenFrom: { holder: current, reason: 'stale' } };
  const aheadMs = heartbeatAhead(current, now);
  return { kind: 'held', holder: current, ageMs, stale, otherMachine, ...(aheadMs > 0 ? { aheadMs } : {}) };
}

export function formatAge(ms: number): string {
  if (!Number.isFinite(ms)) return 'an unknown time';
  const s = Math.round(ms / 1000);
  if (s < 90) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 90) return `${m} min`;
  const h = Math.round(m / 60);
  return h < 48 ? `${h} h` : `${Math.round(h / 24)} days`;
}
