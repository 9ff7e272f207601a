/** `autopilot status`: where the work stands, who drives, any guard that is off. Never writes. */
import { runStatus } from '../app/views/status.js';
import { statusJson } from '../render/json.js';
import { statusText } from '../render/text.js';
import { defineCommand, lazyAnswer } from './command.js';

export const status = defineCommand({
  name: 'status',
  summary: 'where the work stands (never writes)',
  examples: [
    { line: 'autopilot status', does: 'where the work stands, in a few lines' },
    { line: 'autopilot status --json', does: 'the same as one JSON object, for a script' },
    { line: 'autopilot -C ../app status', does: 'for the repository in ../app' },
  ],
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
