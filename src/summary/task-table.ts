/**
 * The summary shown at the session boundary after a decompose step: how many
 * tasks, how many batches, how many complexity points — read from the task
 * table of the step's index (`02_tasks/_index.md`, `02_tasks/tests/_index.md`,
 * `02_tasks/cycle-N/_index.md`), whose format `skills/decompose/SKILL.md`
 * defines (`| Task | Name | Points | Batch | Depends on | Test strategy |`; the
 * summary needs only Task, Points and Batch, in any order). When the table cannot be
 * read, the answer is a problem that says why: the engine never shows numbers
 * the file does not hold.
 *
 * Pure, and light: the index is read by its one parser (`evidence/task-table.ts`,
 * the judges' too), with no Markdown parser. A cell is read as the text it is
 * written in (`**3**` is no number).
 */
import type { Problem } from '../errors.js';
import { cellText } from '../evidence/markdown-tables.js';
import { parseTaskIndex, type IndexTable } from '../evidence/task-table.js';
import { TABLE_INPUT_LIMITS } from '../limits.js';

export interface TaskSummary {
  tasks: number;
  batches: number;
  points: number;
}

/** The task table an index holds, as its problems say it. */
export const TABLE_EXAMPLE =
  '| Task | Name | Points | Batch | Depends on | Test strategy |, one row per task, e.g. | 03 | Parse config | 3 | 2 | 01 | unit per rule |';
/** Whole or decimal points: `3`, `0.5`. */
const POINTS = /^\d+(\.\d+)?$/;

export function summarizeTasks(markdown: string, file: string): TaskSummary | { problem: Problem } {
  const tooLarge = sizeProblem(markdown);
  if (tooLarge)
    return {
      problem: { file, message: `the task index is too large to be one (${tooLarge.measured})`, expected: tooLarge.expected, received: tooLarge.received },
    };
  const { tables } = parseTaskIndex(markdown);
  if (tables.length === 0) return { problem: { file, message: 'the task index has no task table', expected: TABLE_EXAMPLE, received: 'no table' } };
  const table = tables.find(({ columns: c }) => c.task !== undefined && c.points !== undefined && c.batch !== undefined);
  if (table) return summarizeTable(table, file);
  // No table has all three columns: report the one that looks most like the task table.
  const closest = tables.find((t) => t.columns.task !== undefined) ?? tables[0]!;
  const missing = [
    closest.columns.task === undefined ? 'Task' : undefined,
    closest.columns.points === undefined ? 'Points' : undefined,
    closest.columns.batch === undefined ? 'Batch' : undefined,
  ].filter((name) => name !== undefined);
  return {
    problem: {
      file,
      line: closest.line,
      message: `the task table lacks the column(s) ${missing.join(', ')}`,
      expected: TABLE_EXAMPLE,
      received: clip(`| ${closest.header.map(cellText).join(' | ')} |`),
    },
  };
}

function summarizeTable(table: IndexTable, file: string): TaskSummary | { problem: Problem } {
  if (table.rows.length === 0) {
    return { problem: { file, line: table.line, message: 'the task table has no tasks', expected: TABLE_EXAMPLE, received: 'a header row only' } };
  }
  const batches = new Set<string>();
  // Points are summed in hundredths, so 0.1 + 0.2 adds up to 0.3.
  let hundredths = 0;
  for (const { cells, line } of table.rows) {
    const text = (index: number | undefined) => cellText(cells[index!] ?? '');
    const task = text(table.columns.task);
    const points = text(table.columns.points);
    const batch = text(table.columns.batch);
    if (task === '') return { problem: { file, line, message: 'a row of the task table names no task', expected: TABLE_EXAMPLE, received: '(empty)' } };
    if (!POINTS.test(points)) {
      return {
        problem: {
          file,
          line,
          message: `task ${clip(task)} has no number of complexity points`,
          expected: 'a number in the Points column, e.g. 1, 2, 3, 5 or 8',
          received: clip(points) || '(empty)',
        },
      };
    }
    if (batch === '') return { problem: { file, line, message: `task ${clip(task)} is in no batch`, expected: 'a batch number, e.g. 1', received: '(empty)' } };
    hundredths += Math.round(Number(points) * 100);
    batches.add(batchKey(batch));
  }
  return { tasks: table.rows.length, batches: batches.size, points: hundredths / 100 };
}

/** `2`, `Batch 2` and `batch  2` name one batch. */
function batchKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/^batch\s*/, '')
    .replace(/\s+/g, ' ');
}

const clip = (text: string) => (text.length > 60 ? `${text.slice(0, 57)}…` : text);

/**
 * A file past any of the limits is no task index: it is refused before it is
 * read (`TABLE_INPUT_LIMITS`: bytes, lines, and `|` characters, a bound on
 * table cells).
 */
function sizeProblem(markdown: string): { measured: string; expected: string; received: string } | undefined {
  const limits = TABLE_INPUT_LIMITS;
  const bytes = Buffer.byteLength(markdown, 'utf8');
  if (bytes > limits.bytes) return { measured: `${Math.ceil(bytes / 1024)} KB`, expected: `at most ${limits.bytes / 1024} KB`, received: `${bytes} bytes` };
  let lines = 1;
  let pipes = 0;
  for (let i = 0; i < markdown.length; i++) {
    const code = markdown.charCodeAt(i);
    // \n, \r\n and a lone \r each end a line.
    if (code === 13 || (code === 10 && markdown.charCodeAt(i - 1) !== 13)) lines++;
    else if (code === 124) pipes++;
  }
  if (lines > limits.lines) return { measured: `${lines} lines`, expected: `at most ${limits.lines} lines`, received: `${lines} lines` };
  if (pipes > limits.pipes) return { measured: `${pipes} table cell borders`, expected: `at most ${limits.pipes} \`|\` characters`, received: `${pipes}` };
  return undefined;
}
