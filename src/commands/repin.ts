/** `autopilot repin`: adopt the flow file, the skills and the task index as they are now for the run under way (journaled). */
import { runRepin } from '../app/repin.js';
import { EXIT } from '../errors.js';
import { defineCommand, PERSON_ONLY_MCP } from './command.js';

export const repin = defineCommand({
  name: 'repin',
  summary: 'adopt the flow file and skills as they are now for the run under way (journaled)',
  examples: [
    { line: 'autopilot repin', does: 'adopt the edited flow file or skills for the run under way' },
    { line: 'autopilot repin --json', does: 'the same; the changes as one JSON object' },
  ],
  person: true,
  mcp: { omitted: PERSON_ONLY_MCP, answer: 'repin' },
  run: (ctx) => runRepin(ctx),
  view: (r) => ({
    json: { repinned: r.changes.length > 0, changes: r.changes, step: r.position.step, name: r.position.name },
    text:
      r.changes.length === 0
        ? 'Nothing to repin: the run already uses the flow file and skills as they are.'
        : `✓ Repinned: ${r.changes.join('; ')}. Run \`autopilot next\`.`,
    exit: EXIT.ok,
  }),
});
