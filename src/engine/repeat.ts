/**
 * Step commands name their step, and a repeated command is recognised. Pure.
 *
 * A command is aimed at the step the agent was handed (the current one when
 * the command started, or `--step N`). By the time it holds the lock, the
 * position may have moved: another window finished the step, or this very
 * command ran before and was killed before it could answer. The latest
 * journal entry about the aimed-at step tells which: if that entry is this
 * command's own kind of result, the command already took effect and succeeds
 * again without recording anything; otherwise it is refused, naming both
 * steps, and never applied to a step it was not meant for.
 */
import type { Problem } from '../errors.js';
import type { Position } from '../state/position.js';
import type { StampedEntry } from './journal-entry.js';
import type { Event } from './transitions.js';

export interface Target {
  flow: string;
  cycle: number;
  step: number;
}

export type RepeatVerdict = { kind: 'apply' } | { kind: 'duplicate'; of: StampedEntry } | { kind: 'moved'; problem: Problem };

/** The entries that say what last happened to a step (others, like `decision_required`, follow from them). */
export const DECISIVE = new Set([
  'step_started',
  'substep',
  'step_completed',
  'step_skipped',
  'step_failed',
  'failure_acknowledged',
  'decision_answered',
  'boundary_answered',
]);

/** `done:greenfield/1/3:a2`: the command, where it was aimed, and the attempt. */
export function commandKey(command: string, target: Target, attempt: number): string {
  return `${command}:${target.flow}/${target.cycle}/${target.step}:a${attempt}`;
}

/** Which command wrote an entry (from its key; for entries older than keys, from the event). */
export function commandOf(e: StampedEntry): string | undefined {
  if (typeof e.key === 'string') return e.key.slice(0, e.key.indexOf(':'));
  const byEvent: Record<string, string> = {
    step_started: 'next',
    substep: 'substep',
    step_completed: 'done',
    step_failed: 'fail',
    failure_acknowledged: 'ack',
    decision_answered: 'decide',
    boundary_answered: 'decide',
  };
  if (e.event === 'step_skipped') return e.by === 'agent' ? 'skip' : undefined;
  return byEvent[e.event];
}

function sameCommand(event: Event, e: StampedEntry): boolean {
  if (commandOf(e) !== event.type) return false;
  if (event.type === 'substep') return e.event === 'substep' && e.sub_step === event.text;
  if (event.type === 'decide')
    return (e.event === 'decision_answered' || e.event === 'boundary_answered') && String(e.option) === event.option.trim().toUpperCase();
  const result: Record<string, string> = { done: 'step_completed', skip: 'step_skipped', fail: 'step_failed', ack: 'failure_acknowledged' };
  return e.event === result[event.type];
}

const label = (step: number | 'done', name: string) => (step === 'done' ? 'the end of the flow' : `step ${step} (${name})`);

/**
 * `latest`: the newest decisive entry about the target step in its cycle, if
 * any. `position`: where the work stands now, under the lock.
 */
export function judgeRepeat(event: Event, target: Target, targetName: string, position: Position, latest: StampedEntry | undefined): RepeatVerdict {
  const here = position.flow === target.flow && position.cycle === target.cycle && position.step === target.step;
  if (latest && sameCommand(event, latest)) {
    // At the aimed-at step, a repeat is a no-op only where applying it again would record it again.
    if (!here) return { kind: 'duplicate', of: latest };
    if (event.type === 'fail' && position.status !== 'in_progress') return { kind: 'duplicate', of: latest };
    if (event.type === 'substep' && position.subStep === event.text) return { kind: 'duplicate', of: latest };
    if (event.type === 'ack' && position.status !== 'failed') return { kind: 'duplicate', of: latest };
    if (event.type === 'decide' && latest.event === 'boundary_answered') return { kind: 'duplicate', of: latest };
  }
  if (here) return { kind: 'apply' };
  return {
    kind: 'moved',
    problem: {
      message: `this \`${event.type}\` was for ${label(target.step, targetName)}${target.cycle > 1 ? ` of cycle ${target.cycle}` : ''}, but the work is now at ${label(position.step, position.name)}${position.cycle > 1 ? ` of cycle ${position.cycle}` : ''}; nothing was recorded`,
      expected: `run \`autopilot next\` to see where the work stands, then act on that step${position.step === 'done' ? '' : ` (or name it: \`--step ${position.step}\`)`}`,
      received: `${event.type} for step ${target.step}`,
    },
  };
}
