/**
 * The journal index, `_docs/_autopilot/cache/journal-index.json`: what
 * reconciliation needs from the whole history, kept small — the waivers
 * (steps skipped on purpose or forced done: evidence no folder shows), the
 * open rounds of repeated steps, and the step list each run is pinned to.
 * Only ever derived from the journal (`io/journal-index.ts` brings it up to
 * date and says when to rewrite it), so a file that is not one is a problem
 * the caller answers by deriving it afresh. Pure: text → index or a problem;
 * index → text; an event folded in (`indexEvent`); what it says about one
 * cycle (`evidenceFromIndex`).
 */
import type { Problem } from '../errors.js';
import { JOURNAL_INDEX_KEPT_CYCLES } from '../limits.js';
import type { StampedEntry } from './journal-line.js';

/** Bump when what the index keeps, or how, changes: an index of another format is derived again. */
export const JOURNAL_INDEX_FORMAT = 3;

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

export interface JournalIndex {
  format: number;
  /** The step list each flow's run is pinned to (the latest `run_started` or `run_repinned` that carries one), by flow id. */
  pins?: Record<string, unknown>;
  /** How many bytes of the journal the index covers, and the sha1 of the 256 before that point. */
  size: number;
  tail: string;
  /** By `flow|step`. */
  steps: Record<string, Facts>;
}

export const emptyJournalIndex = (): JournalIndex => ({ format: JOURNAL_INDEX_FORMAT, size: 0, tail: '', steps: {} });

const EXPECTED = `a JSON object with \`format\` ${JOURNAL_INDEX_FORMAT}, \`size\` and \`steps\``;

export function parseJournalIndex(text: string, file: string): { index: JournalIndex } | { problem: Problem } {
  let data: JournalIndex | null;
  try {
    data = JSON.parse(text) as JournalIndex | null;
  } catch {
    return { problem: { file, message: 'the journal index is not JSON', expected: EXPECTED, received: text.slice(0, 80) } };
  }
  if (data?.format === JOURNAL_INDEX_FORMAT && Number.isSafeInteger(data.size) && typeof data.steps === 'object' && data.steps !== null) return { index: data };
  return { problem: { file, message: 'the journal index is not one this autopilot writes', expected: EXPECTED, received: text.slice(0, 80) } };
}

export function serializeJournalIndex(index: JournalIndex): string {
  return JSON.stringify(index);
}

/** Folds one event on record into the index (only skips, completions, answers and pinned runs change it). */
export function indexEvent(index: JournalIndex, e: StampedEntry): void {
  if ((e.event === 'run_started' || e.event === 'run_repinned') && e.pinned !== undefined) (index.pins ??= {})[e.flow] = e.pinned;
  if (typeof e.step !== 'number') return;
  const change = (apply: (f: { w?: Waiver; r?: string[] }) => void) => {
    const facts = (index.steps[`${e.flow}|${e.step}`] ??= { c: {} });
    apply(facts);
    apply((facts.c[String(e.cycle)] ??= {}));
    const cycles = Object.keys(facts.c).map(Number);
    if (cycles.length > JOURNAL_INDEX_KEPT_CYCLES) delete facts.c[String(Math.min(...cycles))];
  };
  if (e.event === 'step_skipped' && e.by !== 'condition') change((f) => (f.w = 'skipped'));
  if (e.event === 'step_completed')
    change((f) => {
      delete f.r;
      if (e.forced === true) f.w = 'forced';
    });
  if (e.event === 'decision_answered' && e.then === 'repeat' && e.round_files !== undefined) {
    const files = e.round_files;
    change((f) => (f.r = files));
  }
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
