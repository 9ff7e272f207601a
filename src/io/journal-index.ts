/**
 * What reconciliation needs from the whole history, kept small: the waivers
 * (steps skipped on purpose or forced done: evidence no folder shows) and the
 * open rounds of repeated steps. Derived from the journal and cached in
 * `_docs/_autopilot/cache/journal-index.json`; a missing or stale index is
 * rebuilt from the journal, and a fresh one is brought up to date by reading
 * only the lines added since. So `status` at a million events reads a few
 * kilobytes, not the journal.
 */
import { closeSync, fstatSync, readFileSync, readSync } from 'node:fs';
import type { StampedEntry } from '../formats/journal-line.js';
import { hashText } from '../hash.js';
import { judgeLine } from '../formats/journal-line.js';
import { openFile, scanLines } from './journal.js';
import { oldestFirstBatches } from '../engine/batches.js';

export type Waiver = 'skipped' | 'forced';

/** What only the journal can tell about a flow's steps in one cycle. */
export interface JournalEvidence {
  waivers: Map<number, Waiver>;
  /** Steps in a repeated round: the files that existed when the round began. */
  rounds: Map<number, string[]>;
}

interface Facts {
  /** The latest waiver or round in any cycle: what counts for a step outside a loop. */
  w?: Waiver;
  r?: string[];
  /** The same per cycle, for the few most recent cycles (only those can be located). */
  c: Record<string, { w?: Waiver; r?: string[] }>;
}

const FORMAT = 3;
const KEPT_CYCLES = 8;
/** Bytes the index may lag behind the journal before a writing command refreshes the file. */
const REFRESH_LAG = 64 * 1024;

export interface JournalIndex {
  format: number;
  /** The step list each flow's run is pinned to (the latest `run_started` or `run_repinned` that carries one), by flow id. */
  pins?: Record<string, unknown>;
  /** How many bytes of the journal the index covers, and the sha1 of the 256 before that point. */
  size: number;
  tail: string;
  steps: Record<string, Facts>;
}

const emptyIndex = (): JournalIndex => ({ format: FORMAT, size: 0, tail: '', steps: {} });

function record(index: JournalIndex, e: StampedEntry): void {
  if ((e.event === 'run_started' || e.event === 'run_repinned') && typeof e.pinned === 'object' && e.pinned !== null) (index.pins ??= {})[e.flow] = e.pinned;
  if (typeof e.step !== 'number') return;
  const change = (apply: (f: { w?: Waiver; r?: string[] }) => void) => {
    const facts = (index.steps[`${e.flow}|${e.step}`] ??= { c: {} });
    apply(facts);
    apply((facts.c[String(e.cycle)] ??= {}));
    const cycles = Object.keys(facts.c).map(Number);
    if (cycles.length > KEPT_CYCLES) delete facts.c[String(Math.min(...cycles))];
  };
  if (e.event === 'step_skipped' && e.by !== 'condition') change((f) => (f.w = 'skipped'));
  if (e.event === 'step_completed')
    change((f) => {
      delete f.r;
      if (e.forced === true) f.w = 'forced';
    });
  if (e.event === 'decision_answered' && e.then === 'repeat' && Array.isArray(e.round_files)) change((f) => (f.r = e.round_files as string[]));
}

const MATTERS = /^(step_skipped|step_completed|decision_answered|run_started|run_repinned)$/;

/** Folds the batches on record from byte `start` into the index; the index covers up to the end of the last closed batch. */
function scanInto(index: JournalIndex, file: string, start: number): void {
  let covered = start;
  const batches = oldestFirstBatches();
  scanLines(
    file,
    (line, _n, complete, end) => {
      if (!complete) return;
      // Cheap lines (most of them) are only parsed when they may close or break a batch.
      const verdict = judgeLine(line);
      if (!('entry' in verdict)) {
        if (batches.pending().length === 0) covered = end;
        return;
      }
      const { accepted } = batches.push(verdict.entry);
      for (const e of accepted) if (MATTERS.test(e.event) || e.event === 'run_started' || e.event === 'run_repinned') record(index, e);
      if (batches.pending().length === 0) covered = end;
    },
    start,
  );
  index.size = covered;
}

function tailHash(fd: number, size: number): string {
  const from = Math.max(0, size - 256);
  const bytes = Buffer.alloc(size - from);
  readSync(fd, bytes, 0, bytes.length, from);
  return hashText(bytes.toString('latin1'));
}

function readIndexFile(file: string): JournalIndex | undefined {
  try {
    const data = JSON.parse(readFileSync(file, 'utf8')) as JournalIndex;
    if (data.format === FORMAT && Number.isSafeInteger(data.size) && typeof data.steps === 'object' && data.steps !== null) return data;
  } catch {
    // Missing or unreadable: it is only ever derived.
  }
  return undefined;
}

export interface LoadedIndex {
  index: JournalIndex;
  /** Whether the cache file should be rewritten (rebuilt, or lagging far behind). */
  stale: boolean;
}

/** The index, up to date with the journal as it is now. */
export function loadJournalIndex(journalFile: string, indexFile: string): LoadedIndex {
  const fd = openFile(journalFile);
  if (fd === undefined) return { index: emptyIndex(), stale: false };
  let size: number;
  let cached: JournalIndex | undefined;
  try {
    size = fstatSync(fd).size;
    cached = readIndexFile(indexFile);
    if (cached && (cached.size > size || cached.tail !== tailHash(fd, cached.size))) cached = undefined;
  } finally {
    closeSync(fd);
  }
  const index = cached ?? emptyIndex();
  const from = index.size;
  scanInto(index, journalFile, from);
  const end = openFile(journalFile)!;
  try {
    index.tail = tailHash(end, index.size);
  } finally {
    closeSync(end);
  }
  return { index, stale: !cached || index.size - from > REFRESH_LAG };
}

/** What the index says about one flow in one cycle. `perCycle` tells which steps belong to a cycle. */
export function evidenceFromIndex(index: JournalIndex, flow: string, cycle: number, perCycle: (step: number) => boolean): JournalEvidence {
  const found: JournalEvidence = { waivers: new Map(), rounds: new Map() };
  const prefix = `${flow}|`;
  for (const [key, facts] of Object.entries(index.steps)) {
    if (!key.startsWith(prefix)) continue;
    const step = Number(key.slice(prefix.length));
    const f = perCycle(step) ? facts.c[String(cycle)] : facts;
    if (f?.w) found.waivers.set(step, f.w);
    if (f?.r) found.rounds.set(step, f.r);
  }
  return found;
}
