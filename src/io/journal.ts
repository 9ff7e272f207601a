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
import { closeSync, constants, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { newestFirstFilter, oldestFirstBatches } from '../engine/journal-batches.js';
import { InputError, type Problem } from '../errors.js';
import { chainHash, judgeLine, parseJournalLine, type StampedEntry } from '../formats/journal-line.js';
import {
  JOURNAL_BACKWARD_CHUNK_BYTES,
  JOURNAL_LINE_MAX_BYTES,
  JOURNAL_PROBLEM_LINES_MAX,
  JOURNAL_SCAN_CHUNK_BYTES,
  JOURNAL_TAIL_WINDOW_BYTES,
} from '../limits.js';
import { displayPath } from './repo.js';
import { crashPoint, crashWanted, diskFullError, diskFullWanted } from './crash-point.js';

/**
 * Appends whole lines. When the file does not end with a newline (a write a
 * crash cut short), the new lines start on a fresh line, so no event is ever
 * glued to a torn one. `O_NOFOLLOW`: a symlink planted as the journal is refused.
 * A write that fails (a full disk) cuts the file back to its length before
 * the batch, then throws (a later write of the same commit that fails undoes
 * the batch too: `io/undo.ts`). Returns that length.
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
      // A write on a descriptor names no path: this is the file that could not be written.
      (error as NodeJS.ErrnoException).path ??= file;
      throw error;
    }
  } finally {
    closeSync(fd);
  }
  return size;
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

/** The time of the journal's first event (the run's beginning): its first line only, undefined when it reads as none. */
export function firstEventAt(file: string): Date | undefined {
  const fd = openFile(file);
  if (fd === undefined) return undefined;
  try {
    const buffer = Buffer.alloc(4096);
    const text = buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).toString('utf8');
    const at = /"at":"([^"]{1,40})"/.exec(text.slice(0, text.indexOf('\n') < 0 ? undefined : text.indexOf('\n')))?.[1];
    const date = at === undefined ? undefined : new Date(at);
    return date && !Number.isNaN(date.getTime()) ? date : undefined;
  } finally {
    closeSync(fd);
  }
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
  /** With `chain`: every seam, where a merge put another branch's lines (see `readJournalHead`). */
  seams?: Seam[];
}

/** A seam in the whole journal: the line (1-based) where the chain breaks, and what explains it. */
export interface Seam {
  line: number;
  /** Its place among the entries read (the first entry at or after the line). */
  entry: number;
  /** The hash its `prev` names; '' for another journal's start (a first line after numbered ones). */
  names: string;
  /** A later `journal_merged` settles it: the line of that event. */
  settledAt?: number;
  /** The line it forked after (the last line before it whose hash it names), when there is one. */
  forkLine?: number;
  seq?: number;
}

/**
 * Every event on record, and a problem for every line that is not one (and
 * every batch a crash cut short). With `chain`, the chain too (`check`,
 * `log`): every seam, and a problem for each one no `journal_merged` settles
 * (a merge of two branches, or a line edited or removed by hand), and for
 * sequence numbers that repeat or go back where no seam explains them.
 */
export function readJournal(file: string, display: string, options: { chain?: boolean } = {}): JournalRead {
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
  const seams: Seam[] = [];
  // The hash of each seam line (what a `journal_merged` names).
  const hashOf = new Map<number, string>();
  const merged: { line: number; seams: string[] }[] = [];
  let before: { hash: string | undefined; seq: number | undefined } | undefined;
  let unreadable = 0;
  let firstUncounted: number | undefined;
  scanLines(file, (line, lineNo, complete) => {
    if (line.trim() === '') return;
    const parsed = parseJournalLine(line, display, lineNo);
    if (options.chain) {
      const hash = Buffer.byteLength(line) > JOURNAL_LINE_MAX_BYTES ? undefined : chainHash(line);
      const e = 'entry' in parsed ? parsed.entry : undefined;
      if (e && before) {
        const names =
          e.prev !== undefined
            ? before.hash !== undefined && e.prev !== before.hash
              ? e.prev
              : undefined
            : e.seq === 1 && before.seq !== undefined
              ? ''
              : undefined;
        if (names !== undefined) {
          seams.push({ line: lineNo, entry: entries.length, names, ...(typeof e.seq === 'number' ? { seq: e.seq } : {}) });
          if (hash !== undefined) hashOf.set(lineNo, hash);
        }
      }
      // A merge settled, or lines a crash tore cut out: the seams either names are explained.
      if ((e?.event === 'journal_merged' || e?.event === 'journal_repaired') && Array.isArray(e.seams)) merged.push({ line: lineNo, seams: e.seams });
      before = { hash, seq: typeof e?.seq === 'number' ? e.seq : undefined };
    }
    if ('entry' in parsed) {
      lineOf.set(parsed.entry, lineNo);
      const { accepted, dropped } = batches.push(parsed.entry);
      cut(dropped);
      // A loop, not push(...accepted): a batch of a million events would overflow the call stack as arguments.
      for (const e of accepted) entries.push(e);
    } else if (++unreadable <= JOURNAL_PROBLEM_LINES_MAX)
      problems.push(
        complete ? parsed.problem : { ...parsed.problem, message: 'the last journal line is torn (a write cut short by a crash); every reader skips it' },
      );
    else firstUncounted ??= lineNo;
  });
  if (firstUncounted !== undefined)
    problems.push({
      file: display,
      line: firstUncounted,
      message: `${(unreadable - JOURNAL_PROBLEM_LINES_MAX).toLocaleString('en')} more journal lines from here are not events (only the first ${JOURNAL_PROBLEM_LINES_MAX} are named one by one); every reader skips them`,
      expected: 'one event a line (`check --repair` cuts lines that are not JSON)',
    });
  cut(batches.pending());
  if (!options.chain) return { entries, problems };

  settleSeams(seams, hashOf, merged);
  findForkLines(file, seams);
  // A loop, not push(...): a journal of 300,000 seams would overflow the call stack as arguments.
  for (const p of chainProblems(display, entries, lineOf, seams)) problems.push(p);
  return { entries, problems, seams };
}

