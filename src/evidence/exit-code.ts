/**
 * `exit-code`: a test, implementation or refactor report carries the run it
 * stands on, in a `## Result` section:
 *
 *     Command: npm test
 *     Exit code: 0
 *     Totals: 42 passed, 0 failed
 *
 * and autopilot holds it to the run it recorded itself (`autopilot exec --
 * <command>`, journaled as `command_run`): the report's command must be one
 * run so in this attempt of the step, its exit code and totals must be that
 * run's, and the run must have passed (exit code 0, nothing failed), unless a
 * person accepted the failures (`done --accept-failures`). An agent cannot
 * type a zero: the journaled run decides.
 */
import { findSection, linesOf } from './markdown.js';
import { countsIn, totalsText } from './totals.js';
import type { CommandRun, Finding, Judge, Totals } from './types.js';

export const RESULT_HEADING = 'Result';
const FIELD = /^\s*(?:[-*+]\s+)?(?:\*\*|__)?(command|exit code|totals)(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(.*?)\s*$/i;

export interface ReportedResult {
  command?: { value: string; line: number };
  exitCode?: { value: number | undefined; raw: string; line: number };
  totals?: { value: Totals | undefined; raw: string; line: number };
  line: number;
}

/**
 * A command as compared: its words as a POSIX shell reads them (quotes and
 * backslashes), so `node -e "x y"` and `node -e 'x y'` are one command;
 * backticks around it and a leading `$ ` do not count. A line a shell could
 * not read (an open quote) is compared by its text, spacing aside.
 */
export function commandKey(command: string): string {
  const text = command
    .trim()
    .replace(/^`+|`+$/g, '')
    .replace(/^\$\s+/, '')
    .trim();
  const words = shellWords(text);
  return words ? words.join('\u0000') : text.replace(/\s+/g, ' ');
}

/** The words of a shell line, or undefined when a quote is left open. */
export function shellWords(line: string): string[] | undefined {
  const words: string[] = [];
  let word: string | undefined;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word = (word ?? '') + c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) word = (word ?? '') + line[++i]!;
      else word = (word ?? '') + c;
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i]!;
    } else word = (word ?? '') + c;
  }
  if (quote) return undefined;
  if (word !== undefined) words.push(word);
  return words;
}

/** The `## Result` section's three lines, as the report gives them; undefined when there is no such section. */
export function reportedResult(text: string): ReportedResult | undefined {
  const section = findSection(linesOf(text), RESULT_HEADING);
  if (!section) return undefined;
  const out: ReportedResult = { line: section.heading.line };
  for (const line of section.lines) {
    if (line.code) continue;
    const m = FIELD.exec(line.text);
    if (!m) continue;
    const key = m[1]!.toLowerCase();
    const raw = m[2]!.replace(/^`+|`+$/g, '').trim();
    if (key === 'command' && !out.command) out.command = { value: raw, line: line.number };
    if (key === 'exit code' && !out.exitCode) out.exitCode = { value: /^-?\d+$/.test(raw) ? Number(raw) : undefined, raw, line: line.number };
    if (key === 'totals' && !out.totals) out.totals = { value: countsIn(raw), raw, line: line.number };
  }
  return out;
}

const sameTotals = (a: Totals, b: Totals) => a.passed === b.passed && a.failed === b.failed && (a.skipped ?? 0) === (b.skipped ?? 0);

export const exitCode: Judge = ({ file, text, runs = [], acceptFailures }) => {
  const base = { check: 'exit-code', file, heading: RESULT_HEADING };
  const result = reportedResult(text);
  const how = 'run it with `autopilot exec -- <command>` and copy the Result lines it prints';
  if (!result)
    return [{ ...base, message: 'the report has no `## Result` section', write: `\`## Result\` with \`Command:\`, \`Exit code:\` and \`Totals:\`: ${how}` }];
  const findings: Finding[] = [];
  const at = (line: number | undefined) => ({ ...base, ...(line !== undefined ? { line } : {}) });
  if (!result.command) findings.push({ ...at(result.line), message: 'the Result has no `Command:` line', write: '`Command: <the command run>`' });
  if (!result.exitCode || result.exitCode.value === undefined)
    findings.push({
      ...at(result.exitCode?.line ?? result.line),
      message: 'the Result has no `Exit code: <n>` line',
      write: '`Exit code: <the number the run exited with>`',
    });
  if (!result.totals || !result.totals.value)
    findings.push({
      ...at(result.totals?.line ?? result.line),
      message: 'the Result has no `Totals: <p> passed, <f> failed` line',
      write: '`Totals: <p> passed, <f> failed`',
    });
  if (!result.command) return findings;

  if (runs.length === 0) {
    findings.push({
      ...at(result.command.line),
      message: 'no command was run through autopilot in this attempt of the step, so the result is only what the report says',
      write: how,
    });
    return findings;
  }
  const asked = commandKey(result.command.value);
  const run: CommandRun | undefined = runs.filter((r) => commandKey(r.command) === asked).at(-1);
  if (!run) {
    findings.push({
      ...at(result.command.line),
      message: `\`${result.command.value}\` was not run through autopilot in this attempt (it ran: ${[...new Set(runs.map((r) => `\`${r.command}\``))].join(', ')})`,
      write: `the command autopilot ran, or ${how}`,
    });
    return findings;
  }
  const recorded = `the run autopilot recorded (journal event ${run.seq})`;
  if (result.exitCode?.value !== undefined && result.exitCode.value !== run.exitCode)
    findings.push({
      ...at(result.exitCode.line),
      message: `the report says exit code ${result.exitCode.value}; ${recorded} ${run.exitCode === null ? 'was ended by a signal' : `exited ${run.exitCode}`}`,
      write: `\`Exit code: ${run.exitCode ?? 'none (ended by a signal)'}\``,
    });
  if (run.totals && result.totals?.value && !sameTotals(run.totals, result.totals.value))
    findings.push({
      ...at(result.totals.line),
      message: `the report says ${totalsText(result.totals.value)}; ${recorded} says ${totalsText(run.totals)}`,
      write: `\`Totals: ${totalsText(run.totals)}\``,
    });
  const failed = run.exitCode !== 0 || (run.totals?.failed ?? 0) > 0;
  if (failed && !acceptFailures)
    findings.push({
      ...at(result.exitCode?.line ?? result.line),
      message: `the tests did not pass: \`${run.command}\` ${run.exitCode === null ? 'was ended by a signal' : `exited ${run.exitCode}`}${run.totals ? `, ${totalsText(run.totals)}` : ''} (journal event ${run.seq})`,
      write:
        'fixes, then a green run (`autopilot exec -- <command>`); only a person may accept failed tests: `autopilot done --accept-failures --reason "<why>"`',
      acceptable: true,
    });
  return findings;
};
