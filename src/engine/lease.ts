/**
 * Rule 6: one session drives a repository at a time (docs/sessions.md). Pure:
 * given the lease on disk, who asks, whether the holder's conversation is
 * gone, what this machine noted of the lease before, the time and the stale
 * threshold, decide whether the caller may drive, and what that changes.
 *
 * - No lease, or the caller's own: take or renew it.
 * - The same conversation (its process) under another name, one of the two
 *   unnamed (`local`): the same session, renewed.
 * - Another session's on this machine whose conversation has ended: taken
 *   over at once (journaled).
 * - Another session's on this machine whose heartbeat is older than the
 *   threshold: stale, taken over (journaled). When its conversation is seen
 *   running, an old heartbeat may be a clock that jumped between its write
 *   and this read: it is stale only once this machine has also seen that
 *   same heartbeat unchanged for the threshold, by its own clock.
 * - Another machine's: never probed, never taken because it looks old (the
 *   clocks and the network between the two are unknown); only `--take-over`.
 * - `--take-over` takes any lease, journaled.
 * The machine id, not the host name, says "this machine", so a renamed host
 * neither locks its own repository forever nor lets another machine in.
 *
 * Where a heartbeat comes from another clock (the lease on a shared remote),
 * its value is never compared with this clock: `judgeBySighting` counts only
 * how long this machine has seen the lease unchanged.
 */
import type { Lease, ProcessRef } from '../formats/lease.js';
import type { Sighting } from '../formats/lease-sightings.js';
import { CLOCK_TOLERANCE_MS } from '../limits.js';
import { isoTime } from '../timestamp.js';

export type { Lease, ProcessRef, Sighting };

export interface Caller {
  session: string;
  host: string;
  machine: string;
  pid: number;
  conversation?: ProcessRef;
  /** Nothing named the caller (`local`): it cannot be told apart from another unnamed caller. */
  unnamed?: boolean;
}

/** What the caller's machine knows of the holder beyond the lease file. */
export interface Observed {
  /** The holder's conversation has ended on this machine (true), runs (false), or cannot be told (undefined). */
  holderGone?: boolean;
  /** What this machine noted of the lease before (`formats/lease-sightings.ts`). */
  noted?: Sighting;
}

/** This machine's sighting of another session's lease. */
export interface Seen {
  /** The note to keep: the one read while the lease is unchanged, else a new one. */
  sighting: Sighting;
  /** The lease is seen as it is now for the first time: nothing is stale on a first sighting. */
  first: boolean;
  /** When the lease is judged stale if it is still unchanged then (ISO); absent when only a person takes it. */
  staleAt?: string;
}

export type LeaseVerdict =
  | { kind: 'take'; lease: Lease; takenFrom?: { holder: Lease; reason: 'gone' | 'stale' | 'take-over' } }
  /** `as`: the caller is the holder's conversation under another name, and drives as that session. */
  | { kind: 'renew'; lease: Lease; as?: string }
  /** `aheadMs`: the holder's heartbeat is this far in the future (a clock ahead, or this one set back): its age cannot be judged. */
  | {
      kind: 'held';
      holder: Lease;
      ageMs: number;
      stale: boolean;
      otherMachine: boolean;
      aheadMs?: number;
      seen: Seen;
      /** Its heartbeat is older than the threshold while its conversation runs: stale only once this machine has seen it unchanged as long. */
      oldWhileRunning?: true;
    };

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

/** The lease as a sighting names it: who holds it and which of its heartbeats this is. Every renewal changes it. */
export function leaseMark(lease: Lease): string {
  return `${lease.session} ${lease.machine} ${lease.taken_at} ${lease.heartbeat} #${lease.beat ?? 0}`;
}

/**
 * This machine's sighting of a lease now: the note it kept, while the lease
 * is the one noted; else a first sighting, now. A note from this clock's
 * future (this clock was set back since) starts the wait again.
 */
export function sight(mark: string, noted: Sighting | undefined, now: Date): Omit<Seen, 'staleAt'> {
  if (noted && noted.mark === mark && Date.parse(noted.since) <= now.getTime() + CLOCK_TOLERANCE_MS) return { sighting: noted, first: false };
  return { sighting: { mark, since: isoTime(now) }, first: true };
}

