/**
 * The end of the journal, which is all a command needs from it: the last
 * sequence number, the last pointer a command left (what a lost or stale
 * pointer is rebuilt from), the chain hash of the last line (the next line's
 * `prev`), and a merge not yet settled (a fork). Read backwards and bounded,
 * so it costs the same at a million events as at ten.
 *
 * The chain is checked over the last `JOURNAL_CHAIN_WINDOW_BYTES`: a line
 * whose `prev` is not the hash of the line before it is a seam, where a merge
 * put another branch's lines (a line with sequence number 1 after other
 * numbered lines is one too: another journal's start). Every line in the
 * window is hashed, even one numbered one past the line before it: after a
 * merge not yet settled the numbers repeat, so a later branch forked from
 * inside its side A can start one past the line before it (about 1 ms a
 * read, measured cold). A seam that no later
 * `journal_merged` names is a fork: its fork point, the line whose hash the
 * seam line names, is looked for within `JOURNAL_FORK_WINDOW_BYTES`, and the
 * two sides read (`engine/fork.ts` judges them). A seam whose fork point is
 * not found there is a break in the chain (a line edited or removed by hand,
 * or a fork further back than that): said, not judged.
 *
 * The chain hashes come from the chain's verdict when it holds for the
 * journal as it is (`io/journal-verdict.ts`: its identity unchanged since a
 * writing command hashed the same lines), so a command that writes nothing
 * hashes nothing; otherwise every line is hashed as above.
 *
 * The journal index (`formats/journal-index.ts`) comes from the end too: the
 * newest line in the window that carries it, with the events after it folded
 * in. Not when a merge is not settled or the chain is broken: then the lines
 * near the end do not stand for the whole file, and the caller derives it.
 */
import type { JournalEvent, KnownEntry, StampedEntry } from '../formats/journal-line.js';
import { chainHash, judgeLine, prevOf } from '../formats/journal-line.js';
import { indexEvent, indexFromCarried, isCarriedIndex, type JournalIndex } from '../formats/journal-index.js';
import type { JournalFork, ForkSide, RecordSeen } from '../engine/fork.js';
import type { Opening } from '../engine/attempt-start.js';
import { newestFirstFilter, oldestFirstBatches } from '../engine/journal-batches.js';
import { readBackwards, readLinesBackwards } from './journal.js';
import { fileMemos, identityOf, journalStat, keptFileMemos, olderThanVerdict, positionMemo, tailMemo, trustedHashes, writeVerdict } from './journal-verdict.js';
import { indexTailNow } from './journal-index.js';
import { JOURNAL_CHAIN_WINDOW_BYTES, JOURNAL_FORK_WINDOW_BYTES, JOURNAL_HEAD_WINDOW_BYTES, JOURNAL_STEP_WINDOW_BYTES } from '../limits.js';

export interface JournalHead {
  /** The highest `seq` near the end (on both sides of a fork); 0 for an empty journal or one from before sequence numbers. */
  lastSeq: number;
  /** The newest entry that carries the pointer its command left: the last of the last command's batch. */
  record?: RecordSeen & { event?: string; entry?: StampedEntry };
  /** The progress commit said made after that record (`progress_commit_made`, a batch of its own), by the seq it settles. */
  settled?: number;
  /** The chain hash of the file's last line: what the next line appended names as `prev` (absent for an empty file, or a last line over the limit). */
  last?: string;
  /** A merge not yet settled. */
  fork?: JournalFork;
  /** A seam whose fork point is not within reach: the chain breaks there (a hand edit, or a fork long ago). */
  broken?: { seq?: number; seam: string };
  /** The journal index as of the end, when a line near it carries one and nothing makes it untrustworthy. */
  index?: CarriedHead;
  /** Bytes read from the end. */
  bytes: number;
}

export interface CarriedHead {
  /** Journal bytes after the line that carries it: a writer carries it again once they pass `JOURNAL_INDEX_CARRY_BYTES`. */
  bytesAfter: number;
  /** The carried index with the events after it folded in (a fresh copy each call). */
  read: () => JournalIndex;
}

const isOneOf = <E extends JournalEvent>(e: StampedEntry, events: ReadonlySet<E>): e is Extract<KnownEntry, { event: E }> =>
  (events as ReadonlySet<string>).has(e.event);

