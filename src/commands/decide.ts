/** `autopilot decide A`: the person's answer to the pending decision or session boundary (rules 4 and 5). */
import { stepCommand, type StepArgs } from './step-command.js';

export const decide = stepCommand<StepArgs & { option: string }>({
  name: 'decide',
  summary: 'answer the pending decision',
  examples: [
    { line: 'autopilot decide A', does: 'a person answers the pending decision with option A' },
    { line: 'autopilot decide B --step 5', does: 'the same with B, refused if the run is no longer at step 5' },
  ],
  aimed: true,
  person: true,
  arguments: [{ key: 'option', name: '<option>', summary: 'the option letter, A to D', choices: ['A', 'B', 'C', 'D'] }],
  event: (a) => ({ type: 'decide', option: a.option }),
});
