/**
 * The task index (`02_tasks/_index.md`, `02_tasks/tests/_index.md`, a
 * cycle's `_index.md`: the format `skills/decompose/SKILL.md` teaches), read
 * by one parser for every reader: the `task-index` judge, the boundary's
 * summary (`summary/task-table.ts`), the batches (`app/transaction/task-batches.ts`), the
 * task files gathered beside it (`io/gather-outputs.ts`) and the run's outputs
 * (`engine/run-outputs.ts`). Its tables are the file's GFM tables as a reader
 * sees them (`markdown-tables.ts`); the task table's columns and the other
 * names each is known by are here and only here. Pure, and no Markdown
 * parser: `done` reads an index without remark.
 */
import { cellText, markdownTables, type MarkdownTable } from './markdown-tables.js';

/** The task table's columns in the order the skill writes them, each with the other names a header may give it. */
export const TASK_COLUMNS = [
  { key: 'task', name: 'Task', also: [] },
  { key: 'name', name: 'Name', also: ['title'] },
  // `Tasks` is not among the names of Task: the Batches table has a `Tasks` column and is not one row a task.
  { key: 'points', name: 'Points', also: ['complexity', 'complexitypoints'] },
  { key: 'batch', name: 'Batch', also: [] },
  { key: 'dependson', name: 'Depends on', also: ['dependencies', 'depends'] },
  { key: 'teststrategy', name: 'Test strategy', also: ['tests'] },
] as const;
export type TaskColumn = (typeof TASK_COLUMNS)[number]['key'];
export const TASK_TABLE_HEADER = `| ${TASK_COLUMNS.map((c) => c.name).join(' | ')} |`;

/** A header cell folded for matching: `Depends on`, `depends-on` and `DEPENDS ON` are one column. */
export const columnKey = (cell: string) => cell.toLowerCase().replace(/[^a-z0-9]/g, '');

/** A cell's plain text: a link's text, no emphasis or code marks. */
export const plain = (cell: string) =>
  cell
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`]/g, '')
    .trim();

export interface IndexTable extends MarkdownTable {
  /** Each header cell folded (`columnKey`). */
  keys: string[];
  /** Where each of the task table's columns is: the first header cell with its name or another of its names. */
  columns: Partial<Record<TaskColumn, number>>;
}

export interface TaskIndex {
  /** Every table of the file, in order. */
  tables: IndexTable[];
}

export function parseTaskIndex(text: string): TaskIndex {
  const tables = markdownTables(text).map((table) => {
    const keys = table.header.map((cell) => columnKey(cellText(cell)));
    const columns: IndexTable['columns'] = {};
    for (const c of TASK_COLUMNS) {
      const at = keys.findIndex((k) => k === c.key || (c.also as readonly string[]).includes(k));
      if (at >= 0) columns[c.key] = at;
    }
    return { ...table, keys, columns };
  });
  return { tables };
}

/**
 * The tables as the judges and the batches read them: those whose header row
 * opens with `|`, each up to its first row that does not (a reader's table
 * may go on through lines with no `|` in front; the judges' ends there).
 */
function judgedTables(index: TaskIndex): IndexTable[] {
  return index.tables
    .filter((t) => t.piped)
    .map((t) => {
      const end = t.rows.findIndex((r) => !r.piped);
      return end < 0 ? t : { ...t, rows: t.rows.slice(0, end) };
    });
}

/** The task table the judges and the batches read: the first of their tables with a Task column. */
export const taskTableOf = (index: TaskIndex): IndexTable | undefined => judgedTables(index).find((t) => t.columns.task !== undefined);

/** The names beside the index that are task `id`'s file: `<id>_….md`, `<id>-…`, `<id>.md`, in any case. */
export function taskFileNames(id: string, siblings: readonly string[]): string[] {
  const key = id.toLowerCase();
  return siblings.filter((n) => {
    const name = n.toLowerCase();
    return name.startsWith(`${key}_`) || name.startsWith(`${key}-`) || name === `${key}.md`;
  });
}

export interface TaskRow {
  id: string;
  name: string;
  batch: number;
  /** Criterion ids the Coverage table names for this task, in table order. */
  criteria: string[];
}

/**
 * The index's tasks as data: each task's id, name and batch, and which
 * acceptance criteria (or test case ids) the `## Coverage` table gives it. A
 * row it cannot read (no id, a batch that is no number, an id listed before)
 * is left out here and refused by the judge (`task-index.ts`).
 */
export function readTaskTable(text: string): TaskRow[] | undefined {
  const index = parseTaskIndex(text);
  const table = taskTableOf(index);
  const { task, name, batch } = table?.columns ?? {};
  if (!table || task === undefined || batch === undefined) return undefined;
  const rows: TaskRow[] = [];
  for (const row of table.rows) {
    const cells = row.cells.map(plain);
    const id = cells[task] ?? '';
    const b = cells[batch] ?? '';
    if (!id || !/^\d{1,4}$/.test(b) || Number(b) < 1 || rows.some((r) => r.id === id)) continue;
    rows.push({ id, name: name === undefined ? '' : (cells[name] ?? ''), batch: Number(b), criteria: [] });
  }
  addCoverage(index, rows);
  return rows;
}

/** The Coverage table, `| Criterion | Tasks |`: a row a criterion, naming the tasks that serve it. */
function addCoverage(index: TaskIndex, rows: TaskRow[]): void {
  const coverage = judgedTables(index).find((t) => t.keys.includes('criterion') && t.keys.includes('tasks'));
  if (!coverage) return;
  const [c, ts] = [coverage.keys.indexOf('criterion'), coverage.keys.indexOf('tasks')];
  for (const line of coverage.rows) {
    const cells = line.cells.map(plain);
    const criterion = cells[c] ?? '';
    if (!criterion) continue;
    for (const id of (cells[ts] ?? '').split(/[,;\s]+/).filter(Boolean)) {
      const row = rows.find((r) => r.id.toLowerCase() === id.toLowerCase());
      if (row && !row.criteria.includes(criterion)) row.criteria.push(criterion);
    }
  }
}

/** The batches in order, each its task ids (the index's batch numbers sorted; a gap in them is closed). */
export function batchesOf(rows: readonly TaskRow[]): string[][] {
  const numbers = [...new Set(rows.map((r) => r.batch))].sort((a, b) => a - b);
  return numbers.map((n) => rows.filter((r) => r.batch === n).map((r) => r.id));
}