interface Line {
  /** Undefined for a line over the limit. */
  text?: string;
  /** Its event, once judged (null: not one). */
  entry?: StampedEntry | null;
  /** Its chain hash, computed when needed (`hashOf`). */
  hash?: string;
  prev?: string;
  /** The seam this line was written after while it was not settled (`unsettled`). */
  unsettled?: string;
}

interface Seam {
  /** Index of the seam line (newest first). */
  at: number;
  hash: string;
  /** The hash the seam line names ('' for another journal's start). */
  names: string;
  settled: boolean;
  /** Index of its fork point once found. */
  forkAt?: number;
}

const entryOf = (line: Line | undefined): StampedEntry | undefined => {
  if (line?.text === undefined) return undefined;
  if (line.entry === undefined) {
    const verdict = judgeLine(line.text);
    line.entry = 'entry' in verdict ? verdict.entry : null;
  }
  return line.entry ?? undefined;
};

const hashOf = (line: Line): string | undefined => (line.text === undefined ? undefined : (line.hash ??= chainHash(line.text)));

/** A seam between `newer` and the line before it (`older`), or undefined. */
function seamBetween(newer: Line, older: Line): string | undefined {
  if (newer.text === undefined || older.text === undefined) return undefined;
  if (newer.prev !== undefined) {
    if (newer.prev === hashOf(older)) return undefined;
    // Confirmed on the parsed line: only an event's `prev` counts.
    return entryOf(newer)?.prev === newer.prev ? newer.prev : undefined;
  }
  // No `prev`: an older autopilot's line, or a journal's first line. A first line after numbered lines is another journal's start.
  if (!newer.text.includes('"seq":1,')) return undefined;
  return entryOf(newer)?.seq === 1 && typeof entryOf(older)?.seq === 'number' ? '' : undefined;
}

/**
 * The head of the journal: its lines read backwards, each noted as it comes
 * (the pointer record, settled seams, seams, fork points), until enough is
 * read; then the head, with the fork or the break the window shows.
 */
export function readJournalHead(file: string): JournalHead {
  const before = journalStat(file);
  const known = trustedHashes(file, before);
  if (known) {
    const { head } = scanJournal(file, known);
    // The journal changed while it was read: its lines are hashed after all.
    const after = journalStat(file);
    if (after !== undefined && identityOf(after) === identityOf(before!)) return head;
  }
  return scanJournal(file).head;
}

/**
 * After a command's writes, under its lock: the chain's verdict recorded for
 * the journal as it is now (`io/journal-verdict.ts`), with the text and hash
 * of the pointer position the command wrote, unless the one on disk already
 * holds both. Its lines are hashed afresh, and the verdict kept only when
 * the journal did not change while they were read.
 */
export function keepJournalVerdict(file: string, indexFile: string, position?: [string, string]): void {
  const before = journalStat(file);
  if (before === undefined) return;
  const kept = positionMemo(file);
  const samePosition = position === undefined || (kept !== undefined && kept[0] === position[0]);
  // The memos hold for the journal whose identity the verdict names: reused only while it holds.
  const trusted = trustedHashes(file, before) !== undefined;
  // The index cache unchanged since the verdict: its memo stands, and the cache (large for a long history) is not read.
  const tail = trusted && olderThanVerdict(file, indexFile) ? tailMemo(file) : indexTailNow(file, indexFile, trusted ? tailMemo(file) : undefined);
  const files = fileMemos(file);
  if (trusted && samePosition && tail === tailMemo(file) && files === undefined) return;
  const { hashes } = scanJournal(file);
  const after = journalStat(file);
  if (after !== undefined && identityOf(after) === identityOf(before))
    writeVerdict(file, before, hashes, { position: position ?? kept, indexTail: tail, files: files ?? keptFileMemos(file) });
}

/** The head, and the chain hashes of the lines read (newest first; undefined where none was needed). `known`: hashes a trusted verdict gives. */
function scanJournal(file: string, known?: readonly (string | undefined)[]): { head: JournalHead; hashes: (string | undefined)[] } {
  const scan = newScan(known);
  const { start } = readLinesBackwards(file, (text) => takeLine(scan, text), JOURNAL_FORK_WINDOW_BYTES);
  const head = headOf(scan, start);
  return { head, hashes: scan.lines.map((l) => l.hash) };
}

