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

/** The index, up to date with the journal as it is now. */
export function loadJournalIndex(journalFile: string, indexFile: string): LoadedIndex {
  const fd = openFile(journalFile);
  if (fd === undefined) return { index: emptyJournalIndex(), stale: false };
  let size: number;
  let cached: JournalIndex | undefined;
  try {
    size = fstatSync(fd).size;
    cached = readIndexFile(indexFile);
    if (cached && (cached.size > size || cached.tail !== tailHash(fd, cached.size))) cached = undefined;
  } finally {
    closeSync(fd);
  }
  const index = cached ?? emptyJournalIndex();
  const from = index.size;
  scanInto(index, journalFile, from);
  const end = openFile(journalFile)!;
  try {
    index.tail = tailHash(end, index.size);
  } finally {
    closeSync(end);
  }
  return { index, stale: !cached || index.size - from > JOURNAL_INDEX_REFRESH_LAG_BYTES };
}
