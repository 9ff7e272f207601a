/**
 * `_docs/_autopilot/journal.jsonl`: append-only, one JSON event a line. Lines
 * are only ever added (whole lines, then fsync); git merges the file with the
 * union driver, so two branches' histories both survive.
 *
 * Readers skip what is not an event (a torn last line after a crash, a line a
 * bad merge mangled, valid JSON that is not an event) and `check` names it.
 * The whole file is read only by `check`, `log` without `-n` and an index
 * rebuild, in fixed-size chunks; every per-command read comes from the end.
 */
import { closeSync, constants, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, statSync, truncateSync, writeSync } from 'node:fs';
import { newestFirstFilter, oldestFirstBatches } from '../engine/batches.js';
import { InputError, type Problem } from '../errors.js';
import { judgeLine, parseJournalLine, type StampedEntry } from '../formats/journal-line.js';
import { JOURNAL_BACKWARD_CHUNK_BYTES, JOURNAL_LINE_MAX_BYTES, JOURNAL_SCAN_CHUNK_BYTES, JOURNAL_TAIL_WINDOW_BYTES } from '../limits.js';
import { displayPath } from './repo.js';
import { crashPoint, crashWanted, diskFullError, diskFullWanted } from './crash-point.js';

/**
 * Appends whole lines. When the file does not end with a newline (a write a
 * crash cut short), the new lines start on a fresh line, so no event is ever
 * glued to a torn one. `O_NOFOLLOW`: a symlink planted as the journal is refused.
 * A write that fails (a full disk) cuts the file back to its length before
 * the batch, then throws. Returns that length, for the caller to undo the
 * batch if a later write of the same command fails.
 */
export function appendJournal(file: string, text: string): number {
  if (text === '') return statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  const fd = openSync(file, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
  const size = fstatSync(fd).size;
  try {
    let data = Buffer.from(text, 'utf8');
    if (size > 0 && byteAt(fd, size - 1) !== 0x0a) data = Buffer.concat([Buffer.from('\n'), data]);
    if (crashWanted('mid-journal')) {
      writeSync(fd, data, 0, Math.max(1, Math.floor(data.length / 2)));
      crashPoint('mid-journal');
    }
    try {
      if (diskFullWanted('journal')) {
        writeSync(fd, data, 0, Math.max(1, Math.floor(data.length / 2)));
        throw diskFullError(file);
      }
      for (let offset = 0; offset < data.length;) offset += writeSync(fd, data, offset, data.length - offset);
      fsyncSync(fd);
    } catch (error) {
      // A full disk (or any failed write) mid-batch: the journal is cut back to its length before it, so no line is left half-written.
      ftruncateSync(fd, size);
      fsyncSync(fd);
      throw error;
    }
  } finally {
    closeSync(fd);
  }
  return size;
}

/** Cuts the journal back to `size`: a batch whose pointer could not be written is undone, so the record never runs ahead of a failed command. */
export function truncateJournal(file: string, size: number): void {
  truncateSync(file, size);
}

function byteAt(fd: number, position: number): number | undefined {
  const one = Buffer.alloc(1);
  return readSync(fd, one, 0, 1, position) === 1 ? one[0] : undefined;
}

/** Opens for reading; undefined when the file does not exist. Any other failure is an error the caller reports. */
export function openFile(file: string): number | undefined {
  let fd: number;
  try {
    // O_NONBLOCK: a named pipe planted here must not hang the command (it is refused below).
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') {
      throw new InputError(
        {
          file: displayPath(file),
          message: 'this file is a symlink; autopilot reads and writes its own files, never through links',
          expected: 'a plain file',
          received: 'a symlink',
        },
        'Replace the link with the file itself, or move it aside.',
        'outside_repository',
      );
    }
    throw error;
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw new InputError(
      {
        file: displayPath(file),
        message: 'this is not a regular file; autopilot reads only its own files',
        expected: 'a plain file',
        received: 'a folder, pipe or device',
      },
      'Move it aside; autopilot writes a new one.',
    );
  }
  return fd;
}

/**
 * Calls `visit` for each line from byte `start` (a line start), with its
 * 1-based number counted from there and the byte offset just past it. Works
 * on bytes in fixed-size chunks: memory stays flat whatever the journal's
 * size, and offsets are exact whatever the text holds.
 */
