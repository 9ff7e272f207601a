/**
 * `task-index`: the task table of a task index (`02_tasks/_index.md`, a new
 * task's table) is checked, not remarked on. Its header has the columns Task,
 * Name, Points, Batch, Depends on and Test strategy; every row is a task whose
 * file lies beside the index (`<id>_<name>.md`), whose points come from the
 * scale (1, 2, 3, 5, 8), whose batch is a number, whose dependencies are
 * tasks of the table in earlier batches, and which has a test strategy.
 * Each task file is real (`task-files.ts`): a regular file with the task
 * template's sections, not a link, a folder, a device or an empty file.
 * The table is the first one whose header has a `Task` column, as the index's
 * one parser reads it (`task-table.ts`: the tables a reader sees, line by line).
 */
import { parseTaskIndex, plain, taskFileNames, taskTableOf, TASK_COLUMNS, TASK_TABLE_HEADER, type TaskColumn } from './task-table.js';
import { taskFileFindings } from './task-files.js';
import type { Finding, Judge, JudgeInput } from './types.js';

export const POINTS_SCALE = [1, 2, 3, 5, 8] as const;
const NONE = new Set(['', '-', '—', '–', 'none', 'n/a', 'na']);

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
  const base = { check: 'task-index', file };
  const table = taskTableOf(parseTaskIndex(text));
  if (!table)
    return [{ ...base, message: 'the file has no task table (no table with a `Task` column)', write: `the task table: ${TASK_TABLE_HEADER}, one row a task` }];
  const heading = table.heading;
  const at = (line: number) => ({ ...base, line, ...(heading ? { heading } : {}) });
  const missing = TASK_COLUMNS.filter((c) => table.columns[c.key] === undefined);
  if (missing.length > 0)
    return [
      {
        ...at(table.line),
        message: `the task table lacks the column(s) ${missing.map((c) => c.name).join(', ')}`,
        write: `the header ${TASK_TABLE_HEADER}`,
      },
    ];
  if (table.rows.length === 0) return [{ ...at(table.line), message: 'the task table has no task', write: 'one row a task' }];

  const findings: Finding[] = [];
  const rows = table.rows.map(({ line, cells }) => {
    const get = (k: TaskColumn) => plain(cells[table.columns[k]!] ?? '');
    return { line, id: get('task'), name: get('name'), points: get('points'), batch: get('batch'), deps: get('dependson'), strategy: get('teststrategy') };
  });
  const batchOf = new Map<string, number>();
  for (const r of rows) {
    const batch = /^\d+$/.test(r.batch) ? Number(r.batch) : NaN;
    if (r.id) batchOf.set(r.id.toLowerCase(), batch);
  }
  const seen = new Set<string>();
  for (const r of rows) {
    const where = at(r.line);
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
