/** `autopilot next`: re-entry. Reconcile, then say what to do now and mark it in progress. */
import { stepCommand, type StepArgs } from './step-command.js';

export const next = stepCommand<StepArgs>({
  name: 'next',
  summary: 'reconcile, then say what to do now and mark it in progress',
  tool: 'What to do now: the skill to read and done_when; or a stop for the person.',
  aimed: false,
  event: () => ({ type: 'next' }),
});
