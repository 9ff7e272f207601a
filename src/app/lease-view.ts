/** The lease as people and agents read it: who holds the repository, how long ago they were last seen, how to take over. */
import { formatAge, heartbeatAge, type LeaseVerdict } from '../engine/lease.js';
import { HeldError } from '../errors.js';
import type { Lease } from '../formats/lease.js';
import { readLease } from '../io/lease-file.js';
import { thisMachine } from '../io/machine.js';
import { displayPath, type Repo } from '../io/repo.js';

type Held = Extract<LeaseVerdict, { kind: 'held' }> | { kind: 'held'; holder: undefined; unreadable: string };

export function heldError(repo: Repo, verdict: Held): HeldError {
  const file = displayPath(repo.leaseFile, repo.root);
  if (!verdict.holder) {
    return new HeldError({
      message: `the lease file cannot be read (${'unreadable' in verdict ? verdict.unreadable : '?'}), so autopilot cannot tell who drives this repository`,
      file,
      hint: 'If no other session is working here, take the repository over: add `--take-over` to the command (journaled).',
    });
  }
  const h = verdict.holder;
  const age = formatAge(verdict.ageMs);
  const where = verdict.otherMachine ? `on another machine (${h.host})` : `on this machine (pid ${h.pid} was its last call)`;
  return new HeldError({
    message: `another session drives this repository: \`${h.session}\` ${where}, last seen ${age} ago`,
    file,
    hint: verdict.otherMachine
      ? 'A lease from another machine is never taken because it looks old. Once that session has stopped, take over with `--take-over` (journaled).'
      : `It becomes stale after a quiet spell (see \`lease.stale_after_minutes\`). If that session has stopped, take over now with \`--take-over\` (journaled).`,
    holder: { session: h.session, host: h.host, pid: h.pid, taken_at: h.taken_at, heartbeat: h.heartbeat, age_seconds: Math.round(verdict.ageMs / 1000) },
  });
}

export interface LeaseStatus {
  holder?: Lease;
  ageMs?: number;
  /** The holder is another session on this machine and has been quiet past the threshold. */
  stale?: boolean;
  mine?: boolean;
  problem?: string;
}

export function leaseStatus(repo: Repo, session: string, now: Date, staleMs: number): LeaseStatus {
  const onDisk = readLease(repo.leaseFile);
  if ('unreadable' in onDisk) return { problem: `the lease file cannot be read (${onDisk.unreadable})` };
  const holder = onDisk.lease;
  if (!holder) return {};
  const ageMs = heartbeatAge(holder, now);
  const mine = holder.session === session && holder.machine === thisMachine().machine;
  // Only a lease of this machine goes stale: another machine's is never taken for its age.
  return { holder, ageMs, mine, stale: !mine && holder.machine === thisMachine().machine && ageMs > staleMs };
}
