/** `autopilot next`: re-entry. Reconcile, then say what to do now and mark it in progress. */
import { stepCommand, type StepArgs } from './step-command.js';

export const next = stepCommand<StepArgs>({
  name: 'next',
  summary: 'reconcile, then say what to do now and mark it in progress',
  tool: 'What to do now: skill file, done_when; or a decision/boundary to show the person.',
  aimed: false,
  event: () => ({ type: 'next' }),
});
