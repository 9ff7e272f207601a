/**
 * `task-index`: the task table of a task index (`02_tasks/_index.md`, a new
 * task's table) is checked, not remarked on. Its header has the columns Task,
 * Name, Points, Batch, Depends on and Test strategy; every row is a task whose
 * file lies beside the index (`<id>_<name>.md`), whose points come from the
 * scale (1, 2, 3, 5, 8), whose batch is a number, whose dependencies are
 * tasks of the table in earlier batches, and which has a test strategy.
 * Each task file is real (`task-files.ts`): a regular file with the task
 * template's sections, not a link, a folder, a device or an empty file.
 * The table is the first one whose header has a `Task` column; read line by
 * line (a Markdown table is one row a line).
 */
import { headingOf, linesOf, type Line } from './markdown.js';
import { taskFileFindings } from './task-files.js';
import type { Finding, Judge, JudgeInput } from './types.js';

export const POINTS_SCALE = [1, 2, 3, 5, 8] as const;
const COLUMNS = [
  { key: 'task', name: 'Task', also: [] },
  { key: 'name', name: 'Name', also: ['title'] },
  { key: 'points', name: 'Points', also: ['complexity', 'complexitypoints'] },
  { key: 'batch', name: 'Batch', also: [] },
  { key: 'dependson', name: 'Depends on', also: ['dependencies', 'depends'] },
  { key: 'teststrategy', name: 'Test strategy', also: ['tests'] },
] as const;
type Key = (typeof COLUMNS)[number]['key'];
export const TASK_TABLE_HEADER = `| ${COLUMNS.map((c) => c.name).join(' | ')} |`;
const NONE = new Set(['', '-', '—', '–', 'none', 'n/a', 'na']);

