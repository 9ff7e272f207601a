/**
 * Keeps the journal index (its format: `formats/journal-index.ts`) up to date
 * with the journal, `_docs/_autopilot/cache/journal-index.json`: a missing or
 * stale index is rebuilt from the journal, and a fresh one is brought up to
 * date by reading only the lines added since. So `status` at a million events
 * reads a few kilobytes, not the journal.
 */
import { closeSync, fstatSync, readFileSync, readSync } from 'node:fs';
import { oldestFirstBatches } from '../engine/journal-batches.js';
import { emptyJournalIndex, indexEvent, parseJournalIndex, type JournalIndex } from '../formats/journal-index.js';
import { judgeLine } from '../formats/journal-line.js';
import { hashText } from '../hash.js';
import { JOURNAL_INDEX_REFRESH_LAG_BYTES, JOURNAL_INDEX_TAIL_BYTES } from '../limits.js';
import { openFile, scanLines } from './journal.js';
import { journalStat, trustedTail } from './journal-verdict.js';

/** Folds the batches on record from byte `start` into the index; the index covers up to the end of the last closed batch. */
function scanInto(index: JournalIndex, file: string, start: number): void {
  let covered = start;
  const batches = oldestFirstBatches();
  scanLines(
    file,
    (line, _n, complete, end) => {
      if (!complete) return;
      const verdict = judgeLine(line);
      if (!('entry' in verdict)) {
        if (batches.pending().length === 0) covered = end;
        return;
      }
      const { accepted } = batches.push(verdict.entry);
      for (const e of accepted) indexEvent(index, e);
      if (batches.pending().length === 0) covered = end;
    },
    start,
  );
  index.size = covered;
}

function tailHash(fd: number, size: number): string {
  const from = Math.max(0, size - JOURNAL_INDEX_TAIL_BYTES);
  const bytes = Buffer.alloc(size - from);
  readSync(fd, bytes, 0, bytes.length, from);
  return hashText(bytes.toString('latin1'));
}

function readIndexFile(file: string): JournalIndex | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // Missing or unreadable: it is only ever derived.
    return undefined;
  }
  const parsed = parseJournalIndex(text, file);
  return 'index' in parsed ? parsed.index : undefined;
}

export interface LoadedIndex {
  index: JournalIndex;
  /** Whether the cache file should be rewritten (rebuilt, or lagging far behind). */
  stale: boolean;
}

/**
 * The index, up to date with the journal as it is now. Its tail is checked by
 * hashing the journal's bytes before its size, unless the chain's verdict
 * holds for the journal as it is and names that hash (`io/journal-verdict.ts`).
 */
export function loadJournalIndex(journalFile: string, indexFile: string): LoadedIndex {
  const stat = journalStat(journalFile);
  const fd = openFile(journalFile);
  if (fd === undefined) return { index: emptyJournalIndex(), stale: false };
  let size: number;
  let cached: JournalIndex | undefined;
  let known: string | undefined;
  try {
    const now = fstatSync(fd, { bigint: true });
    size = Number(now.size);
    cached = readIndexFile(indexFile);
    // The verdict only for the file this descriptor reads: the same identity as the stat it was looked up with.
    known = cached && stat && now.ino === stat.ino && now.ctimeNs === stat.ctimeNs ? trustedTail(journalFile, now, cached.size) : undefined;
    if (cached && (cached.size > size || cached.tail !== (known ?? tailHash(fd, cached.size)))) cached = undefined;
  } finally {
    closeSync(fd);
  }
  const index = cached ?? emptyJournalIndex();
  const from = index.size;
  scanInto(index, journalFile, from);
  if (known !== undefined && index.size === from) return { index, stale: false };
  const end = openFile(journalFile)!;
  try {
    index.tail = tailHash(end, index.size);
  } finally {
    closeSync(end);
  }
  return { index, stale: !cached || index.size - from > JOURNAL_INDEX_REFRESH_LAG_BYTES };
}

/** The cached index's size and the hash of the journal before it, for the chain's verdict (the memo kept when it still names that size). */
export function indexTailNow(journalFile: string, indexFile: string, kept: [number, string] | undefined): [number, string] | undefined {
  const cached = readIndexFile(indexFile);
  if (cached === undefined) return undefined;
  if (kept !== undefined && kept[0] === cached.size && kept[1] === cached.tail) return kept;
  const fd = openFile(journalFile);
  if (fd === undefined) return undefined;
  try {
    return cached.size <= fstatSync(fd).size ? [cached.size, tailHash(fd, cached.size)] : undefined;
  } finally {
    closeSync(fd);
  }
}
