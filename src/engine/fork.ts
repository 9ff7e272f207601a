/**
 * Contract rule 11: the journal is a chain, so a merge of two branches that
 * advanced differently is seen and settled, never silently picked. Pure.
 *
 * `io/journal-head.ts` finds the fork (the seam where a merge put another
 * branch's lines, the fork point the seam line names, and the two sides:
 * A, the lines between the fork point and the seam; B, the lines from the
 * seam on). This module judges the two sides from their events and their
 * last pointer records:
 *
 * - **They agree** when the outcomes each side recorded after the fork
 *   (completions, skips, failures, answers, acknowledgements, new runs,
 *   restores, hand edits — not starts, sub-steps or notes) are the same on
 *   both, or one side's are the first of the other's; and the shorter side's
 *   sub-steps after its last outcome are on a step the longer side went on
 *   to complete. The history reads as one: the events in order of time, then
 *   key (`mergedOrder`), and the position is the longer side's (it went
 *   further), or, when both recorded the same outcomes, the furthest of the
 *   two (then the later, then the one whose record sorts first: the same
 *   answer whichever side the merge put first).
 * - **They disagree** otherwise (a step completed on one side and failed on
 *   the other, different answers, a skip against a completion, progress on a
 *   step the other side failed), and also when side A holds another merge
 *   not yet settled, or reaches back further than was read: a person keeps
 *   one side (`forkDecision`, answered by `decide A|B`).
 *
 * Either way the settlement is journaled (`journal_merged`, `mergedEntry`).
 */
import type { Decision } from '../formats/flow/model.js';
import { entry, fromPointerRecord, type JournalEntry, type PointerRecord, type SeqRange, type StampedEntry } from '../formats/journal-line.js';
import type { Position } from '../formats/pointer/position.js';

/** A pointer record as the journal holds it: the event that carries it, and when and by whom it was written. */
export interface RecordSeen {
  seq: number;
  pointer: PointerRecord;
  at: string;
  session: string;
  key?: string;
}

/** One side of a fork, as read from the journal. */
export interface ForkSide {
  /** Its events on record, oldest first (a batch a crash cut short is left out, as every reader does). */
  events: StampedEntry[];
  /** Its newest pointer record. */
  record?: RecordSeen;
  /** Its lowest and highest sequence number; null when its lines carry none. */
  seqs: SeqRange | null;
  /** How many lines it holds (events or not). */
  lines: number;
}

/** A merge the journal holds and no `journal_merged` has settled yet. */
export interface JournalFork {
  /** The chain hash of the last line both sides share; '' when they share none (two journals begun apart). */
  forkPoint: string;
  /** The chain hash of the seam line: side B's first. */
  seam: string;
  /** Every seam not yet settled that was read (this one first): what settling it settles. */
  seams: string[];
  /** Seams not yet settled inside side A: more than one merge since the fork. */
  nested: number;
  /** The newest pointer record at or before the fork point: where both sides began. */
  base?: RecordSeen;
  a: ForkSide;
  b: ForkSide;
  /** Side A (or the fork point) lies further back than autopilot reads: only partly known. */
  partial: boolean;
}

export type SideName = 'A' | 'B';

/** One side, as a person reads it: where it left the work and what it did. */
export interface SideSummary {
  side: SideName;
  position?: PointerRecord;
  seqs: SeqRange | null;
  /** What it did, a phrase each, oldest first (outcomes, and its sub-steps in one phrase). */
  did: string[];
}

export type ForkVerdict =
  | {
      kind: 'agree';
      /** The position the merged history leads to: the record of the side it comes from (or the base when neither side has one). */
      record?: RecordSeen;
      from: SideName;
      sides: Record<SideName, SideSummary>;
      message: string;
    }
  | {
      kind: 'disagree';
      reasons: string[];
      sides: Record<SideName, SideSummary>;
      /** The side the decision recommends: the one that went further. */
      recommended: SideName;
      message: string;
    };

/** An outcome a side recorded, as the two sides are compared: what happened and where, without when or by whom. */
interface Outcome {
  key: string;
  entry: StampedEntry;
}

const where = (e: StampedEntry) => `${e.flow}/${e.cycle}/${String(e.step)}`;

