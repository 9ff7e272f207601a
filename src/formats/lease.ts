/**
 * The lease file, `_docs/_autopilot/lease.json`: which session drives the
 * repository, from which machine, and when it was last seen (rule 6; the
 * rules are `engine/lease.ts`). Machine-local and git-ignored, but a file a
 * person may edit or delete: a broken one is reported, never trusted. Pure:
 * text → lease or a problem (its message short, as it is shown inside "the
 * lease file cannot be read (…)"); lease → text.
 *
 * Also the remote lease, for sessions on several machines (docs/sessions.md):
 * `lease.json` in the commit a shared remote's `refs/autopilot/lease` names
 * (read and pushed by `git/remote-lease.ts`), the same facts without this
 * machine's processes, every field a non-empty string and both times ISO.
 */
import type { Problem } from '../errors.js';

/** A process, named so that a reused pid is not taken for it (`io/conversation.ts`). */
export interface ProcessRef {
  pid: number;
  /** When it started, as the system tells it (clock ticks since boot on Linux, a date on macOS). */
  start: string;
}

export interface Lease {
  session: string;
  host: string;
  /** The machine id (`io/machine.ts`): what "this machine" means, whatever the host is called. */
  machine: string;
  /** The process of the holder's last call. */
  pid: number;
  /** The process of the holder's conversation: the agent client above it, or a person's shell (docs/sessions.md). */
  conversation?: ProcessRef;
  taken_at: string;
  heartbeat: string;
  /**
   * The holder's own count of its heartbeats: 1 when it took the lease, one
   * more at each renewal. A sighting names the lease by it as well as by the
   * heartbeat (`engine/lease.ts`), so a renewal is seen as one even from a
   * clock that repeats a time. Absent in leases older versions wrote (0).
   */
  beat?: number;
}

const EXPECTED = 'a JSON object with `session`, `host`, `machine`, `pid`, `taken_at` and `heartbeat`';

const isProcess = (v: unknown): v is ProcessRef =>
  typeof v === 'object' && v !== null && typeof (v as ProcessRef).pid === 'number' && typeof (v as ProcessRef).start === 'string';

function isLease(value: unknown): value is Lease {
  if (typeof value !== 'object' || value === null) return false;
  const l = value as Record<string, unknown>;
  return (
    typeof l.session === 'string' &&
    typeof l.host === 'string' &&
    typeof l.machine === 'string' &&
    typeof l.pid === 'number' &&
    typeof l.taken_at === 'string' &&
    typeof l.heartbeat === 'string' &&
    (l.beat === undefined || (Number.isSafeInteger(l.beat) && (l.beat as number) >= 0)) &&
    (l.conversation === undefined || isProcess(l.conversation))
  );
}

export function parseLease(text: string, file: string): { lease: Lease } | { problem: Problem } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: { file, message: 'not JSON', expected: EXPECTED, received: text.slice(0, 80) } };
  }
  return isLease(value) ? { lease: value } : { problem: { file, message: 'not a lease', expected: EXPECTED, received: text.slice(0, 80) } };
}

export function serializeLease(lease: Lease): string {
  return JSON.stringify(lease) + '\n';
}

/** The lease kept on a shared remote: who drives, from which machine, since when, last seen when. */
export interface RemoteLease {
  /** Who drives (`--session`). */
  session: string;
  /** The host name, for people. */
  host: string;
  /** A stable id of the machine, for telling hosts of the same name apart. */
  machine: string;
  /** ISO time the session first took the lease. */
  taken_at: string;
  /** ISO time of the last renewal. */
  heartbeat: string;
}

const REMOTE_FIELDS = ['session', 'host', 'machine', 'taken_at', 'heartbeat'] as const;
const REMOTE_EXPECTED = 'a JSON object with `session`, `host`, `machine`, `taken_at` and `heartbeat`, each a non-empty string, the times in ISO form';

/** The remote lease a text holds, its own five fields only (others are left out), or a problem naming the file. */
export function parseRemoteLease(text: string, file: string): { lease: RemoteLease } | { problem: Problem } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: { file, message: 'not JSON', expected: REMOTE_EXPECTED, received: text.slice(0, 80) } };
  }
  const record = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const lease: Partial<RemoteLease> = {};
  for (const key of REMOTE_FIELDS) if (typeof record[key] === 'string' && record[key] !== '') lease[key] = record[key];
  const complete = REMOTE_FIELDS.every((key) => lease[key] !== undefined);
  if (!complete || Number.isNaN(Date.parse(lease.taken_at!)) || Number.isNaN(Date.parse(lease.heartbeat!)))
    return { problem: { file, message: 'not a lease', expected: REMOTE_EXPECTED, received: text.slice(0, 80) } };
  return { lease: lease as RemoteLease };
}

/** The remote lease as its commit holds it: its five fields in order, two spaces deep, a newline at the end. */
export function serializeRemoteLease(lease: RemoteLease): string {
  const { session, host, machine, taken_at, heartbeat } = lease;
  return `${JSON.stringify({ session, host, machine, taken_at, heartbeat }, null, 2)}\n`;
}
