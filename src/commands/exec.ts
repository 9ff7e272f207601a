/**
 * `autopilot exec -- <command>`: run the step's tests (or any command) and
 * record the run (journal event `command_run`: the command, its exit code, its
 * totals), so that a report's `## Result` is held to what autopilot saw.
 * Exits with the command's own exit code, as `env` or `time` do.
 */
import { resultLines, runExec } from '../app/exec.js';
import type { ExecAnswer } from '../render/answers.js';
import { defineCommand } from './command.js';

export const exec = defineCommand({
  name: 'exec',
  summary: "run a command for the current step and record its exit code and totals (the report's Result)",
  examples: [
    { line: 'autopilot exec -- npm test', does: "run the suite and record its exit code for the step's report" },
    { line: 'autopilot exec -- npx vitest run test/unit', does: 'the same, for one folder of tests' },
  ],
  arguments: [{ key: 'command', name: '<command...>', summary: 'the command and its arguments, after `--`: `autopilot exec -- npm test`', words: true }],
  mcp: {
    omitted:
      'it runs a command whose output streams to the terminal for as long as the command takes; an agent runs it at its shell (`autopilot exec -- npm test`)',
  },
  run: (ctx, a: { command: string[] }) => runExec(ctx, a.command),
  view: (r) => {
    const json: ExecAnswer = {
      command: r.command,
      exit_code: r.exitCode,
      ...(r.totals ? { totals: r.totals } : {}),
      ...(r.signal ? { signal: r.signal } : {}),
      seq: r.seq,
      step: r.step,
      result: resultLines(r).join('\n'),
    };
    const passed = r.exitCode === 0 && (r.totals?.failed ?? 0) === 0;
    const text = [`${passed ? '✓' : '✗'} Recorded for step ${r.step} (${r.name}), journal event ${r.seq}. The report's Result:`, '', ...resultLines(r)].join(
      '\n',
    );
    return { json, text, exit: r.exitCode ?? 1 };
  },
});