/**
 * Each seam's settler: the first later `journal_merged` (or
 * `journal_repaired`) naming its hash. By hash, so a journal of seams and
 * merges costs their sum, not their product.
 */
function settleSeams(seams: Seam[], hashOf: Map<number, string>, merged: { line: number; seams: string[] }[]): void {
  const settlers = new Map<string, number[]>();
  for (const m of merged) for (const hash of m.seams) (settlers.get(hash) ?? settlers.set(hash, []).get(hash)!).push(m.line);
  for (const seam of seams) {
    const hash = hashOf.get(seam.line);
    const settler = hash === undefined ? undefined : settlers.get(hash)?.find((line) => line > seam.line);
    if (settler !== undefined) seam.settledAt = settler;
  }
}

/** The fork points, in a second pass only when there are seams: the last line before each seam whose hash it names. */
function findForkLines(file: string, seams: Seam[]): void {
  const naming = new Map<string, Seam[]>();
  for (const seam of seams) if (seam.names !== '') (naming.get(seam.names) ?? naming.set(seam.names, []).get(seam.names)!).push(seam);
  if (naming.size > 0) {
    scanLines(file, (line, lineNo) => {
      if (line.trim() === '' || Buffer.byteLength(line) > JOURNAL_LINE_MAX_BYTES) return;
      const named = naming.get(chainHash(line));
      if (named) for (const seam of named) if (lineNo < seam.line) seam.forkLine = lineNo;
    });
  }
}

/** The chain's problems: seams no `journal_merged` settles, and sequence numbers that repeat or go back where no seam explains them. */
function chainProblems(display: string, entries: StampedEntry[], lineOf: Map<StampedEntry, number>, seams: Seam[]): Problem[] {
  const problems: Problem[] = [];
  // The first few are named one by one, as unreadable lines are; the rest counted in one problem, however many.
  let more = 0;
  let firstMore: number | undefined;
  const named = (line: number) => {
    if (problems.length < JOURNAL_PROBLEM_LINES_MAX) return true;
    more++;
    firstMore ??= line;
    return false;
  };
  const atSeam = new Set(seams.map((s) => s.line));
  seams.forEach((seam, i) => {
    if (seam.settledAt !== undefined || !named(seam.line)) return;
    const end = seams[i + 1]?.line;
    const lines = (from: number, to: number) => (from === to ? `line ${from}` : `lines ${from}–${to}`);
    const sideB = end ? lines(seam.line, end - 1) : `line ${seam.line} on`;
    if (seam.names === '' || seam.forkLine !== undefined) {
      const sideA = seam.names === '' ? lines(1, seam.line - 1) : lines(seam.forkLine! + 1, seam.line - 1);
      problems.push({
        file: display,
        line: seam.line,
        message: `a merge put another branch's events here: ${sideA} (side A) and ${sideB} (side B) both follow ${seam.names === '' ? 'an empty journal' : `line ${seam.forkLine}`}, so their sequence numbers repeat, and no \`journal_merged\` settles them`,
        expected:
          'one history: the next step command merges the two sides when they agree, and otherwise stops until a person keeps one (`autopilot decide A|B`)',
      });
    } else {
      problems.push({
        file: display,
        line: seam.line,
        message: `the chain breaks here: this line's \`prev\` names no line before it, so a line before it was edited or removed by hand (or a merge forked further back than this journal holds)`,
        expected: 'the journal as autopilot appended it (restore it from git: `git log -p -- _docs/_autopilot/journal.jsonl`)',
        received: `prev ${seam.names}`,
      });
    }
  });
  let last: StampedEntry | undefined;
  for (const e of entries) {
    if (typeof e.seq !== 'number') continue;
    const line = lineOf.get(e)!;
    if (last && e.seq <= (last.seq as number) && !atSeam.has(line) && named(line)) {
      problems.push({
        file: display,
        line,
        message: `event ${e.seq} follows event ${String(last.seq)} (line ${lineOf.get(last)}): sequence numbers repeat or go back where no merge explains it (renumbered by hand, or a merge of an older autopilot's journals)`,
        expected: 'each event numbered after the one before it',
        received: `seq ${e.seq}`,
      });
    }
    last = e;
  }
  if (firstMore !== undefined)
    problems.push({
      file: display,
      line: firstMore,
      message: `${more.toLocaleString('en')} more breaks in the chain or the numbering from here (only the first ${JOURNAL_PROBLEM_LINES_MAX} are named one by one)`,
      expected: 'the journal as autopilot appended it (restore it from git: `git log -p -- _docs/_autopilot/journal.jsonl`)',
    });
  return problems;
}

