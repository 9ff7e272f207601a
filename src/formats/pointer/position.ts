/** Where the work stands: the content of the state pointer, `_docs/_autopilot_state.md`. */

export const STATUSES = ['not_started', 'in_progress', 'completed', 'skipped', 'failed'] as const;
export type Status = (typeof STATUSES)[number];

export const MAX_RETRIES = 3;

export interface Position {
  flow: string;
  /** A step number of the flow, or `done` when a flow without a loop has finished. */
  step: number | 'done';
  name: string;
  /**
   * `completed`/`skipped` only rest on a step while the decision after it waits
   * for an answer; every other finished step moves the pointer on.
   */
  status: Status;
  /** `0`, or the sub-skill's own position, free text. */
  subStep: string;
  /** Consecutive failed attempts of the current step, 0 to 3. */
  retryCount: number;
  /** Which pass through a looping flow this is; 1 for flows that do not loop. */
  cycle: number;
}

export const DONE_NAME = 'Done';

export function samePosition(a: Position, b: Position): boolean {
  return (
    a.flow === b.flow &&
    a.step === b.step &&
    a.name === b.name &&
    a.status === b.status &&
    a.subStep === b.subStep &&
    a.retryCount === b.retryCount &&
    a.cycle === b.cycle
  );
}

/** A failed step labelled with its real count (a hand edit may mark one failed with retries left). */
export function failedTimes(count: number): string {
  return count === 1 ? 'failed once' : count === 0 ? 'failed' : `failed ${count} times`;
}
