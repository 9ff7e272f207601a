/** `autopilot reset`: a person starts the run over; the old pointer and journal are kept aside, dated, and the new journal names them. */
import { runReset } from '../app/setup/reset.js';
import { EXIT } from '../errors.js';
import { defineCommand, PERSON_ONLY_MCP } from './command.js';

export const reset = defineCommand({
  name: 'reset',
  summary: 'start the run over at step 1: the old pointer and journal are moved aside, dated (a person decides)',
  examples: [
    { line: 'autopilot reset', does: 'start the same flow over; the old pointer and journal are kept aside' },
    { line: 'autopilot reset --flow existing-code', does: 'start over with another flow' },
  ],
  person: true,
  options: [{ key: 'flow', flags: '--flow <id>', type: 'string', summary: 'the flow to start (default: the run’s own)' }],
  mcp: { omitted: PERSON_ONLY_MCP },
  run: (ctx, a: { flow?: string }) => runReset(ctx, a.flow),
  view: (r) => {
    const aside = [r.movedAside.pointer, r.movedAside.journal].filter((f): f is string => f !== undefined);
    return {
      json: { flow: r.position.flow, step: r.position.step, name: r.position.name, status: r.position.status, moved_aside: r.movedAside },
      text: [
        ...aside.map((f) => `→ ${f} (kept aside)`),
        `✓ Started ${r.position.flow} over at step 1 (${r.position.name}). Run \`autopilot next\`: it finds what the documents already prove done.`,
      ].join('\n'),
      exit: EXIT.ok,
    };
  },
});
