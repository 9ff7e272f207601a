/**
 * Issue 29 point 8: the acceptance criteria are the person's. Pure. They are
 * pinned — ids and text — when the step that writes them completes (the step
 * whose Done-when names the criteria file: Problem in greenfield, New Task in
 * each existing-code cycle). Past that step, an edit that drops a criterion or
 * rewrites one is held like a hand edit of the pointer: every command names
 * it, `check` fails, and nothing a step did is recorded (no step result, no
 * progress commit) until a person adopts the edit (`autopilot adopt`, which
 * pins the criteria anew) or the criteria are put back. A criterion added
 * asks more of the work, and is no edit.
 */
import { acceptanceFiles } from '../evidence/ac-coverage.js';
import { loopStart, stepByNumber, withCycle, type Flow } from '../formats/flow/model.js';
import type { CriteriaPin } from '../formats/journal-index.js';
import type { JournalEntry, PinnedCriterion } from '../formats/journal-line.js';
import type { Position } from '../formats/pointer/position.js';
import type { Drift } from './reconcile.js';
import type { Problem } from '../errors.js';

/** An edit of the pinned criteria that is held: each criterion dropped or rewritten. */
export interface CriteriaHeld {
  /** From the repository root, as `done_when` names files. */
  file: string;
  dropped: PinnedCriterion[];
  rewritten: { was: PinnedCriterion; now: PinnedCriterion }[];
  /** The criteria as the file holds them now: what `adopt` pins. */
  now: PinnedCriterion[];
}

/** The criteria file of a flow's cycle, under the docs folder: greenfield's own file, or (a flow that loops) the cycle's task index. */
export function criteriaFile(flow: Flow, cycle: number): string {
  return acceptanceFiles(loopStart(flow) !== undefined ? cycle : undefined).criteria;
}

/** The step that writes the criteria of a cycle: the first whose Done-when names the criteria file; undefined when none does. */
export function criteriaStep(flow: Flow, cycle: number): number | undefined {
  const file = criteriaFile(flow, cycle);
  return flow.steps.find((s) => s.doneWhen.some((p) => withCycle(p, cycle) === file))?.number;
}

/** Each criterion pinned that the file no longer holds as it was. */
export function criteriaChanges(pinned: readonly PinnedCriterion[], now: readonly PinnedCriterion[]): Pick<CriteriaHeld, 'dropped' | 'rewritten'> {
  const byId = new Map(now.map((c) => [c.id, c]));
  const dropped: PinnedCriterion[] = [];
  const rewritten: CriteriaHeld['rewritten'] = [];
  for (const was of pinned) {
    const found = byId.get(was.id);
    if (!found) dropped.push(was);
    else if (found.hash !== was.hash) rewritten.push({ was, now: found });
  }
  return { dropped, rewritten };
}

/**
 * Whether the run stands past the step that pinned the criteria of its cycle:
 * only then is an edit held (the step itself may still write them).
 */
export function pastCriteriaStep(flow: Flow, position: Position, pin: CriteriaPin): boolean {
  const step = criteriaStep(flow, pin.cycle);
  if (step === undefined || position.cycle !== pin.cycle) return false;
  if (position.step === 'done') return true;
  return position.step > step || (position.step === step && (position.status === 'completed' || position.status === 'skipped'));
}

/** Each change in words: `AC-02 dropped`, `AC-03 rewritten`. */
export function changeList(held: Pick<CriteriaHeld, 'dropped' | 'rewritten'>): string[] {
  return [...held.dropped.map((c) => `${c.id} dropped`), ...held.rewritten.map((r) => `${r.was.id} rewritten`)];
}

/** What every command says of a held criteria edit: what changed, and the ways out (the pinned text to put back). */
export function criteriaDrift(flow: Flow, held: CriteriaHeld, at: Position): Drift {
  const step = criteriaStep(flow, at.cycle);
  const name = step === undefined ? 'its step' : `step ${step} (${stepByNumber(flow, step)!.name})`;
  const back = [...held.dropped, ...held.rewritten.map((r) => r.was)].map((c) => `"${c.text}"`).join('; ');
  return {
    kind: 'held-criteria',
    step: at.step,
    message: `the acceptance criteria in ${held.file} changed since ${name} pinned them (${changeList(held).join(', ')}): held, and no step is recorded done until a person adopts the change with \`autopilot adopt\`, or the criteria are put back as pinned: ${back}`,
  };
}

/** Why a step command that would record a result is refused while a criteria edit is held. */
export function criteriaRefusal(flow: Flow, held: CriteriaHeld, at: Position): Problem {
  return {
    file: held.file,
    message: criteriaDrift(flow, held, at).message,
    expected: "the criteria as pinned, or a person's `autopilot adopt` of the change",
    received: changeList(held).join(', '),
  };
}

/** The events that record a step's result or an answer (and owe a progress commit): what a held criteria edit stops. */
const RESULTS = new Set(['step_completed', 'step_skipped', 'batch_completed', 'decision_answered', 'boundary_answered', 'boundary_reached']);

/** Whether entries record a step's result, an answer, or a step failed for good. */
export function recordsResult(entries: readonly JournalEntry[]): boolean {
  return entries.some((e) => RESULTS.has(e.event) || (e.event === 'step_failed' && e.status === 'failed'));
}
