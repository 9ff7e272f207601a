/**
 * `autopilot status`: where the work stands, who drives, any guard that is
 * off. Never writes. With no run named where the repository holds named runs
 * only: the overview of them (`{ runs }` with `--json`, docs/runs.md).
 */
import { statusOrOverview } from '../app/views/status.js';
import { statusJson } from '../render/json.js';
import { overviewText, runJson } from '../render/runs.js';
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
  anyRun: 'overview',
  mcp: { tool: 'Where the work stands. Never writes.', answer: 'status' },
  run: (ctx) => statusOrOverview(ctx),
  view: (r) =>
    'overview' in r
      ? lazyAnswer(
          () => ({ runs: r.overview.map(runJson) }),
          () => overviewText(r.overview),
          r.exit,
        )
      : lazyAnswer(
          () => statusJson(r.view),
          () => statusText(r.view),
          r.exit,
        ),
});
