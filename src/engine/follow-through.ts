/**
 * The last action and its follow-through (docs/state-and-journal.md, "Last
 * action and follow-through"): a commitment made is checked later. Every change
 * writes what was done and the step the engine expects next; at re-entry,
 * work that went elsewhere, or a target left untouched while its session went
 * quiet, is said once. Pure.
 */
import type { Event, Outcome } from './transitions.js';
import type { Position } from '../formats/pointer/position.js';
import type { LastAction } from '../formats/pointer/parse-pointer.js';
import type { Step } from '../formats/flow/model.js';
import { formatAge } from './lease.js';
import { isoTime } from '../timestamp.js';

export function describeTarget(p: Position): string {
  if (p.step === 'done') return 'done';
  return `step ${p.step} (${p.name})${p.subStep !== '0' ? `, sub-step ${p.subStep}` : ''}`;
}

function resultOf(event: Event, outcome: Outcome): LastAction['result'] {
  if (event.type === 'fail' || outcome.kind === 'failed') return 'failure';
  if (event.type === 'next' || event.type === 'substep') return 'partial';
  return 'success';
}

/** What this command did, for the pointer's `## Last Action`; undefined when it did nothing worth a line (a refusal, a repeat). */
export function lastActionOf(event: Event, acted: Step | undefined, outcome: Outcome, after: Position, now: Date): LastAction | undefined {
  if (outcome.kind === 'refused' || outcome.kind === 'duplicate') return undefined;
  const where = acted ? ` step ${acted.number} (${acted.name})` : '';
  const detail =
    event.type === 'fail' || event.type === 'skip'
      ? `: ${event.reason}`
      : event.type === 'substep'
        ? `: ${event.text}`
        : event.type === 'decide'
          ? ` ${event.option}`
          : '';
  const action = `${event.type}${where}${detail}`.slice(0, 160);
  return {
    action,
    result: resultOf(event, outcome),
    at: isoTime(now),
    next: describeTarget(after),
    ...(typeof after.step === 'number' ? { nextStep: after.step } : {}),
  };
}

/** Whether the work followed the last session's next target; a sentence when it did not. */
export function followThrough(last: LastAction | undefined, position: Position, now: Date, staleMs: number): string | undefined {
  if (!last || last.nextStep === undefined || position.step === 'done') return undefined;
  if (position.step !== last.nextStep) {
    return `the last session (${last.action}, ${last.at}) expected ${last.next} next, but the work is at ${describeTarget(position)}`;
  }
  const age = now.getTime() - Date.parse(last.at);
  if (position.status === 'not_started' && age > staleMs) {
    return `the last session expected ${last.next} next, and it has not been started in ${formatAge(age)}: that session looks stale`;
  }
  return undefined;
}
