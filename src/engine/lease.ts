/**
 * Rule 6: one session drives a repository at a time. Pure: given the lease on
 * disk, who asks, the time and the stale threshold, decide whether the caller
 * may drive, and what that changes.
 *
 * - No lease, or the caller's own: take or renew it.
 * - Another session's on this machine whose heartbeat is older than the
 *   threshold: stale, taken over (journaled).
 * - Another machine's: never probed, never taken because it looks old (the
 *   clocks and the network between the two are unknown); only `--take-over`.
 * - `--take-over` takes any lease, journaled.
 * The machine id, not the host name, says "this machine", so a renamed host
 * neither locks its own repository forever nor lets another machine in.
 */
import type { Lease } from '../formats/lease.js';

export interface Caller {
  session: string;
  host: string;
  machine: string;
  pid: number;
}

export type LeaseVerdict =
  | { kind: 'take'; lease: Lease; takenFrom?: { holder: Lease; reason: 'stale' | 'take-over' } }
  | { kind: 'renew'; lease: Lease }
  | { kind: 'held'; holder: Lease; ageMs: number; stale: boolean; otherMachine: boolean };

export const holds = (lease: Lease, caller: Caller) => lease.session === caller.session && lease.machine === caller.machine;

export function heartbeatAge(lease: Lease, now: Date): number {
  const at = Date.parse(lease.heartbeat);
  return Number.isNaN(at) ? Number.POSITIVE_INFINITY : Math.max(0, now.getTime() - at);
}

export function judgeLease(current: Lease | undefined, caller: Caller, now: Date, staleMs: number, takeOver: boolean): LeaseVerdict {
  const at = now.toISOString();
  const mine = (takenAt: string): Lease => ({
    session: caller.session,
    host: caller.host,
    machine: caller.machine,
    pid: caller.pid,
    taken_at: takenAt,
    heartbeat: at,
  });
  if (!current) return { kind: 'take', lease: mine(at) };
  if (holds(current, caller)) return { kind: 'renew', lease: mine(current.taken_at) };
  const ageMs = heartbeatAge(current, now);
  const otherMachine = current.machine !== caller.machine;
  const stale = !otherMachine && ageMs > staleMs;
  if (takeOver) return { kind: 'take', lease: mine(at), takenFrom: { holder: current, reason: 'take-over' } };
  if (stale) return { kind: 'take', lease: mine(at), takenFrom: { holder: current, reason: 'stale' } };
  return { kind: 'held', holder: current, ageMs, stale, otherMachine };
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
