/** `autopilot runs`: every run of the repository, one line each, with what it waits for and the command that answers it. Never writes. */
import { EXIT } from '../errors.js';
import { runJson, runsText } from '../render/runs.js';
import { defineCommand, lazyAnswer } from './command.js';

export const runs = defineCommand({
  name: 'runs',
  summary: 'every run in the repository and what each waits for (never writes)',
  examples: [
    { line: 'autopilot runs', does: 'every run, one line each: where it stands, what it waits for, its branch, who drives it' },
    { line: 'autopilot runs --json', does: 'the same as one JSON object, for a script' },
  ],
  readOnly: true,
  anyRun: true,
  mcp: { tool: 'Every run in the repository and what each waits for. Never writes.', answer: 'runs' },
  run: async (ctx) => {
    // Loaded only here: the overview reads every run's state and asks git once for their branches.
    const { runLines } = await import('../app/views/runs.js');
    return runLines(ctx);
  },
  view: (lines) =>
    lazyAnswer(
      () => ({ runs: lines.map(runJson) }),
      () => runsText(lines),
      EXIT.ok,
    ),
});