/** Events that only say how the work went (a start, a sub-step, a note, a repair the folder will judge again), not what it came to. */
const PROGRESS_ONLY = new Set<string>([
  'step_started',
  'substep',
  'position_repaired',
  'lease_taken_over',
  'lock_broken',
  'follow_through',
  'breadcrumb',
  'skill_state_differs',
  'decision_required',
  'boundary_reached',
  'cycle_started',
  'flow_completed',
  // A progress commit's bookkeeping (main's owed/made events): each branch's own commits, which the merge keeps both of.
  'progress_commit_owed',
  'progress_commit_made',
]);

/** The key an outcome is compared by; undefined for an event that records no outcome. */
export function outcomeKey(e: StampedEntry): string | undefined {
  if (PROGRESS_ONLY.has(e.event)) return undefined;
  const d = (name: string) => String((e as unknown as Record<string, unknown>)[name] ?? '');
  switch (e.event) {
    case 'step_completed':
      return `completed ${where(e)}`;
    case 'step_skipped':
      return `skipped ${where(e)}`;
    case 'step_failed':
      return `failed ${where(e)} attempt ${d('attempt')} ${d('reason')}`;
    case 'failure_acknowledged':
      return `acknowledged ${where(e)}`;
    case 'decision_answered':
      return `answered ${where(e)} ${d('decision')} ${d('option')}`;
    // Either answer (or a new conversation crossing it) leaves the boundary behind: the run goes on at the same step.
    case 'boundary_answered':
      return `crossed ${e.flow}/${e.cycle} after ${d('after')}`;
    case 'run_started':
      return `run ${e.flow} ${d('flow_hash')}`;
    case 'run_repinned':
      return `repinned ${e.flow} ${d('flow_hash')}`;
    case 'skills_pinned':
      return `pinned skills ${e.flow} ${d('skills_hash')}`;
    case 'checkpoint_restored':
      return `restored ${d('checkpoint')}`;
    case 'pointer_edited':
      return `edited ${where(e)} ${e.status} ${e.retry_count}`;
    case 'journal_merged':
      return `merged ${d('fork_point')} ${d('settled')} ${d('kept')} ${where(e)}`;
    default:
      // An event a newer autopilot wrote: compared as it stands.
      return `${e.event} ${where(e)}`;
  }
}

const outcomes = (events: readonly StampedEntry[]): Outcome[] =>
  events.flatMap((e) => {
    const key = outcomeKey(e);
    return key === undefined ? [] : [{ key, entry: e }];
  });

const stepLabel = (e: { step: number | 'done'; name: string }) => (e.step === 'done' ? 'the end of the flow' : `step ${e.step} (${e.name})`);

/** An event in a few words, for the summary of a side and the reasons of a verdict. */
export function describeEvent(e: StampedEntry): string {
  const d = (name: string) => (e as unknown as Record<string, unknown>)[name];
  switch (e.event) {
    case 'step_completed':
      return `completed ${stepLabel(e)}${d('forced') === true ? ' (forced by a person)' : ''}`;
    case 'step_skipped':
      return `skipped ${stepLabel(e)}`;
    case 'step_failed':
      return `failed ${stepLabel(e)} (attempt ${String(d('attempt'))}: ${String(d('reason'))})`;
    case 'failure_acknowledged':
      return `acknowledged the failures of ${stepLabel(e)}`;
    case 'decision_answered':
      return `answered the decision after ${stepLabel(e)} with ${String(d('option'))}`;
    case 'boundary_answered':
      return `crossed the session boundary after step ${String(d('after'))}`;
    case 'run_started':
      return d('source') === 'reset' ? `started ${e.flow} over (reset; the old pointer and journal kept aside)` : `started a run of ${e.flow}`;
    case 'run_repinned':
      return `repinned ${e.flow} to the flow file as it was`;
    case 'skills_pinned':
      return `pinned the skills of ${e.flow} as they were`;
    case 'checkpoint_restored':
      return `restored the checkpoint ${String(d('checkpoint'))}`;
    case 'pointer_edited':
      return `had the pointer edited by hand (${stepLabel(e)}, ${e.status})`;
    case 'journal_merged':
      return 'settled an earlier merge';
    case 'substep':
      return `recorded sub-step ${String(d('sub_step'))} of ${stepLabel(e)}`;
    case 'step_started':
      return `started ${stepLabel(e)}`;
    default:
      return `${e.event} at ${stepLabel(e)}`;
  }
}

