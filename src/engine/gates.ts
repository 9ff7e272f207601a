/**
 * Rule 7 and issue 29 point 1: which hand edits of the pointer pass a gate a
 * person owns. Pure: the journal's position (where the run last recorded
 * itself), the pointer as a person (or an agent) edited it, and what the
 * shell read about the run → each gate the edit would pass, in a sentence.
 *
 * An edit that passes one is held: the run stays where the journal says,
 * every command names the edit, and only a person's `autopilot adopt` applies
 * it (docs/state-and-journal.md, "Hand edits"). The gates:
 * - `failed`: the journal's step failed three times; any move off it, or a
 *   status or count that revives it, waits for a person (`ack` or `adopt`);
 * - `retries`: `retry_count` lowered below the failures on record, or the
 *   step left backwards with failures on record (coming back to it would
 *   count from 0);
 * - `decision`, `boundary`: forward past a decision or a session boundary
 *   that waits for its answer (for a boundary, a status changed on the step
 *   after it too: only `not_started` waits there);
 * - `batch`: a later batch named while the batch on record is not done;
 * - `flow`: another flow, on a run that has journaled a step;
 * - `ahead`: forward further than the files on disk carry the run, judged as
 *   `done` judges them (`walkFolder`, which stops at a decision, a boundary,
 *   a checkpointed step and the first files that fail), and never past a
 *   step that walks batches.
 * Everything else is respected as before: moving back to redo a step (with
 * no failure on record), a person's words in `sub_step`, a pointer on a run
 * with no journaled step.
 */
import { stepByNumber, type Flow } from '../formats/flow/model.js';
import type { HeldEdit } from '../formats/journal-line.js';
import { failedTimes, type Position } from '../formats/pointer/position.js';
import { batchSubStep, readSubStep } from '../formats/pointer/sub-step.js';
import { openDecision, type PendingBoundary } from './boundary.js';
import { atStep, walkStopText, type WalkStop } from './reconcile.js';

export type Gate = 'failed' | 'retries' | 'decision' | 'boundary' | 'batch' | 'flow' | 'ahead';

export interface GatePassed {
  gate: Gate;
  /** Why the edit passes it: `it moves past …`. */
  why: string;
}

/** What the classifier reads: the two positions and what the shell knows of the run. */
export interface EditFacts {
  /** The flow the run is pinned to (the journal's). */
  flow: Flow;
  /** The journal's last position. */
  journal: Position;
  /** The pointer as edited. */
  edited: Position;
  /** Whether the journal holds any event of a step of this run (a run with none owns no gate yet). */
  stepJournaled: boolean;
  /** A session boundary reached at the journal's position and not answered. */
  boundary?: PendingBoundary;
  /** How far the files on disk carry the run from the journal's position, judged as `done` judges them (`walkFolder`). */
  reach?: { position: Position; stop: WalkStop };
}

const finished = (p: Position) => p.status === 'completed' || p.status === 'skipped';

/** Order in the run: the cycle, the step (`done` last), then a finished step after an unfinished one. */
export function comparePlaces(flow: Flow, a: Position, b: Position): number {
  const step = (p: Position) => (p.step === 'done' ? flow.steps.length + 1 : p.step);
  return a.cycle - b.cycle || step(a) - step(b) || Number(finished(a)) - Number(finished(b));
}

const stepText = (p: Position) => (p.step === 'done' ? 'the end of the flow' : `step ${p.step} (${p.name})`);

/** Where a position stands, in words: `step 2 (Research), completed, retry 0`. */
export const placeText = (p: Position) => (p.step === 'done' ? `${p.flow} done` : `${stepText(p)}, ${p.status}, retry ${p.retryCount}`);

/** Each gate a person owns that the edit would pass; empty when it passes none (and is respected). */
export function gatesPassed(facts: EditFacts): GatePassed[] {
  const { flow, journal: j, edited: p } = facts;
  if (p.flow !== j.flow) {
    if (!facts.stepJournaled) return [];
    return [
      {
        gate: 'flow',
        why: `it changes the flow from ${j.flow} to ${p.flow} on a run that has journaled a step (a new run is a person's \`autopilot reset --flow ${p.flow}\`)`,
      },
    ];
  }
  if (!facts.stepJournaled) return [];
  const same = j.step === p.step && j.cycle === p.cycle;
  const ahead = comparePlaces(flow, p, j) > 0;
  if (j.status === 'failed') {
    const revived = !same || p.status !== 'failed' || p.retryCount < j.retryCount;
    return revived ? [{ gate: 'failed', why: `${stepText(j)} ${failedTimes(j.retryCount)}: only a person's \`autopilot ack\` allows another try` }] : [];
  }
  const out: GatePassed[] = [];
  if (j.retryCount > 0 && ((same && p.retryCount < j.retryCount) || (!same && !ahead))) {
    const how = same ? '`retry_count` lowered' : 'the step left and come back to';
    out.push({ gate: 'retries', why: `${stepText(j)} has ${j.retryCount} failed attempt(s) on record, which ${how} would erase` });
  }
  const decision = openDecision(flow, j, undefined);
  if (decision && ahead)
    out.push({ gate: 'decision', why: `it moves past the decision after ${stepText(j)} ("${decision.question}"), which waits for a person's answer` });
  const boundary = facts.boundary;
  if (boundary && (ahead || (same && p.status !== 'not_started'))) {
    const after = stepByNumber(flow, boundary.after);
    out.push({ gate: 'boundary', why: `it moves past the session boundary after step ${boundary.after} (${after?.name ?? '?'}), which waits for its answer` });
  }
  const batch = same ? skippedBatch(flow, j, p) : undefined;
  if (batch) out.push({ gate: 'batch', why: batch });
  const beyond = ahead && !decision && !boundary ? beyondEvidence(facts) : undefined;
  if (beyond) out.push({ gate: 'ahead', why: beyond });
  return out;
}

