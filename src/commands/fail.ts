/** `autopilot fail --reason TEXT`: the attempt failed; the three-retry rule counts it (rule 3). */
import { stepCommand, type StepArgs } from './step-command.js';

export const fail = stepCommand<StepArgs & { reason: string }>({
  name: 'fail',
  summary: 'the attempt failed: counts toward the three-retry rule',
  tool: 'The attempt failed (3 → failed).',
  aimed: true,
  options: [{ key: 'reason', flags: '--reason <text>', type: 'string', summary: 'what went wrong', required: true }],
  event: (a) => ({ type: 'fail', reason: a.reason ?? '' }),
});
