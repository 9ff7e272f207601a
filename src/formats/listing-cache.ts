/**
 * A listing-cache file (kept outside the repository, in the user's temporary
 * folder: `io/listing-cache.ts`): for one large folder, the names that matched
 * each glob segment, and the folder as it was when it was listed (its
 * `identity`: device, inode, size and the nanosecond times of its last change).
 * A name added to, removed from or renamed in a folder changes its identity, so
 * names kept under an identity the folder still has are its names now. Derived:
 * a file that is not one is read as none (the folder is listed again). Pure:
 * text → listings or a problem; listings → text; one segment's names read or kept.
 */
import type { Problem } from '../errors.js';

export interface Listings {
  identity: string;
  /** By glob segment (`solution_draft_*.md`): the names that match, sorted. */
  segments: Record<string, string[]>;
}

export function parseListings(text: string, file: string): { listings: Listings } | { problem: Problem } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  const listings = data as Listings | undefined;
  const valid =
    typeof listings === 'object' &&
    listings !== null &&
    typeof listings.identity === 'string' &&
    typeof listings.segments === 'object' &&
    listings.segments !== null &&
    Object.values(listings.segments).every((names) => Array.isArray(names) && names.every((n) => typeof n === 'string'));
  return valid
    ? { listings }
    : { problem: { file, message: 'not a listing cache', expected: 'a JSON object: `identity`, and `segments` of name lists', received: text.slice(0, 80) } };
}

export function serializeListings(listings: Listings): string {
  return JSON.stringify(listings) + '\n';
}

/** The names kept for a segment, when they were listed from the folder as it is (`identity`). */
export function namesOf(listings: Listings | undefined, identity: string, segment: string): string[] | undefined {
  return listings?.identity === identity && Object.hasOwn(listings.segments, segment) ? listings.segments[segment] : undefined;
}

/** The listings with one segment's names kept; those of a folder that has changed since are let go. */
export function withNames(listings: Listings | undefined, identity: string, segment: string, names: string[]): Listings {
  const kept = listings?.identity === identity ? listings.segments : {};
  return { identity, segments: { ...kept, [segment]: names } };
}
