/**
 * Reads and writes `_docs/_autopilot/cache/lease-sightings.json` (its format:
 * `formats/lease-sightings.ts`): this machine's notes of when it first saw
 * other sessions' leases as they are. A cache of observations: a file that
 * cannot be read is no notes, and one that cannot be written is let go —
 * either way the next sighting is a first one, which only delays a takeover,
 * never hastens it.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { noteOf, parseSightings, serializeSightings, withSighting, type Sighting, type Sightings } from '../formats/lease-sightings.js';
import { SIGHTINGS_MAX_BYTES } from '../limits.js';
import { removeLeftovers, writeFileAtomically } from './atomic-write.js';
import { checkFile } from './read-bounded.js';
import { gatePath, type Repo } from './repo.js';

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
  return noteOf(readAll(repo.leaseSightingsFile), machine, place);
}

/** Keeps this machine's note of the lease at `place`; true when it was written. */
export function noteSighting(repo: Repo, machine: string, place: string, sighting: Sighting): boolean {
  const file = repo.leaseSightingsFile;
  try {
    gatePath(repo, file);
    mkdirSync(dirname(file), { recursive: true });
    // Not fsynced: a note lost to a power cut is only a later first sighting.
    writeFileAtomically(file, serializeSightings(withSighting(readAll(file), machine, place, sighting)), { fsync: false });
    removeLeftovers(file);
    return true;
  } catch {
    return false;
  }
}
