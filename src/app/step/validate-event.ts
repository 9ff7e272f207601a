/**
 * What a step command must carry before anything is read: every front end
 * (the CLI, the MCP server) hands its arguments here, so the rules about
 * arguments live in one place.
 */
import type { Event } from '../../engine/transitions.js';
import { InputError } from '../../errors.js';
import { oneLine } from '../../formats/pointer/serialize-pointer.js';
import { FREE_TEXT_MAX_LENGTH } from '../../limits.js';

/** Reasons and sub-steps are one line for the journal and the pointer; a longer text is cut, never refused. */

function reasonOf(command: string, reason: unknown, example: string): string {
  const text = typeof reason === 'string' ? oneLine(reason, FREE_TEXT_MAX_LENGTH) : '';
  if (text === '') {
    throw new InputError({
      message: `${command} needs a reason: it is journaled with why`,
      expected: example,
      received: typeof reason === 'string' ? 'an empty reason' : 'no reason',
    });
  }
  return text;
}

export function validateEvent(event: Event): Event {
  switch (event.type) {
    case 'done':
      if (event.force && event.acceptFailures)
        throw new InputError({
          message:
            '--force and --accept-failures say two things: --force marks the step done whatever its files hold, --accept-failures accepts only its failed tests',
          expected: 'one of them',
          received: 'both',
        });
      if (event.acceptFailures)
        return {
          type: 'done',
          acceptFailures: {
            reason: reasonOf(
              '--accept-failures',
              event.acceptFailures.reason,
              '`autopilot done --accept-failures --reason "the flaky e2e test is tracked in #42"`',
            ),
          },
        };
      if (!event.force) return event;
      return { type: 'done', force: { reason: reasonOf('--force', event.force.reason, '`autopilot done --force --reason "reviewed on paper with Dana"`') } };
    case 'fail':
      return { type: 'fail', reason: reasonOf('fail', event.reason, '`autopilot fail --reason "the build breaks on Node 20"`') };
    case 'skip':
      return { type: 'skip', reason: reasonOf('skip', event.reason, '`autopilot skip --reason "no UI in this project"`') };
    case 'substep': {
      const text = oneLine(event.text, FREE_TEXT_MAX_LENGTH);
      if (text === '')
        throw new InputError({
          message: 'the sub-step text is empty',
          expected: 'the sub-skill\'s position, e.g. `autopilot substep "2 — Restrictions"`',
          received: '""',
        });
      return { type: 'substep', text };
    }
    case 'decide': {
      const option = event.option.trim().toUpperCase();
      if (!/^[A-D]$/.test(option))
        throw new InputError({
          message: `"${oneLine(event.option, 20)}" is not an option letter`,
          expected: 'one of A, B, C, D, e.g. `autopilot decide B`',
          received: oneLine(event.option, 20),
        });
      return { type: 'decide', option };
    }
    default:
      return event;
  }
}

/** `--step N` as given: a step number from 1. */
export function parseStepOption(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === 'number' ? value : /^\d{1,6}$/.test(String(value)) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1)
    throw new InputError({
      message: `--step ${String(value)} is not a step number`,
      expected: 'the step `autopilot next` handed out, e.g. `--step 3`',
      received: String(value),
    });
  return n;
}
