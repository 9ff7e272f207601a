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
import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { noteOf, parseSightings, serializeSightings, withSighting, type Sighting, type Sightings } from '../formats/lease-sightings.js';
import { SIGHTINGS_MAX_BYTES } from '../limits.js';
import { removeLeftovers, writeFileAtomically } from './atomic-write.js';
import { checkFile } from './read-bounded.js';
import type { Repo } from './repo.js';

/**
 * The notes for the repository at `root`: `<tmp>/autopilot-<uid>/lease-sightings/<root as a name>.json`.
 * Two roots that come out as one name share a file; their leases differ, so each sighting replaces the
 * other's note and only starts again.
 */
export function sightingsFile(root: string): string {
  const name = root.replace(/[^A-Za-z0-9._-]+/g, '_').slice(-150);
  return join(tmpdir(), `autopilot-${process.getuid?.() ?? 'user'}`, 'lease-sightings', `${name}.json`);
}

/** The place of the local lease in the notes; a remote's is `remote:<name>`. */
export const LOCAL_LEASE_PLACE = 'lease.json';

function readAll(file: string): Sightings {
  if (checkFile(file, file, 'lease sightings file', SIGHTINGS_MAX_BYTES)) return {};
  try {
    const parsed = parseSightings(readFileSync(file, 'utf8'), file);
    return 'sightings' in parsed ? parsed.sightings : {};
  } catch {
    return {};
  }
}

/** What this machine noted of the lease at `place`. */
export function readSighting(repo: Repo, machine: string, place: string): Sighting | undefined {
  return noteOf(readAll(sightingsFile(repo.root)), machine, place);
}

/** Keeps this machine's note of the lease at `place`; true when it was written. */
export function noteSighting(repo: Repo, machine: string, place: string, sighting: Sighting): boolean {
  const file = sightingsFile(repo.root);
  try {
    mkdirSync(dirname(file), { recursive: true });
    // Not fsynced: a note lost to a power cut is only a later first sighting.
    writeFileAtomically(file, serializeSightings(withSighting(readAll(file), machine, place, sighting)), { fsync: false });
    removeLeftovers(file);
    return true;
  } catch {
    return false;
  }
}
