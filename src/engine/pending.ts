/**
 * The question that waits for a person, wherever a person looks (`status`,
 * the SessionStart context, `report`): a flow's decision (rule 5), a session
 * boundary (rule 4), a step failed three times (rule 3), or a merge whose
 * sides disagree (rule 11). Each with its options, the recommendation and
 * the exact command that answers it, so nobody has to run `next` (which
 * drives, and takes the lease) to read it. Pure.
 */
import { stepByNumber, type Decision, type Flow } from '../formats/flow/model.js';
import { failedTimes, MAX_RETRIES, type Position } from '../formats/pointer/position.js';
import { openDecision, type PendingBoundary } from './boundary.js';

export type PendingKind = 'decision' | 'boundary' | 'failed' | 'fork';

export interface PendingQuestion {
  kind: PendingKind;
  /** The step it is about: the one a decision follows, the one after a boundary, the one that failed. */
  step: number | 'done';
  name: string;
  question: string;
  /** Each answer, with the command that gives it; none for a failure (`ack` is the one answer). */
  options: { letter: string; choice: string; command: string }[];
  recommendation?: { letter: string; reason: string };
  /** A failure: the last attempt's reason, when the journal holds it. */
  reason?: string;
  /** The exact command that answers it: the recommended option's, or `autopilot ack`. */
  command: string;
}

/** The command a person runs to give an option. */
export const decideCommand = (letter: string) => `autopilot decide ${letter}`;

export const ACK_COMMAND = 'autopilot ack';

function fromDecision(kind: PendingKind, decision: Decision, position: Position): PendingQuestion {
  return {
    kind,
    step: position.step,
    name: position.name,
    question: decision.question,
    options: decision.options.map((o) => ({ letter: o.letter, choice: o.choice, command: decideCommand(o.letter) })),
    recommendation: { letter: decision.recommendation.letter, reason: decision.recommendation.reason },
    command: decideCommand(decision.recommendation.letter),
  };
}

/**
 * What waits for a person at `position`, if anything: a fork first (nothing
 * moves until it is settled), then a boundary, a flow's decision, a failure.
 * `fork`: the fork's decision when the journal holds one whose sides
 * disagree; `lastFailure`: the last `fail` reason of a failed step.
 */
export function pendingQuestion(
  flow: Flow,
  position: Position,
  boundary: PendingBoundary | undefined,
  fork?: Decision,
  lastFailure?: string,
): PendingQuestion | undefined {
  if (fork) return fromDecision('fork', fork, position);
  const decision = openDecision(flow, position, boundary);
  if (decision) return fromDecision(boundary ? 'boundary' : 'decision', decision, position);
  if (position.status !== 'failed' || typeof position.step !== 'number') return undefined;
  const step = stepByNumber(flow, position.step);
  return {
    kind: 'failed',
    step: position.step,
    name: step?.name ?? position.name,
    question: `Step ${position.step} (${step?.name ?? position.name}) ${failedTimes(position.retryCount)}: look at why, then allow another ${MAX_RETRIES} attempts?`,
    options: [],
    ...(lastFailure ? { reason: lastFailure } : {}),
    command: ACK_COMMAND,
  };
}
