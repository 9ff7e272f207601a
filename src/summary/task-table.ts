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
 * Pure (the caller reads the file), but heavy: it loads the Markdown parser,
 * so the shell should import it only when it shows a boundary.
 */
import type { Table, TableCell } from 'mdast';
import type { Problem } from '../errors.js';
import { columnKey, lineOf, plainText, tableRows } from '../flow/mdast.js';
import { topLevelTables } from './top-level-tables.js';

export interface TaskSummary {
  tasks: number;
  batches: number;
  points: number;
}

const TASK_COLUMN = 'task';
// `Tasks` is not among them: the Batches table has a `Tasks` column and is not one row per task.
const POINTS_COLUMNS = ['points', 'complexity', 'complexitypoints'];
const BATCH_COLUMN = 'batch';
/** The task table an index holds, as its problems say it. */
export const TABLE_EXAMPLE =
  '| Task | Name | Points | Batch | Depends on | Test strategy |, one row per task, e.g. | 03 | Parse config | 3 | 2 | 01 | unit per rule |';
/** Whole or decimal points: `3`, `0.5`. */
const POINTS = /^\d+(\.\d+)?$/;

interface Columns {
  task: number;
  points: number;
  batch: number;
}

export function summarizeTasks(markdown: string, file: string): TaskSummary | { problem: Problem } {
  const tables = topLevelTables(markdown, file, 'task index');
  if ('problem' in tables) return tables;
  if (tables.length === 0) return { problem: { file, message: 'the task index has no task table', expected: TABLE_EXAMPLE, received: 'no table' } };

  for (const table of tables) {
    const columns = findColumns(headerOf(table));
    if (columns) return summarizeTable(table, columns, file);
  }
  // No table has all three columns: report the one that looks most like the task table.
  const closest = tables.find((t) => headerOf(t).some((cell) => columnKey(cell) === TASK_COLUMN)) ?? tables[0]!;
  const keys = headerOf(closest).map(columnKey);
  const missing = [
    keys.includes(TASK_COLUMN) ? undefined : 'Task',
    keys.some((k) => POINTS_COLUMNS.includes(k)) ? undefined : 'Points',
    keys.includes(BATCH_COLUMN) ? undefined : 'Batch',
  ].filter((name) => name !== undefined);
  return {
    problem: {
      file,
      line: lineOf(closest),
      message: `the task table lacks the column(s) ${missing.join(', ')}`,
      expected: TABLE_EXAMPLE,
      received: clip(
        `| ${headerOf(closest)
          .map((cell) => plainText(cell))
          .join(' | ')} |`,
      ),
    },
  };
}

const headerOf = (table: Table): TableCell[] => table.children[0]?.children ?? [];

function findColumns(header: TableCell[]): Columns | undefined {
  const keys = header.map(columnKey);
  const task = keys.indexOf(TASK_COLUMN);
  const points = keys.findIndex((k) => POINTS_COLUMNS.includes(k));
  const batch = keys.indexOf(BATCH_COLUMN);
  return task < 0 || points < 0 || batch < 0 ? undefined : { task, points, batch };
}

function summarizeTable(table: Table, columns: Columns, file: string): TaskSummary | { problem: Problem } {
  const { rows } = tableRows(table);
  if (rows.length === 0) {
    return { problem: { file, line: lineOf(table), message: 'the task table has no tasks', expected: TABLE_EXAMPLE, received: 'a header row only' } };
  }
  const batches = new Set<string>();
  // Points are summed in hundredths, so 0.1 + 0.2 adds up to 0.3.
  let hundredths = 0;
  for (const { cells, line } of rows) {
    const text = (index: number) => (cells[index] ? plainText(cells[index]) : '');
    const task = text(columns.task);
    const points = text(columns.points);
    const batch = text(columns.batch);
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
  return { tasks: rows.length, batches: batches.size, points: hundredths / 100 };
}

/** `2`, `Batch 2` and `batch  2` name one batch. */
function batchKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/^batch\s*/, '')
    .replace(/\s+/g, ' ');
}

const clip = (text: string) => (text.length > 60 ? `${text.slice(0, 57)}…` : text);
