/** `autopilot log [-n N]`: the journal, newest last; `-n` reads only the end of the file. */
import { runLog } from '../app/log.js';
import { EXIT } from '../errors.js';
import { logJson } from '../render/json.js';
import { logText } from '../render/text.js';
import { defineCommand } from './command.js';

export const log = defineCommand({
  name: 'log',
  summary: 'the journal, newest last',
  examples: [
    { line: 'autopilot log', does: 'the journal, newest last' },
    { line: 'autopilot log -n 20', does: 'only the last 20 events' },
  ],
  options: [{ key: 'limit', flags: '-n, --limit <count>', type: 'count', summary: 'only the last <count> events (read from the end of the file)' }],
  readOnly: true,
  mcp: { tool: 'The journal, newest last.', answer: 'log' },
  run: async (ctx, a: { limit?: number }) => ({ ...runLog(ctx, a.limit), limit: a.limit }),
  view: (r) => ({ json: logJson(r), text: logText(r, r.limit), exit: EXIT.ok }),
});