/** A later batch named on the same step while the batch on record is not done. */
function skippedBatch(flow: Flow, j: Position, p: Position): string | undefined {
  const step = typeof j.step === 'number' ? stepByNumber(flow, j.step) : undefined;
  const named = readSubStep(p.subStep);
  if (!step?.batches || named.kind !== 'batch') return undefined;
  const recorded = readSubStep(j.subStep);
  const at = recorded.kind === 'batch' ? recorded.batch : 1;
  if (named.batch <= at) return undefined;
  return `it skips to batch ${named.batch} of ${named.of} while batch ${at} is not done (a batch is done only by \`autopilot done\` on it)`;
}

/** Forward further than the judged files on disk carry the run: why, or undefined when they carry it that far. */
function beyondEvidence(facts: EditFacts): string | undefined {
  const { flow, journal: j, edited: p, reach } = facts;
  const step = typeof j.step === 'number' ? stepByNumber(flow, j.step) : undefined;
  let limit: { position: Position; why: string };
  // A step that walks its batches is done only batch by batch: files on disk never carry the run past it.
  if (step?.batches && !finished(j)) limit = { position: j, why: `${stepText(j)} walks its batches, each done only by \`autopilot done\`` };
  else if (!reach) limit = { position: j, why: `nothing on disk carries the run past ${stepText(j)}` };
  else if (reach.stop.kind === 'boundary') {
    const after = stepByNumber(flow, reach.stop.after)!;
    limit = { position: atStep(flow, after, reach.position.cycle, 'completed'), why: walkStopText(flow, reach.stop) };
  } else limit = { position: reach.position, why: walkStopText(flow, reach.stop) };
  if (comparePlaces(flow, p, limit.position) <= 0) return undefined;
  return `it moves the run to ${stepText(p)}, further than the files on disk carry it (${limit.why})`;
}

/**
 * Issue 30 point 6: on a step that walks batches, `batch N of M — ids` is the
 * engine's and a person's words in the sub-step are kept after it, in
 * parentheses. Another batch named, or another step, is the edit as written.
 */
export function keptSubStep(journal: Position, edited: Position): string {
  if (edited.flow !== journal.flow || edited.step !== journal.step || edited.cycle !== journal.cycle) return edited.subStep;
  const recorded = readSubStep(journal.subStep);
  const named = readSubStep(edited.subStep);
  if (recorded.kind !== 'batch' || (named.kind === 'batch' && named.batch !== recorded.batch)) return edited.subStep;
  const prefix = batchSubStep(recorded.batch, recorded.of, recorded.tasks);
  const text = edited.subStep.trim();
  let words: string | undefined;
  if (text.startsWith(prefix)) words = text.slice(prefix.length).replace(/^[\s\u2014\u2013-]+/, '');
  else if (named.kind === 'batch') words = named.note;
  else if (named.kind === 'text') words = text;
  return batchSubStep(recorded.batch, recorded.of, recorded.tasks, words);
}

/** The fields an edit changed, from the journal's position: `{ step: { was: 2, now: 3 } }`. */
export function editedFields(journal: Position, edited: Position): HeldEdit['edited'] {
  const labels: [keyof Position, string][] = [
    ['flow', 'flow'],
    ['step', 'step'],
    ['name', 'name'],
    ['status', 'status'],
    ['subStep', 'sub_step'],
    ['retryCount', 'retry_count'],
    ['cycle', 'cycle'],
  ];
  const out: HeldEdit['edited'] = {};
  for (const [key, label] of labels) if (journal[key] !== edited[key]) out[label] = { was: journal[key], now: edited[key] };
  return out;
}

const fieldsText = (edited: HeldEdit['edited']) =>
  Object.entries(edited)
    .map(([k, v]) => `${k} ${String(v.was)} → ${String(v.now)}`)
    .join(', ');

/**
 * What every command says of a held edit: the fields, the gates, where the
 * run stays, and the ways out. `journaled`: the engine has written the
 * pointer since (with its `## Held Edit` section).
 */
export function heldEditText(held: HeldEdit, at: Position, journaled: boolean): string {
  const out = journaled ? "deleting the pointer's `## Held Edit` section drops it" : 'putting the pointer back drops it';
  return `the pointer was edited by hand (${fieldsText(held.edited)}) past a gate a person owns: ${held.gates.join('; ')}. Held: the run stays where the journal says (${placeText(at)}). A person adopts the edit with \`autopilot adopt\`; ${out}`;
}

/** What is said once a person deleted the section: the edit is dropped, recorded by the next command that writes. */
export function dismissedText(held: HeldEdit): string {
  return `the held hand edit of the pointer (${fieldsText(held.edited)}) was dropped: its \`## Held Edit\` section is gone; the next command that writes records it`;
}
