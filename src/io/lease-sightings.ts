/**
 * Reads and writes this machine's notes of when it first saw other sessions'
 * leases as they are (their format: `formats/lease-sightings.ts`), kept in the
 * user's temporary folder, one file a repository (`sightingsFile`): they are
 * this machine's observations, not the repository's, and a command refused
 * for another session's lease writes nothing in the repository (rule 6). A
 * file that cannot be read is no notes, and one that cannot be written (or a
 * reboot that empties the folder) is let go: either way the next sighting is
 * a first one, which only delays a takeover, never hastens it.
 */
import { noteOf, parseSightings, serializeSightings, withSighting, type Sighting, type Sightings } from '../formats/lease-sightings.js';
import { SIGHTINGS_MAX_BYTES } from '../limits.js';
import type { Repo } from './repo.js';
import { DEFAULT_RUN } from '../formats/run-name.js';
import { readUserTemp, userTempFile, writeUserTemp } from './user-temp.js';

/**
 * The notes for the repository at `root`: `<tmp>/autopilot-<uid>/lease-sightings/<root as a name>.json`.
 * Two roots that come out as one name share a file; their leases differ, so each sighting replaces the
 * other's note and only starts again.
 */
export const sightingsFile = (root: string): string => userTempFile('lease-sightings', root);

/** The place of the local lease in the notes; a remote's is `remote:<name>`. */
export const LOCAL_LEASE_PLACE = 'lease.json';

/** The place of a run's local lease: the default run's as ever, a named run's `run:<name>` (runs of one repository share the notes' file). */
export const localLeasePlace = (repo: Pick<Repo, 'run'>): string => (repo.run === DEFAULT_RUN ? LOCAL_LEASE_PLACE : `run:${repo.run}`);

function readAll(file: string): Sightings {
  const text = readUserTemp(file, 'lease sightings file', SIGHTINGS_MAX_BYTES);
  const parsed = text === undefined ? undefined : parseSightings(text, file);
  return parsed && 'sightings' in parsed ? parsed.sightings : {};
}

/** What this machine noted of the lease at `place`. */
export function readSighting(repo: Repo, machine: string, place: string): Sighting | undefined {
  return noteOf(readAll(sightingsFile(repo.root)), machine, place);
}

/** Keeps this machine's note of the lease at `place`; true when it was written. */
export function noteSighting(repo: Repo, machine: string, place: string, sighting: Sighting): boolean {
  const file = sightingsFile(repo.root);
  return writeUserTemp(file, () => serializeSightings(withSighting(readAll(file), machine, place, sighting)));
}