/** What the backwards read has seen so far, newest line first. */
interface Scan {
  lines: Line[];
  seams: Seam[];
  /** The seams whose fork point is not found yet, by the hash they name. */
  looking: Map<string, Seam[]>;
  /** Seams a `journal_merged` or `journal_repaired` names. */
  settled: Set<string>;
  lastSeq: number;
  record?: JournalHead['record'];
  settledOwed?: number;
  recordDone: boolean;
  onRecord: (e: StampedEntry) => boolean;
  /** Bytes read so far. */
  read: number;
  /** The newest seam not settled: the fork being read. */
  open?: Seam;
  /** The newest line that carries the journal index: its place, and the bytes after it. */
  carried?: { at: number; bytesAfter: number };
  /** Chain hashes a trusted verdict gives, by line (newest first). */
  known?: readonly (string | undefined)[];
}

const newScan = (known?: readonly (string | undefined)[]): Scan => ({
  known,
  lines: [],
  seams: [],
  looking: new Map(),
  settled: new Set(),
  lastSeq: 0,
  recordDone: false,
  onRecord: newestFirstFilter(),
  read: 0,
});

/** One more line, going back: noted, then whether enough is read (true stops the read). */
function takeLine(scan: Scan, text: string | undefined): boolean {
  const i = scan.lines.length;
  const line: Line = text === undefined ? {} : { text };
  if (text !== undefined) {
    const hash = scan.known?.[i];
    if (hash !== undefined) line.hash = hash;
    const prev = prevOf(text);
    if (prev !== undefined) line.prev = prev;
    if (text.includes('"unsettled"')) {
      const u = entryOf(line)?.unsettled;
      if (u !== undefined) line.unsettled = u;
    }
  }
  scan.lines.push(line);
  if (!scan.carried && text?.includes('"journal_index"') && isCarriedIndex(entryOf(line)?.journal_index)) scan.carried = { at: i, bytesAfter: scan.read };
  scan.read += (text?.length ?? JOURNAL_CHAIN_WINDOW_BYTES) + 1;
  if (!scan.recordDone && text !== undefined) noteRecord(scan, line);
  if (text?.includes('"journal_merged"') || text?.includes('"journal_repaired"')) {
    const e = entryOf(line);
    if ((e?.event === 'journal_merged' || e?.event === 'journal_repaired') && Array.isArray(e.seams)) for (const h of e.seams) scan.settled.add(h);
  }
  if (i > 0) noteSeam(scan, i);
  noteForkPoint(scan, line, i);
  return enoughRead(scan);
}

/** The highest seq, a settled owed commit, and the newest entry that carries a pointer, among the events on record. */
function noteRecord(scan: Scan, line: Line): void {
  const e = entryOf(line);
  if (!e || !scan.onRecord(e)) return;
  if (typeof e.seq === 'number' && e.seq > scan.lastSeq) scan.lastSeq = e.seq;
  if (e.event === 'progress_commit_made' && typeof e.owed === 'number' && scan.settledOwed === undefined) scan.settledOwed = e.owed;
  if (e.pointer && typeof e.seq === 'number') {
    scan.record = { seq: e.seq, pointer: e.pointer, at: e.at, session: e.session, key: e.key, event: e.event, entry: e };
    scan.recordDone = true;
  }
}

/** A seam between the line before (newer) and line `i`: kept, and its fork point looked for. */
function noteSeam(scan: Scan, i: number): void {
  const names = seamBetween(scan.lines[i - 1]!, scan.lines[i]!);
  if (names === undefined) return;
  const hash = hashOf(scan.lines[i - 1]!)!;
  const seam: Seam = { at: i - 1, hash, names, settled: scan.settled.has(hash) };
  scan.seams.push(seam);
  if (!seam.settled) scan.open ??= seam;
  if (names !== '') (scan.looking.get(names) ?? scan.looking.set(names, []).get(names)!).push(seam);
}

/**
 * Fork points: the nearest line, going back, whose hash a seam names (lines
 * are hashed only while one is looked for). By hash, not seam by seam: a
 * window of 100,000 seams costs a look-up a line, not 100,000.
 */
function noteForkPoint(scan: Scan, line: Line, i: number): void {
  if (scan.looking.size === 0) return;
  const hash = hashOf(line);
  const found = hash === undefined ? undefined : scan.looking.get(hash);
  if (found) {
    for (const s of found) s.forkAt = i;
    scan.looking.delete(hash!);
  }
}

