/** `autopilot substep TEXT`: progress inside the current step, shown at re-entry. */
import { stepCommand, type StepArgs } from './step-command.js';

export const substep = stepCommand<StepArgs & { text: string }>({
  name: 'substep',
  summary: 'record progress inside the current step',
  tool: 'Record progress inside the step.',
  aimed: true,
  arguments: [{ key: 'text', name: '<text...>', summary: 'the sub-skill\'s position, e.g. "2 — Restrictions"' }],
  event: (a) => ({ type: 'substep', text: a.text }),
});
