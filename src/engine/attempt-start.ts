/**
 * Issue 29 point 7: every way into a step records its start. Pure. Only
 * `next` begins an attempt (its `step_started`, or a batch's
 * `batch_started`, carries what the attempt is judged and committed by: the
 * work tree as it began, the step's files' hashes). A step the journal has
 * not seen begun — the pointer says `not_started`, or says `in_progress`
 * because a hand edit, the folder or an older autopilot put it there — is
 * begun by `next` as a start, and `substep`, `done` and `fail` on it are
 * refused, naming `next`.
 */
import type { Step } from '../formats/flow/model.js';
import type { Position } from '../formats/pointer/position.js';
import { readSubStep } from '../formats/pointer/sub-step.js';
import type { Problem } from '../errors.js';

/**
 * How the journal saw the run come into a step: the newest event that begins
 * or ends an attempt of it since the run last stood elsewhere — `step_started`,
 * `batch_started`, `batch_completed` (the next batch not begun) — or `none`
 * (a failure, an answer, a hand edit or the folder put the run there). A
 * person's `restore` to the step reads as the start of the attempt its
 * checkpoint was taken in. Read by
 * `io/journal-head.ts` (`attemptOpening`); undefined when the journal is too
 * long to read back that far, which counts as begun (as before this rule).
 */
export type Opening = 'step_started' | 'batch_started' | 'batch_completed' | 'none';

/** Whether the attempt under way was begun on record: in progress, with its (or its batch's) start the newest word. */
export function attemptBegun(position: Position, opened: Opening | undefined): boolean {
  if (position.status !== 'in_progress') return false;
  return opened === undefined || opened === 'step_started' || opened === 'batch_started';
}

/** Whether the step itself was begun on record (a batch may still be to begin). */
export function stepBegun(position: Position, opened: Opening | undefined): boolean {
  return position.status === 'in_progress' && opened !== 'none';
}

/** Why `substep`, `done` or `fail` is refused on a step whose attempt was not begun on record; undefined when it was. */
export function notBegun(step: Step, position: Position, opened: Opening | undefined): Problem | undefined {
  if (attemptBegun(position, opened)) return undefined;
  const sub = readSubStep(position.subStep);
  const what = step.batches && sub.kind === 'batch' ? `batch ${sub.batch} of step ${step.number} (${step.name})` : `step ${step.number} (${step.name})`;
  return {
    message: `${what} is not started: \`autopilot next\` starts it and records the start (the work tree its progress commit holds from, the files \`done\` tells new work by)`,
    expected: '`autopilot next` first',
    received: position.status === 'in_progress' ? 'in_progress, with no start on record in the journal' : `status: ${position.status}`,
  };
}