/**
 * A lease whose heartbeat another clock wrote (a shared remote's): stale once
 * this machine has seen it unchanged for `staleMs`, by this machine's clock
 * alone; never on a first sighting. `staleMs` undefined: never (a person
 * takes it over).
 */
export function judgeBySighting(mark: string, noted: Sighting | undefined, now: Date, staleMs: number | undefined): Seen & { stale: boolean } {
  const seen = sight(mark, noted, now);
  if (staleMs === undefined) return { ...seen, stale: false };
  const at = Date.parse(seen.sighting.since) + staleMs;
  return { ...seen, staleAt: isoTime(at), stale: !seen.first && now.getTime() > at };
}

/**
 * How another session's lease stands, seen from `machine` now: what
 * `judgeLease` decides by and `status` shows. Another machine's lease is
 * never stale (only a person takes it over); a heartbeat in the future
 * neither (a person decides). On this machine, by its heartbeat's age (this
 * machine's clock wrote it); but when the holder's conversation is seen
 * running, an old heartbeat may be this clock having jumped since it was
 * written, so this machine must also have seen that same heartbeat unchanged
 * for `staleMs` (`oldWhileRunning` until then).
 */
export function leaseStanding(lease: Lease, machine: string, now: Date, staleMs: number, observed: Observed = {}) {
  const otherMachine = lease.machine !== machine;
  const seen: Seen = sight(leaseMark(lease), observed.noted, now);
  const ageMs = heartbeatAge(lease, now);
  const aheadMs = heartbeatAhead(lease, now);
  const old = ageMs > staleMs;
  let stale = false;
  let oldWhileRunning = false;
  if (!otherMachine && !aheadMs) {
    const at = (Date.parse(lease.heartbeat) || Number.NEGATIVE_INFINITY) + staleMs;
    const running = observed.holderGone === false;
    const staleAt = running ? Math.max(at, Date.parse(seen.sighting.since) + staleMs) : at;
    stale = running ? !seen.first && now.getTime() > staleAt : old;
    oldWhileRunning = running && old && !stale;
    if (Number.isFinite(staleAt)) seen.staleAt = isoTime(staleAt);
  }
  return { ageMs, aheadMs, otherMachine, stale, seen, oldWhileRunning };
}

export function judgeLease(current: Lease | undefined, caller: Caller, now: Date, staleMs: number, takeOver: boolean, observed: Observed = {}): LeaseVerdict {
  const at = isoTime(now);
  const mine = (takenAt: string, session = caller.session, beat = 1): Lease => ({
    session,
    host: caller.host,
    machine: caller.machine,
    pid: caller.pid,
    ...(caller.conversation ? { conversation: caller.conversation } : {}),
    taken_at: takenAt,
    heartbeat: at,
    beat,
  });
  if (!current) return { kind: 'take', lease: mine(at) };
  const next = (current.beat ?? 0) + 1;
  if (holds(current, caller)) return { kind: 'renew', lease: mine(current.taken_at, caller.session, next) };
  if (sameConversation(current, caller)) {
    // The named one of the two names the session.
    const session = caller.unnamed ? current.session : caller.session;
    return { kind: 'renew', lease: mine(current.taken_at, session, next), ...(session !== caller.session ? { as: session } : {}) };
  }
  if (takeOver) return { kind: 'take', lease: mine(at), takenFrom: { holder: current, reason: 'take-over' } };
  const otherMachine = current.machine !== caller.machine;
  if (!otherMachine && observed.holderGone === true) return { kind: 'take', lease: mine(at), takenFrom: { holder: current, reason: 'gone' } };
  const standing = leaseStanding(current, caller.machine, now, staleMs, observed);
  if (standing.stale) return { kind: 'take', lease: mine(at), takenFrom: { holder: current, reason: 'stale' } };
  return {
    kind: 'held',
    holder: current,
    ageMs: standing.ageMs,
    stale: false,
    otherMachine,
    ...(standing.aheadMs > 0 ? { aheadMs: standing.aheadMs } : {}),
    seen: standing.seen,
    ...(standing.oldWhileRunning ? { oldWhileRunning: true as const } : {}),
  };
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

/** What this machine has seen of a lease, in words. */
export const seenText = (seen: { first: boolean; sighting: { since: string } }) =>
  seen.first ? 'first seen now by this machine' : `unchanged since this machine first saw it at ${seen.sighting.since}`;
