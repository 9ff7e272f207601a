/**
 * The journal index: what reconciliation needs from the whole history, kept
 * small — the waivers (steps skipped on purpose or forced done: evidence no
 * folder shows), the open rounds of repeated steps, the step list, the
 * skills' declarations and the test command each run is pinned to, and the
 * acceptance criteria each flow's run pinned last (its cycle's). Only ever
 * derived from the journal's events.
 *
 * The journal carries it: now and then the line that closes a batch holds
 * the index as of that line (`journal_index`, `carryIndex`; `app/transaction/carry-index.ts`
 * says when), so the end of the journal answers for all of it
 * (`io/journal-head.ts`). The cache file,
 * `_docs/_autopilot/cache/journal-index.json`, holds it for a journal whose
 * end carries none (an older autopilot's, or one a merge has not settled):
 * `io/journal-index.ts` brings it up to date, and a file that is not one is
 * derived afresh.
 *
 * Pure: text → index or a problem; index → text; an event folded in
 * (`indexEvent`); a carried copy read back (`indexFromCarried`); what it says
 * about one cycle (`evidenceFromIndex`).
 */
import type { Problem } from '../errors.js';
import { JOURNAL_INDEX_KEPT_CYCLES } from '../limits.js';
import type { PinnedCriterion, StampedEntry } from './journal-line.js';

/** The acceptance criteria as a run pinned them (`criteria` on `step_completed`, or on a person's `edit_adopted`): in which cycle, the file, each. */
export interface CriteriaPin {
  cycle: number;
  file: string;
  criteria: PinnedCriterion[];
}

/** Bump when what the index keeps, or how, changes: an index of another format is derived again. */
export const JOURNAL_INDEX_FORMAT = 4;

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
  /** The skills' declarations each flow's run is pinned to (the latest `run_started`, `run_repinned` or `skills_pinned` that carries them), by flow id. */
  skills?: Record<string, unknown>;
  /** The project's test command the run is pinned to: the latest `verify_pinned`. */
  verify?: VerifyPin;
  /** The acceptance criteria each flow's run pinned last, by flow id. */
  criteria?: Record<string, CriteriaPin>;
  /** How many bytes of the journal the index covers, and the sha1 of the 256 before that point. */
  size: number;
  tail: string;
  /** By `flow|step`. */
  steps: Record<string, Facts>;
}

