/**
 * Rule 7 at the edge (issue 29 point 1): a hand edit of the pointer judged
 * against the gates a person owns (`engine/gates.ts`) with what only the
 * journal and the disk can say — whether the run has journaled a step, a
 * boundary waiting, how far the files carry the run from the journal's
 * position (the walk's steps are judged as `done` judges them, by
 * `read-state.ts`, before the verdict is final) — and a held edit the
 * journal carries, followed until a person adopts it or drops it. Nothing
 * here writes: the transaction journals `edit_held` and `edit_dismissed`
 * with the first command that writes (`app/transaction/transact.ts`).
 */
import { mayWaitAtBoundary, pendingBoundary, BOUNDARY_EVENTS } from '../../engine/boundary.js';
import type { Evidence } from '../../engine/evidence.js';
import { comparePlaces, dismissedText, editedFields, gatesPassed, heldEditText, keptSubStep } from '../../engine/gates.js';
import { walkFolder, type Drift, type Walk } from '../../engine/reconcile.js';
import { stepByNumber, type Flow } from '../../formats/flow/model.js';
import { heldOf, toPointerRecord, type HeldEdit, type JournalEvent } from '../../formats/journal-line.js';
import type { ParsedPointer } from '../../formats/pointer/parse-pointer.js';
import type { Position } from '../../formats/pointer/position.js';
import { latestOf, type JournalHead } from '../../io/journal-head.js';
import type { Repo } from '../../io/repo.js';

/** A hand edit held for a person, as this read found it. */
export interface HeldState {
  edit: HeldEdit;
  /** Seen in the pointer file by this read: journaled (`edit_held`) by the first command that writes. */
  fresh?: true;
  /** Its `## Held Edit` section deleted: dropped, journaled (`edit_dismissed`) by the first command that writes. */
  dismissed?: true;
}

export interface EditVerdict {
  /** Held: the run starts from the journal's position. */
  held?: HeldEdit;
  /** Where the run starts: the journal's position when held, else the edit (the engine's batch prefix kept, issue 30 point 6). */
  start: Position;
  /** The steps the walk from the journal's position would complete, to be judged as `done` judges them. */
  toJudge: Walk['found'];
}

/** The events of a step: a run whose journal holds none of them owns no gate yet, and its pointer is respected as written. */
const STEP_EVENTS: ReadonlySet<JournalEvent> = new Set<JournalEvent>([
  'step_started',
  'step_completed',
  'step_skipped',
  'step_failed',
  'substep',
  'batch_started',
  'batch_completed',
  'decision_answered',
  'boundary_reached',
  'boundary_answered',
  'failure_acknowledged',
]);

export interface EditInput {
  repo: Repo;
  /** The flow the run is pinned to, the journal's. */
  flow: Flow;
  journal: Position;
  edited: Position;
  /** The evidence of a cycle of the run's flow, with the steps judged so far. */
  evidenceOf: (cycle: number, upTo: number) => Evidence;
}

export function judgeEdit(input: EditInput): EditVerdict {
  const { repo, flow, journal: j, edited: p } = input;
  const stepJournaled = latestOf(repo.journalFile, j.flow, STEP_EVENTS) !== undefined;
  const step = typeof j.step === 'number' ? stepByNumber(flow, j.step) : undefined;
  // Forward of the journal: how far the files on disk carry the run from where it stands.
  const forward = stepJournaled && p.flow === j.flow && step !== undefined && comparePlaces(flow, p, j) > 0;
  const walked = forward ? walkFolder(flow, step, input.evidenceOf(j.cycle, step.number), j.status === 'completed' || j.status === 'skipped') : undefined;
  const boundary = stepJournaled && mayWaitAtBoundary(flow, j) ? pendingBoundary(flow, j, latestOf(repo.journalFile, flow.id, BOUNDARY_EVENTS)) : undefined;
  const gates = gatesPassed({
    flow,
    journal: j,
    edited: p,
    stepJournaled,
    boundary,
    reach: walked ? { position: walked.position, stop: walked.walk.stop } : undefined,
  });
  const toJudge = walked?.walk.found ?? [];
  if (gates.length === 0) return { start: { ...p, subStep: keptSubStep(j, p) }, toJudge };
  return { held: { pointer: toPointerRecord(p), edited: editedFields(j, p), gates: gates.map((g) => g.why) }, start: j, toJudge };
}

/** The drift a fresh held edit is said with, in place of the hand edit's. */
export function heldDrift(held: HeldEdit, at: Position, journaled: boolean): Drift {
  return { kind: 'held-edit', step: at.step, message: heldEditText(held, at, journaled) };
}

/**
 * A held edit the journal's last record carries: still pending, or dropped
 * because the pointer file the engine wrote for that record (or a later hand
 * edit of it) has lost its `## Held Edit` section. A pointer that is gone or
 * behind the journal (restored from an older copy) drops nothing.
 */
export function carriedHeld(head: JournalHead, pointer: ParsedPointer | null): HeldState | undefined {
  const edit = heldOf(head.record?.pointer);
  if (!edit || !head.record) return undefined;
  const current = pointer !== null && (pointer.record === undefined || pointer.record.seq >= head.record.seq);
  return current && !pointer.heldSection ? { edit, dismissed: true } : { edit };
}

/** What a held state found by this read says: nothing when there is none. */
export function heldStateDrift(held: HeldState | undefined, at: Position): Drift[] {
  if (!held) return [];
  if (held.dismissed) return [{ kind: 'held-edit', step: at.step, message: dismissedText(held.edit) }];
  return [heldDrift(held.edit, at, !held.fresh)];
}