/** A position in a few words: `step 2 (Research), not_started, retry 1`. */
export function describeRecord(p: PointerRecord | undefined): string {
  if (!p) return 'no position recorded';
  if (p.step === 'done') return `${p.flow} done`;
  return `step ${p.step} (${p.name}), ${p.status}${p.sub_step !== '0' ? ` at sub-step ${p.sub_step}` : ''}, retry ${p.retry_count}`;
}

const MAX_PHRASES = 6;

export function summarizeSide(side: SideName, s: ForkSide): SideSummary {
  const decided = outcomes(s.events).map((o) => describeEvent(o.entry));
  const subs = s.events.filter((e) => e.event === 'substep');
  const phrases = decided.length > MAX_PHRASES ? [...decided.slice(0, MAX_PHRASES - 1), `… and ${decided.length - MAX_PHRASES + 1} more`] : decided;
  if (subs.length > 0) phrases.push(`${subs.length} sub-step${subs.length === 1 ? '' : 's'} (the last: ${describeEvent(subs.at(-1)!)})`);
  if (phrases.length === 0) phrases.push(s.events.length > 0 ? 'started work, recorded no outcome' : 'nothing on record');
  return { side, ...(s.record ? { position: s.record.pointer } : {}), seqs: s.seqs, did: phrases };
}

const STATUS_RANK: Record<string, number> = { not_started: 0, in_progress: 1, failed: 1, completed: 2, skipped: 2 };

/** How far a position is: cycle, then step (done last), then how far into the step. */
function rank(p: PointerRecord | undefined): number[] {
  if (!p) return [-1, -1, -1];
  return [p.cycle, p.step === 'done' ? Number.MAX_SAFE_INTEGER : p.step, STATUS_RANK[p.status] ?? 0];
}

function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/** The further of two records; then the later; then the one whose pointer sorts first (so the answer does not depend on which side is A). */
function further(a: RecordSeen | undefined, b: RecordSeen | undefined): SideName {
  const byRank = compareRanks(rank(a?.pointer), rank(b?.pointer));
  if (byRank !== 0) return byRank > 0 ? 'A' : 'B';
  const byTime = (a?.at ?? '').localeCompare(b?.at ?? '');
  if (byTime !== 0) return byTime > 0 ? 'A' : 'B';
  const ja = JSON.stringify(a?.pointer ?? null);
  const jb = JSON.stringify(b?.pointer ?? null);
  return ja <= jb ? 'A' : 'B';
}

/** The sub-steps a side recorded after its last outcome: work on a step it had not finished. */
function openProgress(events: readonly StampedEntry[]): StampedEntry[] {
  let last = -1;
  events.forEach((e, i) => {
    if (outcomeKey(e) !== undefined) last = i;
  });
  return events.slice(last + 1).filter((e) => e.event === 'substep');
}

const sameStep = (a: StampedEntry, b: StampedEntry) => a.flow === b.flow && a.cycle === b.cycle && a.step === b.step;

/** Both sides' events as one history: by time, then key, then side (A first), each side's own order kept among equals. */
export function mergedOrder(a: readonly StampedEntry[], b: readonly StampedEntry[]): { side: SideName; entry: StampedEntry }[] {
  const all = [...a.map((entry, i) => ({ side: 'A' as const, entry, i })), ...b.map((entry, i) => ({ side: 'B' as const, entry, i }))];
  all.sort(
    (x, y) =>
      x.entry.at.localeCompare(y.entry.at) || (x.entry.key ?? '').localeCompare(y.entry.key ?? '') || (x.side === y.side ? x.i - y.i : x.side === 'A' ? -1 : 1),
  );
  return all.map(({ side, entry }) => ({ side, entry }));
}

const other = (s: SideName): SideName => (s === 'A' ? 'B' : 'A');

