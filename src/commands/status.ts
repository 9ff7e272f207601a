/** `autopilot status`: where the work stands, who drives, any guard that is off. Never writes. */
import { runStatus } from '../app/status.js';
import { statusJson } from '../render/json.js';
import { statusText } from '../render/text.js';
import { defineCommand, lazyAnswer } from './command.js';

export const status = defineCommand({
  name: 'status',
  summary: 'where the work stands (never writes)',
  readOnly: true,
  mcp: { tool: 'Where the work stands. Never writes.', answer: 'status' },
  run: (ctx) => runStatus(ctx),
  view: ({ view, exit }) =>
    lazyAnswer(
      () => statusJson(view),
      () => statusText(view),
      exit,
    ),
});
