/**
 * The task index read as data (its judge is `task-index.ts`): each task's
 * id, name and batch, and which acceptance criteria (or test case ids) the
 * `## Coverage` table gives each task. Pure; a row it cannot read (no id, a
 * batch that is no number) is left out here and refused by the judge.
 */
import { cellsOf, columnKey, plain, tablesOf } from './task-index.js';
import { linesOf } from './markdown.js';

export interface TaskRow {
  id: string;
  name: string;
  batch: number;
  /** Criterion ids the Coverage table names for this task, in table order. */
  criteria: string[];
}

export function readTaskTable(text: string): TaskRow[] | undefined {
  const tables = tablesOf(linesOf(text));
  const table = tables.find((t) => cellsOf(t.header.text).some((c) => columnKey(c) === 'task'));
  if (!table) return undefined;
  const header = cellsOf(table.header.text).map(columnKey);
  const col = (...keys: string[]) => header.findIndex((h) => keys.includes(h));
  const [task, name, batch] = [col('task'), col('name', 'title'), col('batch')];
  if (task < 0 || batch < 0) return undefined;
  const rows: TaskRow[] = [];
  for (const line of table.rows) {
    const cells = cellsOf(line.text).map(plain);
    const id = cells[task] ?? '';
    const b = cells[batch] ?? '';
    if (!id || !/^\d{1,4}$/.test(b) || Number(b) < 1 || rows.some((r) => r.id === id)) continue;
    rows.push({ id, name: name >= 0 ? (cells[name] ?? '') : '', batch: Number(b), criteria: [] });
  }
  // The Coverage table: `| Criterion | Tasks |`, a row per criterion naming the tasks that serve it.
  const coverage = tables.find((t) => {
    const h = cellsOf(t.header.text).map(columnKey);
    return h.includes('criterion') && h.includes('tasks');
  });
  if (coverage) {
    const h = cellsOf(coverage.header.text).map(columnKey);
    const [c, ts] = [h.indexOf('criterion'), h.indexOf('tasks')];
    for (const line of coverage.rows) {
      const cells = cellsOf(line.text).map(plain);
      const criterion = cells[c] ?? '';
      if (!criterion) continue;
      for (const id of (cells[ts] ?? '').split(/[,;\s]+/).filter(Boolean)) {
        const row = rows.find((r) => r.id.toLowerCase() === id.toLowerCase());
        if (row && !row.criteria.includes(criterion)) row.criteria.push(criterion);
      }
    }
  }
  return rows;
}

/** The batches in order, each its task ids (the index's batch numbers sorted; a gap in them is closed). */
export function batchesOf(rows: readonly TaskRow[]): string[][] {
  const numbers = [...new Set(rows.map((r) => r.batch))].sort((a, b) => a - b);
  return numbers.map((n) => rows.filter((r) => r.batch === n).map((r) => r.id));
}