/** Enough is read once the record is found, the chain window is covered, and an open fork's point and base are found (within the fork window). */
function enoughRead(scan: Scan): boolean {
  const { read, open } = scan;
  if (!scan.recordDone && read < JOURNAL_HEAD_WINDOW_BYTES) return false;
  if (read < JOURNAL_CHAIN_WINDOW_BYTES) return false;
  if (open && read < JOURNAL_FORK_WINDOW_BYTES) {
    if (open.names === '') return false;
    if (open.forkAt === undefined) return false;
    // The base: a pointer record at or before the fork point.
    return baseRecord(scan.lines, open.forkAt) !== undefined;
  }
  return true;
}

/** The head the read lines make: with the carried index when no merge is open, else the break or the fork they show. */
function headOf(scan: Scan, start: boolean): JournalHead {
  const { lines, record, settledOwed } = scan;
  const head: JournalHead = {
    lastSeq: scan.lastSeq,
    record,
    settled: settledOwed,
    last: lines[0] && hashOf(lines[0]),
    bytes: scan.read,
  };
  const seam = scan.open;
  if (!seam) {
    if (scan.carried) {
      const { at, bytesAfter } = scan.carried;
      head.index = { bytesAfter, read: () => indexAt(lines, at) };
    }
    return head;
  }
  if (seam.names !== '' && seam.forkAt === undefined) {
    const seq = entryOf(lines[seam.at])?.seq;
    return { ...head, broken: { seam: seam.hash, ...(typeof seq === 'number' ? { seq } : {}) } };
  }
  return forkHead(scan, head, seam, start);
}

/** The head of a journal with a merge not yet settled: the two sides from the open seam, and numbers that go on after both. */
function forkHead(scan: Scan, head: JournalHead, seam: Seam, start: boolean): JournalHead {
  const { lines } = scan;
  const forkAt = seam.forkAt ?? lines.length;
  const unsettled = scan.seams.filter((s) => !s.settled);
  const hashes = new Set(unsettled.map((s) => s.hash));
  const sideB = sideOf(lines.slice(0, seam.at + 1).filter((l) => l.unsettled === undefined || !hashes.has(l.unsettled)));
  const sideA = sideOf(lines.slice(seam.at + 1, forkAt));
  const base = seam.forkAt === undefined ? undefined : baseRecord(lines, seam.forkAt);
  const fork: JournalFork = {
    forkPoint: seam.names,
    seam: seam.hash,
    seams: unsettled.map((s) => s.hash),
    nested: unsettled.filter((s) => s.at > seam.at && s.at < forkAt).length,
    base,
    a: sideA,
    b: sideB,
    partial: seam.names === '' && !start,
  };
  // New events go on from the highest number on either side, and after anything written since the merge.
  for (const l of lines.slice(0, forkAt)) {
    const seq = entryOf(l)?.seq;
    if (typeof seq === 'number' && seq > head.lastSeq) head.lastSeq = seq;
  }
  return { ...head, fork };
}

/** The index the line at `at` carries, with the batches on record after it folded in, oldest first. */
function indexAt(lines: Line[], at: number): JournalIndex {
  const index = indexFromCarried(entryOf(lines[at])!.journal_index)!;
  const batches = oldestFirstBatches();
  for (let i = at - 1; i >= 0; i--) {
    const e = entryOf(lines[i]);
    if (e) for (const accepted of batches.push(e).accepted) indexEvent(index, accepted);
  }
  return index;
}

/** One side's lines (given newest first): its events on record, oldest first, its last pointer record and its numbers. */
function sideOf(newestFirst: Line[]): ForkSide {
  const events: StampedEntry[] = [];
  const batches = oldestFirstBatches();
  for (let i = newestFirst.length - 1; i >= 0; i--) {
    const e = entryOf(newestFirst[i]);
    if (e) for (const accepted of batches.push(e).accepted) events.push(accepted);
  }
  let record: RecordSeen | undefined;
  let from = Infinity;
  let to = -Infinity;
  for (const e of events) {
    if (typeof e.seq !== 'number') continue;
    from = Math.min(from, e.seq);
    to = Math.max(to, e.seq);
    if (e.pointer) record = { seq: e.seq, pointer: e.pointer, at: e.at, session: e.session, key: e.key };
  }
  return { events, record, seqs: from <= to ? { from, to } : null, lines: newestFirst.length };
}

/** The newest pointer record on record at or before index `from` (newest first). */
function baseRecord(lines: Line[], from: number): RecordSeen | undefined {
  const onRecord = newestFirstFilter();
  for (let i = from; i < lines.length; i++) {
    const e = entryOf(lines[i]);
    if (!e || !onRecord(e)) continue;
    if (e.pointer && typeof e.seq === 'number') return { seq: e.seq, pointer: e.pointer, at: e.at, session: e.session, key: e.key };
  }
  return undefined;
}

