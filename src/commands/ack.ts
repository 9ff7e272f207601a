/** `autopilot ack`: a person has seen the step that failed three times; it may be tried again (rule 3). */
import { stepCommand, type StepArgs } from './step-command.js';

export const ack = stepCommand<StepArgs>({
  name: 'ack',
  summary: 'a person has seen the failed step: allow another three attempts',
  examples: [
    { line: 'autopilot ack', does: 'a person has looked at the failed step: allow three more attempts' },
    { line: 'autopilot ack && autopilot next', does: 'the same, then try the step again' },
  ],
  aimed: true,
  person: true,
  event: () => ({ type: 'ack' }),
});
