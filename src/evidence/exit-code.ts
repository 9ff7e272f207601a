/**
 * `exit-code`: a test, implementation, refactor or performance report carries
 * the run it stands on, in a `## Result` section:
 *
 *     Command: npm test
 *     Exit code: 0
 *     Totals: 42 passed, 0 failed
 *
 * and autopilot holds it to a run it observed itself (issue 29, point 4): a
 * run of the project's own test command (`verify:`, pinned with the run), by
 * `autopilot exec`, in this attempt of the step (journaled as `command_run`),
 * whose exit code was 0, whose output's totals autopilot read (from the
 * runner's own summary) and counted at least one test, with nothing outside
 * the docs folder changed after it began, and what the command runs as it
 * was pinned. The report's lines must be that run's. A failed run, one with no
 * totals autopilot reads or with no test, stands only where a person accepts
 * it (`done --accept-failures`). An agent's word is not proof: the journaled
 * run decides. Where a person said the project has no tests (`verify: none`),
 * the Result is the report's own words.
 */
import { findSection, linesOf } from './markdown.js';
import { RUNNERS } from './runners/index.js';
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

/** The command a person runs to name the test command, as a finding says it. */
const NAME_IT = 'autopilot repin --verify "<command>"` (or `--verify none --reason "<why>"`)';

const HOW = "run the tests with `autopilot exec` (it runs the project's test command) and copy the Result lines it prints";

/** The Result's own lines: each of the three that is missing. */
function missingLines(result: ReportedResult, at: (line: number | undefined) => Omit<Finding, 'message' | 'write'>): Finding[] {
  const findings: Finding[] = [];
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
  return findings;
}

/** What stands between the run autopilot saw and a result: its lines against the report's, its outcome, what changed since. */
function runFindings(
  result: ReportedResult,
  run: CommandRun,
  verify: string,
  at: (line: number | undefined) => Omit<Finding, 'message' | 'write'>,
  acceptFailures: boolean,
): Finding[] {
  const findings: Finding[] = [];
  const recorded = `the run autopilot saw (journal event ${run.seq})`;
  if (result.command && commandKey(result.command.value) !== commandKey(verify))
    findings.push({
      ...at(result.command.line),
      message: `the report says the command was \`${result.command.value}\`; the project's tests are \`${verify}\`, and that is ${recorded}`,
      write: `\`Command: ${verify}\``,
    });
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
  const accept = 'only a person may accept it: `autopilot done --accept-failures --reason "<why>"`';
  const failed = run.exitCode !== 0 || (run.totals?.failed ?? 0) > 0;
  if (failed && !acceptFailures)
    findings.push({
      ...at(result.exitCode?.line ?? result.line),
      message: `the tests did not pass: \`${run.command}\` ${run.exitCode === null ? 'was ended by a signal' : `exited ${run.exitCode}`}${run.totals ? `, ${totalsText(run.totals)}` : ''} (journal event ${run.seq})`,
      write: `fixes, then a green run (\`autopilot exec\`); ${accept}`,
      acceptable: true,
    });
  else if (!run.totals && !acceptFailures)
    findings.push({
      ...at(result.totals?.line ?? result.line),
      message: `autopilot read no totals in the output of \`${run.command}\` (journal event ${run.seq}); it reads ${RUNNERS}`,
      write: `the tests run with a reporter whose summary autopilot reads (a runner's default one), then \`autopilot exec\` again; ${accept}`,
      acceptable: true,
    });
  else if (run.totals && run.totals.passed + run.totals.failed === 0 && !acceptFailures)
    findings.push({
      ...at(result.totals?.line ?? result.line),
      message: `\`${run.command}\` ran no test (journal event ${run.seq}: ${totalsText(run.totals)})`,
      write: `tests the runner finds, then \`autopilot exec\` again; ${accept}`,
      acceptable: true,
    });
  if (run.changedAfter && run.changedAfter.length > 0) {
    const shown = run.changedAfter.slice(0, 5).map((p) => `\`${p}\``);
    const more = run.changedAfter.length > 5 ? ` and ${run.changedAfter.length - 5} more` : '';
    findings.push({
      ...at(result.line),
      message: `${shown.join(', ')}${more} changed after ${recorded} began: its result is not of the code as it stands`,
      write: 'the tests run again on the code as it is: `autopilot exec`',
    });
  }
  return findings;
}

export const exitCode: Judge = ({ file, text, runs = [], acceptFailures, verify }) => {
  const base = { check: 'exit-code', file, heading: RESULT_HEADING };
  const result = reportedResult(text);
  if (!result)
    return [{ ...base, message: 'the report has no `## Result` section', write: `\`## Result\` with \`Command:\`, \`Exit code:\` and \`Totals:\`: ${HOW}` }];
  // A person said the project has no tests: the Result is the report's own words.
  if (verify?.command === null) return [];
  const at = (line: number | undefined) => ({ ...base, line });
  const findings = missingLines(result, at);
  const command = verify?.command;
  if (command === undefined) {
    findings.push({
      ...at(result.line),
      message:
        "autopilot knows no test command for this project (no `verify:` in .autopilot/config.yml, and none found in the project's files), so no run can stand behind the result",
      write: `the person names it: ask them to run \`${NAME_IT}\``,
    });
    return findings;
  }
  if (verify!.changed.length > 0) {
    findings.push({
      ...at(result.line),
      message: `what \`${command}\` runs changed since the run pinned it (${verify!.changed.join('; ')}), so a run of it is not the project's tests as pinned`,
      write: 'those files put back as they were, or the person adopts the change: ask them to run `autopilot repin`',
    });
    return findings;
  }
  const run = runs.filter((r) => commandKey(r.command) === commandKey(command)).at(-1);
  if (!run) {
    const others = [...new Set(runs.map((r) => `\`${r.command}\``))];
    findings.push({
      ...at(result.command?.line ?? result.line),
      message: `autopilot saw no run of the project's tests (\`${command}\`) in this attempt of the step${others.length > 0 ? ` (it ran ${others.join(', ')}, which ${others.length === 1 ? 'is' : 'are'} not)` : ''}, so the result is only what the report says`,
      write: HOW,
    });
    return findings;
  }
  return [...findings, ...runFindings(result, run, command, at, acceptFailures === true)];
};
