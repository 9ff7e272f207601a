/**
 * `autopilot exec`: run the project's tests (`verify:`, pinned with the run),
 * or `autopilot exec -- <command>` any command, and record the run (journal
 * event `command_run`: the command, its exit code, the totals read from the
 * runner's summary, the work tree as it began), so that a report's `## Result`
 * is held to what autopilot saw. Exits with the command's own exit code, as
 * `env` or `time` do.
 */
import { resultLines, runExec, type ExecResult } from '../app/step/exec.js';
import type { ExecAnswer } from '../render/answers.js';
import { defineCommand } from './command.js';

/** What the run is to a report: the project's tests, or another command. */
function said(r: ExecResult): string {
  if (r.verify) return `the project's tests${r.runner ? `, totals read from ${r.runner}'s summary` : ', no totals read'}`;
  return r.tests === undefined
    ? 'not the project’s tests: none is known yet'
    : `not the project's tests (\`${r.tests}\`): a report's Result counts only a run of those`;
}

export const exec = defineCommand({
  name: 'exec',
  summary: "run the project's tests (or a command) for the current step and record its exit code and totals (the report's Result)",
  examples: [
    { line: 'autopilot exec', does: "run the project's tests (verify: in .autopilot/config.yml) and record them for the step's report" },
    { line: 'autopilot exec -- npm run lint', does: 'run and record another command (a build, a linter)' },
  ],
  arguments: [
    {
      key: 'command',
      name: '<command...>',
      summary: "a command and its arguments, after `--`: `autopilot exec -- npm run lint`; without one, the project's tests",
      words: true,
      optional: true,
    },
  ],
  mcp: {
    omitted: 'it runs a command whose output streams to the terminal for as long as the command takes; an agent runs it at its shell (`autopilot exec`)',
  },
  run: (ctx, a: { command: string[] }) => runExec(ctx, a.command),
  view: (r) => {
    const json: ExecAnswer = {
      command: r.command,
      exit_code: r.exitCode,
      totals: r.totals,
      runner: r.runner,
      signal: r.signal,
      verify: r.verify,
      seq: r.seq,
      step: r.step,
      result: resultLines(r).join('\n'),
    };
    const passed = r.exitCode === 0 && (r.totals?.failed ?? 0) === 0;
    const text = [
      `${passed ? '✓' : '✗'} Recorded for step ${r.step} (${r.name}), journal event ${r.seq}: ${said(r)}. The report's Result:`,
      '',
      ...resultLines(r),
    ].join('\n');
    return { json, text, exit: r.exitCode ?? 1 };
  },
});