/** The test command a run is pinned to (`verify_pinned`): null when a person said there is none, with why. */
export interface VerifyPin {
  command: string | null;
  reason?: string;
  sources: Record<string, string | null>;
  /** The event that pinned it. */
  seq: number;
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

/** The index as a journal line carries it (`journal_index`): what it says, not where a cache stood in the file. */
export interface CarriedIndex {
  format: number;
  pins?: Record<string, unknown>;
  skills?: Record<string, unknown>;
  verify?: VerifyPin;
  criteria?: Record<string, CriteriaPin>;
  steps: Record<string, Facts>;
}

export const carryIndex = (index: JournalIndex): CarriedIndex => ({
  format: index.format,
  ...(index.pins ? { pins: index.pins } : {}),
  ...(index.skills ? { skills: index.skills } : {}),
  ...(index.verify ? { verify: index.verify } : {}),
  ...(index.criteria ? { criteria: index.criteria } : {}),
  steps: index.steps,
});

const isVerifyPin = (v: unknown): v is VerifyPin =>
  isRecord(v) &&
  (v.command === null || typeof v.command === 'string') &&
  (v.reason === undefined || typeof v.reason === 'string') &&
  isRecord(v.sources) &&
  Object.values(v.sources).every((h) => h === null || typeof h === 'string') &&
  Number.isSafeInteger(v.seq);

const WAIVERS: ReadonlySet<unknown> = new Set<Waiver>(['skipped', 'forced']);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isOneFact = (v: unknown) =>
  isRecord(v) && (v.w === undefined || WAIVERS.has(v.w)) && (v.r === undefined || (Array.isArray(v.r) && v.r.every((f) => typeof f === 'string')));
const isFacts = (v: unknown) => isOneFact(v) && isRecord((v as { c?: unknown }).c) && Object.values((v as { c: object }).c).every(isOneFact);

/** Whether a journal line's `journal_index` is one this autopilot reads. */
export function isCarriedIndex(value: unknown): value is CarriedIndex {
  if (!isRecord(value) || value.format !== JOURNAL_INDEX_FORMAT || !isRecord(value.steps)) return false;
  const criteria = value.criteria;
  return (
    (value.pins === undefined || isRecord(value.pins)) &&
    (value.skills === undefined || isRecord(value.skills)) &&
    (value.verify === undefined || isVerifyPin(value.verify)) &&
    (criteria === undefined || (isRecord(criteria) && Object.values(criteria).every(isPin))) &&
    Object.values(value.steps).every(isFacts)
  );
}

const isPin = (v: unknown): v is CriteriaPin =>
  isRecord(v) &&
  Number.isSafeInteger(v.cycle) &&
  typeof v.file === 'string' &&
  Array.isArray(v.criteria) &&
  v.criteria.every((c) => isRecord(c) && typeof c.id === 'string' && typeof c.hash === 'string' && typeof c.text === 'string');

/**
 * The index a journal line carries, or undefined when it carries none this
 * autopilot reads (another format, or a hand-edited shape). A copy of it:
 * folding events in must not change the line it was read from.
 */
export function indexFromCarried(value: unknown): JournalIndex | undefined {
  if (!isCarriedIndex(value)) return undefined;
  const copy = structuredClone(value) as unknown as CarriedIndex;
  return {
    format: JOURNAL_INDEX_FORMAT,
    ...(copy.pins ? { pins: copy.pins } : {}),
    ...(copy.skills ? { skills: copy.skills } : {}),
    ...(copy.verify ? { verify: copy.verify } : {}),
    ...(copy.criteria ? { criteria: copy.criteria } : {}),
    size: 0,
    tail: '',
    steps: copy.steps,
  };
}

/** Folds one event on record into the index (only skips, completions, answers and pinned runs and skills change it). */
export function indexEvent(index: JournalIndex, e: StampedEntry): void {
  if ((e.event === 'run_started' || e.event === 'run_repinned') && e.pinned !== undefined) (index.pins ??= {})[e.flow] = e.pinned;
  if ((e.event === 'run_started' || e.event === 'run_repinned' || e.event === 'skills_pinned') && e.skills !== undefined)
    (index.skills ??= {})[e.flow] = e.skills;
  if (e.event === 'verify_pinned' && e.command !== undefined && e.sources !== undefined && typeof e.seq === 'number')
    index.verify = { command: e.command, ...(typeof e.reason === 'string' ? { reason: e.reason } : {}), sources: e.sources, seq: e.seq };
  if ((e.event === 'step_completed' || e.event === 'edit_adopted') && e.criteria !== undefined)
    (index.criteria ??= {})[e.flow] = { cycle: e.cycle, file: e.criteria.file, criteria: e.criteria.items };
  // A named run started on the repository's output: the steps before its start are the repository's, settled as a skip is (docs/runs.md).
  if (e.event === 'run_started') for (const step of repositorySteps(e.repository)) waive(index, `${e.flow}|${step}`, e.cycle, 'skipped');
  if (typeof e.step !== 'number') return;
  const key = `${e.flow}|${e.step}`;
  const change = (apply: (f: { w?: Waiver; r?: string[] }) => void) => {
    const facts = (index.steps[key] ??= { c: {} });
    apply(facts);
    apply((facts.c[String(e.cycle)] ??= {}));
    const cycles = Object.keys(facts.c).map(Number);
    if (cycles.length > JOURNAL_INDEX_KEPT_CYCLES) delete facts.c[String(Math.min(...cycles))];
  };
  if (e.event === 'step_skipped' && e.by !== 'condition') change((f) => (f.w = 'skipped'));
  // A completion ends a repeated round; forced, it is a waiver. One of a step the index holds nothing about changes nothing.
  if (e.event === 'step_completed' && (e.forced === true || index.steps[key] !== undefined))
    change((f) => {
      delete f.r;
      if (e.forced === true) f.w = 'forced';
    });
  if (e.event === 'decision_answered' && e.then === 'repeat' && e.round_files !== undefined) {
    const files = e.round_files;
    change((f) => (f.r = files));
  }
}

/** The steps a `run_started`'s `repository` names, where it has that shape. */
function repositorySteps(value: unknown): number[] {
  const steps = (value as { steps?: unknown } | null)?.steps;
  return Array.isArray(steps) ? steps.filter((s): s is number => Number.isInteger(s) && s > 0) : [];
}

/** A step's waiver set in the index, for the step and its cycle. */
function waive(index: JournalIndex, key: string, cycle: number, waiver: Waiver): void {
  const facts = (index.steps[key] ??= { c: {} });
  facts.w = waiver;
  (facts.c[String(cycle)] ??= {}).w = waiver;
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
