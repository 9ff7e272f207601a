/** `autopilot checkpoints`: the checkpoints, newest first. */
import { listCheckpoints } from '../app/checkpoints.js';
import { EXIT } from '../errors.js';
import { defineCommand } from './command.js';

export const checkpoints = defineCommand({
  name: 'checkpoints',
  summary: 'list the checkpoints, newest first',
  readOnly: true,
  mcp: { tool: 'List the checkpoints, newest first.', answer: 'checkpoints' },
  run: async (ctx) => listCheckpoints(ctx),
  view: (list) => ({
    json: { checkpoints: list },
    text:
      list.length === 0
        ? 'No checkpoints yet.'
        : list.map((c) => `${c.id}  step ${String(c.step)} ${c.status ?? '?'}  event ${c.seq}${c.note ? `  ${c.note}` : ''}`).join('\n'),
    exit: EXIT.ok,
  }),
});
