/**
 * A lease-sightings file (kept outside the repository, in the user's
 * temporary folder: `io/lease-sightings.ts`): what each machine has seen
 * of other sessions' leases — the lease as it was (its `mark`) and when that
 * machine first saw it so, by its own clock. Staleness is judged from these
 * notes where two clocks meet (docs/sessions.md): a lease is quiet for as long
 * as one machine has seen it unchanged, measured on that machine's clock
 * alone. Notes are kept per observing machine, so two machines sharing a
 * folder never read each other's clock. Derived: a file that
 * is not one is read as no notes (a new first sighting, which only delays a
 * takeover). Pure: text → notes or a problem; notes → text; one note replaced.
 */
import type { Problem } from '../errors.js';
import { SIGHTINGS_MAX_MACHINES, SIGHTINGS_MAX_PLACES } from '../limits.js';

/** What one machine noted of one lease. */
export interface Sighting {
  /** The lease as it was seen: its holder and heartbeat (and sequence), or the remote ref's commit. */
  mark: string;
  /** When this machine first saw the lease so, by its own clock (ISO). */
  since: string;
}

/** By observing machine id, then by place: `lease.json` (the local lease), `run:<name>` (a named run's) or `remote:<name>`. */
export type Sightings = Record<string, Record<string, Sighting>>;

/**
 * The notes, or a problem when the text is not a JSON object. A note is
 * checked where it is used (`noteOf`): a derived file is read for what it
 * can still say.
 */
export function parseSightings(text: string, file: string): { sightings: Sightings } | { problem: Problem } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  return typeof data === 'object' && data !== null && !Array.isArray(data)
    ? { sightings: data as Sightings }
    : { problem: { file, message: 'not lease sightings', expected: 'a JSON object: machine id, place, `{ mark, since }`', received: text.slice(0, 80) } };
}

/** This machine's note of a place, when it is one. */
export function noteOf(sightings: Sightings, machine: string, place: string): Sighting | undefined {
  const note = (sightings[machine] as Record<string, unknown> | undefined)?.[place] as Sighting | undefined;
  return typeof note?.mark === 'string' && typeof note.since === 'string' && !Number.isNaN(Date.parse(note.since)) ? note : undefined;
}

export function serializeSightings(sightings: Sightings): string {
  return JSON.stringify(sightings, null, 1) + '\n';
}

/**
 * The notes with one replaced: this machine's note of `place`. The machine
 * that writes comes first, and its place first, so the notes past the limits
 * that are let go are those written longest ago.
 */
export function withSighting(sightings: Sightings, machine: string, place: string, sighting: Sighting): Sightings {
  const first = <T>(record: Record<string, T>, key: string, value: T, max: number) =>
    Object.fromEntries(
      [[key, value] as const, ...Object.entries(typeof record === 'object' && record !== null ? record : {}).filter(([k]) => k !== key)].slice(0, max),
    );
  return first(sightings, machine, first(sightings[machine] ?? {}, place, sighting, SIGHTINGS_MAX_PLACES), SIGHTINGS_MAX_MACHINES);
}
