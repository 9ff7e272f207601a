/**
 * Reads and keeps the matching names of large folders (their format:
 * `formats/listing-cache.ts`), one file a folder in the user's temporary
 * folder: a `status` on a folder of 100,000 names then lists it once, not on
 * every call, and writes nothing in the repository. Only a folder that had been
 * quiet for `LISTING_QUIET_MS` when it was listed is kept. A file that cannot be
 * read is none, and one that cannot be written is let go: either way the folder
 * is listed again.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { namesOf, parseListings, serializeListings, withNames, type Listings } from '../formats/listing-cache.js';
import { LISTING_CACHE_MAX_BYTES, LISTING_CACHE_MAX_NAMES, LISTING_QUIET_MS } from '../limits.js';
import { readUserTemp, userTempFile, writeUserTemp } from './user-temp.js';

/** `<tmp>/autopilot-<uid>/listings/<folder as a name>.json`; two folders that come out as one name take turns. */
export const listingsFile = (folder: string): string => userTempFile('listings', resolve(folder));

/** The folder as it is now, to the nanosecond; and whether it had been quiet `LISTING_QUIET_MS` by `at`. */
export function folderIdentity(folder: string, at: number): { identity: string; quiet: boolean } | undefined {
  const stat = statSync(folder, { bigint: true, throwIfNoEntry: false });
  if (!stat) return undefined;
  const changed = Number((stat.mtimeNs > stat.ctimeNs ? stat.mtimeNs : stat.ctimeNs) / 1_000_000n);
  return { identity: `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`, quiet: changed <= at - LISTING_QUIET_MS };
}

function readAll(file: string): Listings | undefined {
  const text = readUserTemp(file, 'listing cache', LISTING_CACHE_MAX_BYTES);
  const parsed = text === undefined ? undefined : parseListings(text, file);
  return parsed && 'listings' in parsed ? parsed.listings : undefined;
}

/** The names of `folder` that match `segment`, as kept when the folder was as it is (`identity`). */
export function keptNames(folder: string, identity: string, segment: string): string[] | undefined {
  return namesOf(readAll(listingsFile(folder)), identity, segment);
}

/** Keeps a quiet folder's matching names (at most `LISTING_CACHE_MAX_NAMES`); true when they were written. */
export function keepNames(folder: string, identity: string, segment: string, names: string[]): boolean {
  if (names.length > LISTING_CACHE_MAX_NAMES) return false;
  const file = listingsFile(folder);
  return writeUserTemp(file, () => serializeListings(withNames(readAll(file), identity, segment, names)));
}