export const columnKey = (cell: string) => cell.toLowerCase().replace(/[^a-z0-9]/g, '');
/** A cell's plain text: a link's text, no emphasis or code marks. */
export const plain = (cell: string) =>
  cell
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`]/g, '')
    .trim();

export function cellsOf(line: string): string[] {
  let t = line.trim();
  if (t.startsWith('|')) t = t.slice(1);
  if (t.endsWith('|') && !t.endsWith('\\|')) t = t.slice(0, -1);
  return t.split(/(?<!\\)\|/).map((c) => c.trim());
}

const isTableLine = (l: Line) => !l.code && l.text.trim().startsWith('|');
const isSeparator = (cells: string[]) => cells.length > 0 && cells.every((c) => /^:?-{1,}:?$/.test(c));

export interface Table {
  header: Line;
  rows: Line[];
}

export function tablesOf(lines: Line[]): Table[] {
  const out: Table[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!isTableLine(lines[i]!) || (i > 0 && isTableLine(lines[i - 1]!))) continue;
    if (!isTableLine(lines[i + 1]!) || !isSeparator(cellsOf(lines[i + 1]!.text))) continue;
    const rows: Line[] = [];
    for (let j = i + 2; j < lines.length && isTableLine(lines[j]!); j++) rows.push(lines[j]!);
    out.push({ header: lines[i]!, rows });
  }
  return out;
}

/** The names beside the index that are task `id`'s file: `<id>_….md`, `<id>-…`, `<id>.md`, in any case. */
export function taskFileNames(id: string, siblings: readonly string[]): string[] {
  const key = id.toLowerCase();
  return siblings.filter((n) => {
    const name = n.toLowerCase();
    return name.startsWith(`${key}_`) || name.startsWith(`${key}-`) || name === `${key}.md`;
  });
}

/** A row's task file beside the index: there, and real (`task-files.ts`, when the edge gathered what the disk says of it). */
function rowFiles(
  where: Omit<Finding, 'message' | 'write'>,
  id: string,
  input: Pick<JudgeInput, 'file' | 'taskFiles' | 'taskTemplate'> & { siblings: string[] },
): Finding[] {
  const own = taskFileNames(id, input.siblings);
  if (own.length === 0)
    return [{ ...where, message: `task ${id} has no task file beside the index`, write: `the task's file, \`${id}_<short_name>.md\`, in the index's folder` }];
  return own.flatMap((name) => {
    const fact = input.taskFiles?.[name];
    return fact ? taskFileFindings(input.file, id, name, fact, input.taskTemplate) : [];
  });
}

export const taskIndex: Judge = ({ file, text, siblings, taskFiles, taskTemplate }) => {
  const lines = linesOf(text);
  const base = { check: 'task-index', file };
  const table = tablesOf(lines).find((t) => cellsOf(t.header.text).some((c) => columnKey(c) === 'task'));
  if (!table)
    return [{ ...base, message: 'the file has no task table (no table with a `Task` column)', write: `the task table: ${TASK_TABLE_HEADER}, one row a task` }];
  let heading: string | undefined;
  for (const l of lines) {
    if (l.number > table.header.number) break;
    heading = headingOf(l)?.text ?? heading;
  }
  const at = (line: number) => ({ ...base, line, ...(heading ? { heading } : {}) });
  const header = cellsOf(table.header.text).map(columnKey);
  const index = new Map<Key, number>();
  for (const c of COLUMNS) {
    const i = header.findIndex((h) => h === c.key || (c.also as readonly string[]).includes(h));
    if (i >= 0) index.set(c.key, i);
  }
  const missing = COLUMNS.filter((c) => !index.has(c.key));
  if (missing.length > 0)
    return [
      {
        ...at(table.header.number),
        message: `the task table lacks the column(s) ${missing.map((c) => c.name).join(', ')}`,
        write: `the header ${TASK_TABLE_HEADER}`,
      },
    ];
  if (table.rows.length === 0) return [{ ...at(table.header.number), message: 'the task table has no task', write: 'one row a task' }];

  const findings: Finding[] = [];
  const rows = table.rows.map((line) => {
    const cells = cellsOf(line.text);
    const get = (k: Key) => plain(cells[index.get(k)!] ?? '');
    return { line, id: get('task'), name: get('name'), points: get('points'), batch: get('batch'), deps: get('dependson'), strategy: get('teststrategy') };
  });
  const batchOf = new Map<string, number>();
  for (const r of rows) {
    const batch = /^\d+$/.test(r.batch) ? Number(r.batch) : NaN;
    if (r.id) batchOf.set(r.id.toLowerCase(), batch);
  }
  const seen = new Set<string>();
  for (const r of rows) {
    const where = at(r.line.number);
    if (!r.id) {
      findings.push({ ...where, message: 'a row has no task id', write: 'the task id (e.g. `01`) in the Task column' });
      continue;
    }
    const id = r.id.toLowerCase();
    if (seen.has(id)) findings.push({ ...where, message: `task ${r.id} is listed twice`, write: 'one row a task' });
    seen.add(id);
    if (!r.name || NONE.has(r.name.toLowerCase())) findings.push({ ...where, message: `task ${r.id} has no name`, write: 'a short name' });
    if (siblings) findings.push(...rowFiles(where, r.id, { file, siblings, taskFiles, taskTemplate }));
    if (!(POINTS_SCALE as readonly number[]).includes(Number(r.points)) || !/^\d+$/.test(r.points))
      findings.push({
        ...where,
        message: `task ${r.id} has points "${r.points}", not on the scale`,
        write: `one of ${POINTS_SCALE.join(', ')} (split a larger task)`,
      });
    const batch = batchOf.get(id)!;
    if (!Number.isSafeInteger(batch) || batch < 1)
      findings.push({ ...where, message: `task ${r.id} has batch "${r.batch}"`, write: 'the number of its batch: 1, 2, …' });
    if (!r.strategy || NONE.has(r.strategy.toLowerCase()) || /\{\{|\b(TODO|TBD)\b/.test(r.strategy))
      findings.push({ ...where, message: `task ${r.id} has no test strategy`, write: 'how the task is tested (unit, integration, which cases)' });
    if (NONE.has(r.deps.toLowerCase())) continue;
    for (const dep of r.deps.split(/[,;\s]+/).filter((d) => d && !NONE.has(d.toLowerCase()))) {
      const depBatch = batchOf.get(dep.toLowerCase());
      if (depBatch === undefined)
        findings.push({ ...where, message: `task ${r.id} depends on ${dep}, which is not in the table`, write: 'a task of the table, or `—`' });
      else if (Number.isSafeInteger(batch) && !(depBatch < batch))
        findings.push({
          ...where,
          message: `task ${r.id} (batch ${batch}) depends on ${dep} (batch ${depBatch}): a dependency comes in an earlier batch`,
          write: `a later batch for ${r.id}, or an earlier one for ${dep}`,
        });
    }
  }
  return findings;
};