export function judgeFork(fork: JournalFork): ForkVerdict {
  const sides = { A: summarizeSide('A', fork.a), B: summarizeSide('B', fork.b) };
  const records = { A: fork.a.record, B: fork.b.record };
  const ranges = `A: ${rangeText(fork.a.seqs)}, B: ${rangeText(fork.b.seqs)}`;
  const disagree = (reasons: string[]): ForkVerdict => {
    const oa = outcomes(fork.a.events).length;
    const ob = outcomes(fork.b.events).length;
    const byRank = compareRanks(rank(records.A?.pointer), rank(records.B?.pointer));
    const recommended: SideName = byRank !== 0 ? (byRank > 0 ? 'A' : 'B') : oa !== ob ? (oa > ob ? 'A' : 'B') : further(records.A, records.B);
    return {
      kind: 'disagree',
      reasons,
      sides,
      recommended,
      message: `the journal holds two branches' work that disagree (${ranges}): ${reasons.join('; ')}. A person keeps one side: \`autopilot decide A\` (${describeRecord(records.A?.pointer)}) or \`autopilot decide B\` (${describeRecord(records.B?.pointer)})`,
    };
  };
  if (fork.nested > 0) return disagree([`side A itself holds ${fork.nested} more merge${fork.nested === 1 ? '' : 's'} not settled`]);
  if (fork.partial) return disagree(['side A reaches further back than autopilot reads, so it cannot be compared in full']);

  const oa = outcomes(fork.a.events);
  const ob = outcomes(fork.b.events);
  const shared = Math.min(oa.length, ob.length);
  for (let i = 0; i < shared; i++) {
    if (oa[i]!.key !== ob[i]!.key) return disagree([`side A ${describeEvent(oa[i]!.entry)}, side B ${describeEvent(ob[i]!.entry)}`]);
  }
  const longer: SideName | undefined = oa.length > ob.length ? 'A' : ob.length > oa.length ? 'B' : undefined;
  if (longer) {
    const rest = (longer === 'A' ? oa : ob).slice(shared);
    const shorter = other(longer);
    const progress = openProgress(shorter === 'A' ? fork.a.events : fork.b.events).at(-1);
    const next = rest[0]!.entry;
    if (progress && !(next.event === 'step_completed' && sameStep(next, progress)))
      return disagree([`side ${shorter} ${describeEvent(progress)}, while side ${longer} ${describeEvent(next)}`]);
  }
  const from = longer ?? further(records.A, records.B);
  const record = records[from] ?? records[other(from)] ?? fork.base;
  const why =
    longer === undefined
      ? oa.length === 0
        ? 'neither side recorded an outcome'
        : 'both sides recorded the same outcomes'
      : ob.length === 0 || oa.length === 0
        ? `only side ${longer} recorded outcomes`
        : `side ${other(longer)}'s outcomes are the first of side ${longer}'s`;
  return {
    kind: 'agree',
    ...(record ? { record } : {}),
    from,
    sides,
    message: `the journal holds two branches' work (${ranges}), and they agree (${why}): merged, at ${describeRecord(record?.pointer)} (side ${from})`,
  };
}

export const rangeText = (r: SeqRange | null) => (r ? (r.from === r.to ? `event ${r.from}` : `events ${r.from}–${r.to}`) : 'no numbered events');

/** The question a disagreeing fork puts to a person: keep side A or side B. */
export function forkDecision(verdict: Extract<ForkVerdict, { kind: 'disagree' }>): Decision {
  const option = (s: SideSummary) => `keep side ${s.side} (${rangeText(s.seqs)}): ${describeRecord(s.position)} — it ${s.did.join('; ')}`;
  return {
    id: 'journal-fork',
    question: "the journal holds two branches' work that disagree: which side does the run go on from?",
    options: [
      { letter: 'A', choice: option(verdict.sides.A), then: 'continue' },
      { letter: 'B', choice: option(verdict.sides.B), then: 'continue' },
    ],
    recommendation: {
      letter: verdict.recommended,
      reason: `side ${verdict.recommended} went further; the other side's events stay in the journal and its files in the folder`,
    },
    line: 0,
  };
}

/** The position a settled fork leaves: the merged one (agree) or the kept side's (a person's answer); null when no record says. */
export function settledPosition(fork: JournalFork, verdict: ForkVerdict, kept?: SideName): Position | null {
  const record = kept ? (kept === 'A' ? fork.a.record : fork.b.record) : verdict.kind === 'agree' ? verdict.record : fork.base;
  return record ? fromPointerRecord(record.pointer) : null;
}

/** The event that settles a fork, at the position it leaves. */
export function mergedEntry(fork: JournalFork, at: Position, how: { settled: 'agreed' } | { settled: 'kept'; kept: SideName }, message: string): JournalEntry {
  return entry('journal_merged', at, {
    fork_point: fork.forkPoint,
    seams: fork.seams,
    sides: { A: fork.a.seqs, B: fork.b.seqs },
    ...how,
    message,
  });
}
