/**
 * Files this machine keeps for itself, outside any repository, in the user's
 * temporary folder (`<tmp>/autopilot-<uid>/<kind>/`): the sightings of other
 * sessions' leases, a large folder's matching names. They are derived: one that
 * cannot be read is none, and one that cannot be written (or a reboot that
 * empties the folder) is let go; a command never fails for them.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { removeLeftovers, writeFileAtomically } from './atomic-write.js';
import { checkFile } from './read-bounded.js';

/** `<tmp>/autopilot-<uid>/<kind>/<key as a name>.json`; two keys that come out as one name share a file. */
export function userTempFile(kind: string, key: string): string {
  const name = key.replace(/[^A-Za-z0-9._-]+/g, '_').slice(-150);
  return join(tmpdir(), `autopilot-${process.getuid?.() ?? 'user'}`, kind, `${name}.json`);
}

/** The file's text, when it is a regular file within `max` bytes. */
export function readUserTemp(file: string, what: string, max: number): string | undefined {
  if (checkFile(file, file, what, max)) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Writes the file whole (not fsynced: one lost to a power cut is only made again); true when it was written. */
export function writeUserTemp(file: string, text: () => string): boolean {
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileAtomically(file, text(), { fsync: false });
    removeLeftovers(file);
    return true;
  } catch {
    return false;
  }
}
