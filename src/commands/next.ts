/** `autopilot next`: re-entry. Reconcile, then say what to do now and mark it in progress. */
import { stepCommand, type StepArgs } from './step-command.js';

export const next = stepCommand<StepArgs>({
  name: 'next',
  summary: 'reconcile, then say what to do now and mark it in progress',
  examples: [
    { line: 'autopilot next', does: 'what to do now: the step, its skill file, the files that prove it' },
    { line: 'autopilot next --json', does: 'the same as one JSON object, for an agent' },
    { line: 'autopilot --session review-1 next', does: 'as the conversation named review-1' },
  ],
  tool: 'What to do now: the skill to read and done_when; or a stop for the person.',
  aimed: false,
  event: () => ({ type: 'next' }),
});
