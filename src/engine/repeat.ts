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
import type { Position } from '../formats/pointer/position.js';
import type { JournalEvent, StampedEntry } from '../formats/journal-line.js';
import type { Event } from './transitions.js';

export interface Target {
  flow: string;
  cycle: number;
  step: number;
}

export type RepeatVerdict = { kind: 'apply' } | { kind: 'duplicate'; of: StampedEntry } | { kind: 'moved'; problem: Problem };

/** The entries that say what last happened to a step (others, like `decision_required`, follow from them). */
export const DECISIVE: ReadonlySet<JournalEvent> = new Set<JournalEvent>([
  'step_started',
  'substep',
  'step_completed',
  'step_skipped',
  'step_failed',
  'failure_acknowledged',
  'decision_answered',
  'boundary_answered',
]);

/** What a command was given besides its step: the reason, the text, the option. */
export function argumentsOf(event: Event): string {
  switch (event.type) {
    case 'fail':
    case 'skip':
      return event.reason;
    case 'substep':
      return event.text;
    case 'decide':
      return event.option.trim().toUpperCase();
    case 'done':
      return event.force ? `force:${event.force.reason}` : '';
    default:
      return '';
  }
}

/** A short, stable digest of a command's arguments (FNV-1a), so a key says whether two commands were the same. */
function digest(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

/** `done:greenfield/1/3:a2:811c9dc5`: the command, where it was aimed, the attempt, and a digest of its arguments. */
export function commandKey(event: Event, target: Target, attempt: number): string {
  return `${event.type}:${target.flow}/${target.cycle}/${target.step}:a${attempt}:${digest(argumentsOf(event))}`;
}

/**
 * The last thing this session recorded was this very command, with these
 * arguments, and the work is where it left it: running it again is a retry
 * (after a kill, or an agent that did not see the answer). To act twice in a
 * row on purpose, name the step with `--step N`.
 */
export function repeatsLastCommand(event: Event, session: string, last: { key?: string; session: string } | undefined): boolean {
  if (!last?.key || last.session !== session || !['done', 'skip', 'fail', 'decide', 'ack'].includes(event.type)) return false;
  const [command, , , args] = last.key.split(':');
  // A reason is no part of what the command does: a reworded `fail` or `skip` is the same command.
  const wordingFree = event.type === 'fail' || event.type === 'skip';
  return command === event.type && (wordingFree || args === digest(argumentsOf(event)));
}

/** Which command wrote an entry (from its key; for entries older than keys, from the event). */
export function commandOf(e: StampedEntry): string | undefined {
  if (e.key !== undefined) return e.key.slice(0, e.key.indexOf(':'));
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
  if (event.type === 'decide') return (e.event === 'decision_answered' || e.event === 'boundary_answered') && e.option === event.option.trim().toUpperCase();
  // One attempt, one failure: a second `fail` (or `skip`) of the same attempt is the same command, whatever its wording.
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
    if (event.type === 'decide') return { kind: 'duplicate', of: latest };
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
