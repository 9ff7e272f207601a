/**
 * A large folder's matching names are kept outside the repository
 * (io/listing-cache.ts) so the next command does not list 100,000 names
 * again; kept names are used only while the folder is exactly as it was, so
 * a name added, removed or renamed is seen by the very next call. Real
 * folders, large enough that their own size marks them as large on this
 * file system (the other notes are links to one file: names are what make a
 * folder large, and a link is a name without a file to write). The quiet
 * window passes on a faked clock (`Date` only: the folders' times are real).
 */
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { findMatches } from '../../../src/io/find-matches.js';
import { listingsFile } from '../../../src/io/listing-cache.js';
import { parseListings } from '../../../src/formats/listing-cache.js';
import { LARGE_LISTING_BYTES, LISTING_QUIET_MS } from '../../../src/limits.js';

const made: string[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const path of made.splice(0)) rmSync(path, { recursive: true, force: true });
});

/** A folder of `solution_draft_01.md`, `_02.md` and as many other notes as it takes for its size to pass the mark. */
function largeFolder(): { base: string; folder: string; others: number } {
  const base = mkdtempSync(join(tmpdir(), 'autopilot-listing-'));
  const folder = join(base, '01_solution');
  made.push(base);
  mkdirSync(folder);
  writeFileSync(join(folder, 'solution_draft_01.md'), 'a draft\n');
  writeFileSync(join(folder, 'solution_draft_02.md'), 'a draft\n');
  const note = join(base, 'note.md');
  writeFileSync(note, 'n\n');
  let others = 0;
  while (statSync(folder).size <= LARGE_LISTING_BYTES && others < 60_000) {
    for (let i = 0; i < 1000; i++) linkSync(note, join(folder, `a-note-that-is-not-a-draft-${String(others++).padStart(6, '0')}.md`));
  }
  expect(statSync(folder).size).toBeGreaterThan(LARGE_LISTING_BYTES);
  made.push(listingsFile(folder));
  return { base, folder, others };
}

/** The quiet window passes: `Date.now()` reads as it will `LISTING_QUIET_MS` + 200 ms from now, until `vi.useRealTimers()`. */
const quiet = () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + LISTING_QUIET_MS + 200);
};
const drafts = (base: string) => findMatches(base, '01_solution/solution_draft_*.md', 10);
const kept = (folder: string) => {
  const parsed = parseListings(readFileSync(listingsFile(folder), 'utf8'), 'listings');
  return 'listings' in parsed ? parsed.listings : undefined;
};

describe('the listing cache of a large folder', () => {
  it("keeps a quiet folder's matching names, reads them while the folder is as it was, and sees each of 3 changes (add, remove, rename) on the next call", () => {
    const { base, folder, others } = largeFolder();
    quiet();
    expect(drafts(base)).toEqual(['01_solution/solution_draft_01.md', '01_solution/solution_draft_02.md']);
    expect(kept(folder)?.segments).toEqual({ 'solution_draft_*.md': ['solution_draft_01.md', 'solution_draft_02.md'] });

    // Read, not listed: kept names that differ from the folder's (a hand edit of the cache) are what the next call answers.
    const listings = kept(folder)!;
    writeFileSync(listingsFile(folder), JSON.stringify({ ...listings, segments: { 'solution_draft_*.md': ['solution_draft_02.md'] } }));
    expect(drafts(base)).toEqual(['01_solution/solution_draft_02.md']);

    // Back to the real clock: each change below is fresh.
    vi.useRealTimers();
    writeFileSync(join(folder, 'solution_draft_03.md'), 'a draft\n');
    expect(drafts(base)).toEqual(['01_solution/solution_draft_01.md', '01_solution/solution_draft_02.md', '01_solution/solution_draft_03.md']);
    unlinkSync(join(folder, 'solution_draft_02.md'));
    expect(drafts(base)).toEqual(['01_solution/solution_draft_01.md', '01_solution/solution_draft_03.md']);
    renameSync(join(folder, 'solution_draft_03.md'), join(folder, 'solution_draft_04.md'));
    expect(drafts(base)).toEqual(['01_solution/solution_draft_01.md', '01_solution/solution_draft_04.md']);
    // The folder changed just now: nothing was kept for it since, and what is kept names another identity.
    expect(kept(folder)?.identity).toBe(listings.identity);
    expect(others).toBeGreaterThan(1000);
  });

  it('keeps nothing for a folder changed within the quiet window, and reads a broken cache file as none', () => {
    const { base, folder } = largeFolder();
    expect(drafts(base)).toEqual(['01_solution/solution_draft_01.md', '01_solution/solution_draft_02.md']);
    expect(existsSync(listingsFile(folder))).toBe(false);

    quiet();
    mkdirSync(dirname(listingsFile(folder)), { recursive: true });
    writeFileSync(listingsFile(folder), '{"identity": 12, "segments": "not names"}');
    expect(drafts(base)).toEqual(['01_solution/solution_draft_01.md', '01_solution/solution_draft_02.md']);
    expect(kept(folder)?.segments).toEqual({ 'solution_draft_*.md': ['solution_draft_01.md', 'solution_draft_02.md'] });
  });
});
