/** `autopilot skip --reason TEXT`: an optional step passed over on purpose, journaled as a waiver. */
import { stepCommand, type StepArgs } from './step-command.js';

export const skip = stepCommand<StepArgs & { reason: string }>({
  name: 'skip',
  summary: 'skip the current step, if it is optional',
  examples: [
    { line: 'autopilot skip --reason "no network surface"', does: 'pass over the current optional step' },
    { line: 'autopilot skip --step 8 --reason "an internal tool"', does: 'the same, for step 8 only' },
  ],
  tool: 'Skip an optional step.',
  aimed: true,
  options: [{ key: 'reason', flags: '--reason <text>', type: 'string', summary: 'why it is skipped', required: true }],
  event: (a) => ({ type: 'skip', reason: a.reason ?? '' }),
});