export function scanLines(file: string, visit: (line: string, lineNo: number, complete: boolean, end: number) => void, start = 0): void {
  const fd = openFile(file);
  if (fd === undefined) return;
  const keep = JOURNAL_LINE_MAX_BYTES + 1;
  try {
    const buffer = Buffer.alloc(JOURNAL_SCAN_CHUNK_BYTES);
    let position = start;
    // The unfinished line so far: at most `keep` bytes of its head (a longer line is refused whatever its tail).
    let carry: Buffer = Buffer.alloc(0);
    let lineNo = 0;
    for (;;) {
      const read = readSync(fd, buffer, 0, JOURNAL_SCAN_CHUNK_BYTES, position);
      if (read === 0) break;
      const chunk = buffer.subarray(0, read);
      let from = 0;
      for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, from)) {
        const head = carry.length > 0 ? Buffer.concat([carry, chunk.subarray(from, nl)]) : chunk.subarray(from, nl);
        visit(head.toString('utf8', 0, Math.min(head.length, keep)), ++lineNo, true, position + nl + 1);
        carry = Buffer.alloc(0);
        from = nl + 1;
      }
      if (from < read && carry.length < keep) carry = Buffer.concat([carry, chunk.subarray(from, Math.min(read, from + keep - carry.length))]);
      position += read;
    }
    if (carry.length > 0) visit(carry.toString('utf8'), ++lineNo, false, position);
  } finally {
    closeSync(fd);
  }
}

export interface JournalRead {
  entries: StampedEntry[];
  problems: Problem[];
}

/** Every event on record, and a problem for every line that is not one (and every batch a crash cut short). */
export function readJournal(file: string, display: string): JournalRead {
  const entries: StampedEntry[] = [];
  const problems: Problem[] = [];
  const batches = oldestFirstBatches();
  const lineOf = new Map<StampedEntry, number>();
  const cut = (dropped: StampedEntry[]) => {
    if (dropped.length === 0) return;
    problems.push({
      file: display,
      line: lineOf.get(dropped[0]!)!,
      message: `events ${dropped[0]!.seq}–${dropped.at(-1)!.seq} are a command a crash cut short (its last event never reached the file); every reader leaves them out`,
      expected: "each command's events ending with one that carries `pointer`",
    });
  };
  scanLines(file, (line, lineNo, complete) => {
    if (line.trim() === '') return;
    const parsed = parseJournalLine(line, display, lineNo);
    if ('entry' in parsed) {
      lineOf.set(parsed.entry, lineNo);
      const { accepted, dropped } = batches.push(parsed.entry);
      cut(dropped);
      entries.push(...accepted);
    } else
      problems.push(
        complete ? parsed.problem : { ...parsed.problem, message: 'the last journal line is torn (a write cut short by a crash); every reader skips it' },
      );
  });
  cut(batches.pending());
  return { entries, problems };
}

/**
 * Events from the end of the journal, newest first, until `visit` returns
 * true or `maxBytes` have been read. Reads backwards in chunks, so the cost
 * is what the caller needs, not the journal's length.
 */
export function readBackwards(file: string, visit: (entry: StampedEntry) => boolean | void, maxBytes = JOURNAL_TAIL_WINDOW_BYTES): void {
  const fd = openFile(file);
  if (fd === undefined) return;
  const onRecord = newestFirstFilter();
  try {
    const size = fstatSync(fd).size;
    const chunk = JOURNAL_BACKWARD_CHUNK_BYTES;
    let end = size;
    let carry = Buffer.alloc(0);
    while (end > 0 && size - end < maxBytes) {
      const start = Math.max(0, end - chunk);
      const piece = Buffer.alloc(end - start);
      readSync(fd, piece, 0, piece.length, start);
      end = start;
      let data = Buffer.concat([piece, carry]);
      // Complete lines are those after the first newline (or all of it at the file's start).
      const cut = end === 0 ? -1 : data.indexOf(0x0a);
      if (cut < 0 && end > 0) {
        carry = data.length > JOURNAL_LINE_MAX_BYTES * 2 ? Buffer.alloc(0) : data;
        continue;
      }
      const lines = data
        .subarray(cut + 1)
        .toString('utf8')
        .split('\n');
      carry = cut < 0 ? Buffer.alloc(0) : data.subarray(0, cut);
      data = Buffer.alloc(0);
      for (let i = lines.length - 1; i >= 0; i--) {
        const line = lines[i]!;
        if (line.trim() === '') continue;
        const verdict = judgeLine(line);
        if ('entry' in verdict && onRecord(verdict.entry) && visit(verdict.entry) === true) return;
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** The last `count` events, oldest first. */
export function lastEntries(file: string, count: number): StampedEntry[] {
  const out: StampedEntry[] = [];
  if (count > 0) readBackwards(file, (e) => out.push(e) >= count, Number.POSITIVE_INFINITY);
  return out.reverse();
}