/**
 * The newest entry about one step of one cycle whose event is in `events`,
 * read backwards; undefined when none lies within the last few megabytes
 * (a command aimed at a step that long ago is refused, not applied).
 */
export function latestAbout<E extends JournalEvent>(
  file: string,
  at: { flow: string; cycle: number; step: number },
  events: ReadonlySet<E>,
): Extract<KnownEntry, { event: E }> | undefined {
  let found: Extract<KnownEntry, { event: E }> | undefined;
  readBackwards(
    file,
    (e) => {
      if (e.flow === at.flow && e.cycle === at.cycle && e.step === at.step && isOneOf(e, events)) found = e;
      return found !== undefined;
    },
    JOURNAL_STEP_WINDOW_BYTES,
  );
  return found;
}

/** The newest entry of one flow whose event is in `events` (within the last megabyte), e.g. the boundary last reached. */
export function latestOf<E extends JournalEvent>(file: string, flow: string, events: ReadonlySet<E>): Extract<KnownEntry, { event: E }> | undefined {
  let found: Extract<KnownEntry, { event: E }> | undefined;
  readBackwards(
    file,
    (e) => {
      if (e.flow === flow && isOneOf(e, events)) found = e;
      return found !== undefined;
    },
    JOURNAL_HEAD_WINDOW_BYTES,
  );
  return found;
}

/** How the journal saw the run come into a step (issue 29 point 7; `Opening` in `engine/attempt-start.ts`), read backwards within the step window. */
const OPENINGS = new Set(['step_started', 'batch_started', 'batch_completed']);
/** Events after which the step's next attempt is still to begin. */
const CLOSINGS = new Set(['step_failed', 'failure_acknowledged', 'decision_answered', 'step_completed', 'step_skipped']);
/** A person's adoption of a held pointer edit moved the run: the attempt is begun again (adopting the criteria moves nothing). */
const movedByPerson = (e: StampedEntry) => e.event === 'edit_adopted' && e.what !== 'criteria';

export function attemptOpening(file: string, at: { flow: string; cycle: number; step: number }): Opening | undefined {
  let found: Opening | undefined;
  const read = readBackwards(
    file,
    (e) => {
      const about = e.flow === at.flow && e.cycle === at.cycle && e.step === at.step;
      if (about && OPENINGS.has(e.event)) found = e.event as Opening;
      // A person's restore returns the run to a checkpoint taken in an attempt on record: that attempt goes on.
      else if (about && e.event === 'checkpoint_restored') found = 'step_started';
      else if (about && (CLOSINGS.has(e.event) || movedByPerson(e))) found = 'none';
      // A command's last entry carries the pointer it left: one elsewhere is where the run came to this step from.
      else if (e.pointer && !(e.pointer.flow === at.flow && e.pointer.cycle === at.cycle && e.pointer.step === at.step)) found = 'none';
      return found !== undefined;
    },
    JOURNAL_STEP_WINDOW_BYTES,
  );
  // The whole journal read and no start of this step in it: none on record. Not read that far back: unknown.
  return found ?? (read.start ? 'none' : undefined);
}

/** What the journal says of the attempt of a step now under way: the event that began it, and the commands run in it since (oldest first). */
export interface AttemptRecord {
  start?: Extract<KnownEntry, { event: 'step_started' | 'step_failed' | 'batch_started' }>;
  runs: Extract<KnownEntry, { event: 'command_run' }>[];
}

const ATTEMPT_START = new Set(['step_started', 'step_failed', 'batch_started'] as const);

/** Read back from the end to the start of the step's current attempt (its `step_started`, or the `step_failed` that ended the one before). */
export function attemptRecord(file: string, at: { flow: string; cycle: number; step: number }): AttemptRecord {
  const record: AttemptRecord = { runs: [] };
  readBackwards(
    file,
    (e) => {
      if (e.flow !== at.flow || e.cycle !== at.cycle || e.step !== at.step) return false;
      if (e.event === 'command_run') record.runs.unshift(e);
      else if (isOneOf(e, ATTEMPT_START)) record.start = e;
      return record.start !== undefined;
    },
    JOURNAL_STEP_WINDOW_BYTES,
  );
  return record;
}
