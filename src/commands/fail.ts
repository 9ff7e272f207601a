/** `autopilot fail --reason TEXT`: the attempt failed; the three-retry rule counts it (rule 3). */
import { stepCommand, type StepArgs } from './step-command.js';

export const fail = stepCommand<StepArgs & { reason: string }>({
  name: 'fail',
  summary: 'the attempt failed: counts toward the three-retry rule',
  examples: [
    { line: 'autopilot fail --reason "the suite is red"', does: 'count a failed attempt (the third stops for a person)' },
    { line: 'autopilot fail --step 7 --reason "2 tests time out"', does: 'the same, for step 7 only' },
  ],
  tool: 'The attempt failed (3 → failed).',
  aimed: true,
  options: [{ key: 'reason', flags: '--reason <text>', type: 'string', summary: 'what went wrong', required: true }],
  event: (a) => ({ type: 'fail', reason: a.reason ?? '' }),
});
