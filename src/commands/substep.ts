/** `autopilot substep TEXT`: progress inside the current step, shown at re-entry. */
import { stepCommand, type StepArgs } from './step-command.js';

export const substep = stepCommand<StepArgs & { text: string }>({
  name: 'substep',
  summary: 'record progress inside the current step',
  examples: [
    { line: 'autopilot substep "2 — Restrictions"', does: 'note that the step is at its sub-step 2' },
    { line: 'autopilot substep --step 1 "3 — Acceptance criteria"', does: 'the same, refused if step 1 is no longer the current one' },
  ],
  tool: 'Record progress inside the step.',
  aimed: true,
  arguments: [{ key: 'text', name: '<text...>', summary: 'the sub-skill\'s position, e.g. "2 — Restrictions"' }],
  event: (a) => ({ type: 'substep', text: a.text }),
});
