/**
 * One interpreter per column of the Step Reference Table. Each takes a table
 * cell and returns the value, or what is wrong with the cell.
 */
import type { TableCell } from 'mdast';
import { BATCH_PLACEHOLDER, type Runs, type StepBatches, type Then } from './model.js';
import { inlineCodes, plainText, textOutsideCode } from './mdast.js';
import { patternProblem } from './patterns.js';

export type CellResult<T> = { ok: true; value: T } | { ok: false; message: string; expected: string; received: string };

const ok = <T>(value: T): CellResult<T> => ({ ok: true, value });
const bad = <T>(message: string, expected: string, cell: TableCell): CellResult<T> => ({
  ok: false,
  message,
  expected,
  received: plainText(cell) || '(empty)',
});

export function readStepNumber(cell: TableCell, expectedNumber: number): CellResult<number> {
  const text = plainText(cell);
  if (!/^\d+$/.test(text) || Number(text) !== expectedNumber) {
    return bad(`step ${expectedNumber} is numbered wrongly`, `steps numbered 1, 2, 3… in table order; this row is \`${expectedNumber}\``, cell);
  }
  return ok(expectedNumber);
}

export function readName(cell: TableCell): CellResult<string> {
  const text = plainText(cell);
  return text ? ok(text) : bad('the step has no name', 'a short name, e.g. `Research`', cell);
}

export function readSkill(cell: TableCell): CellResult<string> {
  const text = plainText(cell).replace(/`/g, '');
  return /^[a-z0-9][a-z0-9-]*$/.test(text) ? ok(text) : bad('the skill is not a skill name', 'the name of a folder under `skills/`, e.g. `research`', cell);
}

export function readDoneWhen(cell: TableCell): CellResult<string[]> {
  const patterns = inlineCodes(cell);
  const rest = textOutsideCode(cell)
    .replace(/\band\b|[,;+&]/gi, '')
    .trim();
  if (patterns.length === 0 || rest !== '') {
    return bad(
      'the done-when cell must list file patterns in backticks',
      'patterns under the docs folder, e.g. `01_solution/solution_draft*.md`, `02_document/architecture.md`',
      cell,
    );
  }
  for (const pattern of patterns) {
    const problem = patternProblem(pattern);
    if (problem) return bad(`the done-when pattern \`${pattern}\` is not usable: ${problem}`, 'a relative pattern like `02_tasks/cycle-{cycle}/*.md`', cell);
  }
  return ok(patterns);
}

export function readRuns(cell: TableCell): CellResult<Runs> {
  const words = textOutsideCode(cell).toLowerCase().replace(/\s+/g, ' ').trim();
  const codes = inlineCodes(cell);
  if (codes.length === 0 && words === 'always') return ok({ kind: 'always' });
  if (codes.length === 0 && words === 'optional') return ok({ kind: 'optional' });
  if (codes.length === 1 && /^if\s*(exists?)?$/.test(words)) {
    const problem = patternProblem(codes[0]!);
    if (!problem) return ok({ kind: 'if', pattern: codes[0]! });
    return bad(`the condition \`${codes[0]}\` is not usable: ${problem}`, 'if `00_problem/ui.md` exists', cell);
  }
  return bad('the runs cell is not one of the three forms', '`always`, `optional`, or ``if `00_problem/ui.md` exists``', cell);
}

export function readThen(cell: TableCell): CellResult<Then> {
  const words = textOutsideCode(cell).toLowerCase().replace(/\s+/g, ' ').trim();
  const codes = inlineCodes(cell);
  if (codes.length === 0) {
    if (words === 'next' || words === 'next step') return ok({ kind: 'next' });
    if (words === 'session boundary' || words === 'boundary') return ok({ kind: 'boundary' });
    if (words === 'end') return ok({ kind: 'end' });
    const loop = /^loop to (?:step )?(\d+)$/.exec(words);
    if (loop) return ok({ kind: 'loop', to: Number(loop[1]) });
  }
  if (codes.length === 1 && words === 'decision') return ok({ kind: 'decision', id: codes[0]! });
  return bad('the then cell is not one of the known forms', '`next`, `session boundary`, ``decision `research-round` ``, `loop to step 8` or `end`', cell);
}

/**
 * The Sub-steps cell: free text, or a step that walks a task index batch by
 * batch, ``batches of `02_tasks/_index.md` → `03_implementation/batch_{batch}.md` ``
 * followed by any free text (`· 1 Code and tests · 2 Review`).
 */
export function readBatches(cell: TableCell): CellResult<StepBatches | undefined> {
  const words = textOutsideCode(cell).toLowerCase().replace(/\s+/g, ' ').trim();
  if (!words.startsWith('batches of')) return ok(undefined);
  const expected = 'batches of `02_tasks/_index.md` → `03_implementation/batch_{batch}.md`, then any free text';
  const codes = inlineCodes(cell);
  if (codes.length < 2 || !/^batches of\s*(→|->|into)/.test(words))
    return bad('the batches of the sub-steps cell need the task index and the batch report', expected, cell);
  const [index, report] = [codes[0]!, codes[1]!];
  const indexProblem = patternProblem(index);
  if (indexProblem || /[*?[{]/.test(index.replaceAll('{cycle}', '')))
    return bad(`the task index \`${index}\` is not one file: ${indexProblem ?? 'it holds a glob'}`, expected, cell);
  if (!report.includes(BATCH_PLACEHOLDER)) return bad(`the batch report \`${report}\` does not hold \`{batch}\``, expected, cell);
  const reportProblem = patternProblem(report.replaceAll(BATCH_PLACEHOLDER, '00'));
  if (reportProblem || /[*?[]/.test(report)) return bad(`the batch report \`${report}\` is not usable: ${reportProblem ?? 'it holds a glob'}`, expected, cell);
  return ok({ index, report });
}