/**
 * Lines from the end of the file, newest first, until `visit` returns true or
 * `maxBytes` have been read: each line's text (blank lines skipped), or
 * `undefined` for a line longer than `JOURNAL_LINE_MAX_BYTES` (never held
 * whole). Reads backwards in chunks, so the cost is what the caller needs,
 * not the journal's length. Returns how many bytes were read and whether the
 * file's first line was reached.
 */
export function readLinesBackwards(
  file: string,
  visit: (line: string | undefined) => boolean | void,
  maxBytes = JOURNAL_TAIL_WINDOW_BYTES,
): { bytes: number; start: boolean } {
  const fd = openFile(file);
  if (fd === undefined) return { bytes: 0, start: true };
  const limit = JOURNAL_LINE_MAX_BYTES + 1;
  // A line's text, or undefined past the limit; true when the visitor is done. Blank lines are not lines.
  const emit = (bytes: Buffer | undefined): boolean => {
    if (bytes === undefined || bytes.length > limit) return visit(undefined) === true;
    const line = bytes.toString('utf8');
    return line.trim() !== '' && visit(line) === true;
  };
  try {
    const size = fstatSync(fd).size;
    let end = size;
    // The line whose start is not read yet: its bytes so far (the tail of the file's last line at first), or, once over the limit, none (`long`).
    let open = Buffer.alloc(0);
    let long = false;
    while (end > 0 && size - end < maxBytes) {
      const start = Math.max(0, end - JOURNAL_BACKWARD_CHUNK_BYTES);
      const piece = Buffer.alloc(end - start);
      readSync(fd, piece, 0, piece.length, start);
      end = start;
      const firstNl = piece.indexOf(0x0a);
      if (firstNl < 0 && end > 0) {
        // Still inside the open line.
        if (!long) open = Buffer.concat([piece, open]);
        if (open.length > limit) [open, long] = [Buffer.alloc(0), true];
        continue;
      }
      // The open line starts after this piece's last newline (or at the file's start): it is complete.
      const lastNl = piece.lastIndexOf(0x0a);
      const head = piece.subarray(lastNl + 1);
      if (emit(long ? undefined : Buffer.concat([head, open]))) return { bytes: size - end, start: false };
      // Whole lines between the first and the last newline, newest first.
      let to = lastNl;
      while (to > firstNl) {
        const from = piece.lastIndexOf(0x0a, to - 1);
        if (emit(piece.subarray(from + 1, to))) return { bytes: size - end, start: false };
        to = from;
      }
      open = firstNl < 0 ? Buffer.alloc(0) : piece.subarray(0, firstNl);
      long = false;
      if (end === 0 && firstNl >= 0) {
        if (emit(open)) return { bytes: size, start: true };
        open = Buffer.alloc(0);
      }
    }
    return { bytes: size - end, start: end === 0 };
  } finally {
    closeSync(fd);
  }
}

/**
 * Events from the end of the journal, newest first, until `visit` returns
 * true or `maxBytes` have been read. Reads backwards in chunks, so the cost
 * is what the caller needs, not the journal's length. Says whether it read back to the file's first line.
 */
export function readBackwards(file: string, visit: (entry: StampedEntry) => boolean | void, maxBytes = JOURNAL_TAIL_WINDOW_BYTES): { start: boolean } {
  const onRecord = newestFirstFilter();
  return readLinesBackwards(
    file,
    (line) => {
      if (line === undefined) return false;
      const verdict = judgeLine(line);
      return 'entry' in verdict && onRecord(verdict.entry) && visit(verdict.entry) === true;
    },
    maxBytes,
  );
}

/** The last `count` events, oldest first. */
export function lastEntries(file: string, count: number): StampedEntry[] {
  const out: StampedEntry[] = [];
  if (count > 0) readBackwards(file, (e) => out.push(e) >= count, Number.POSITIVE_INFINITY);
  return out.reverse();
}
