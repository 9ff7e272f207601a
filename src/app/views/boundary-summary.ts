/**
 * The summary above a session boundary (docs/state-and-journal.md, "Session
 * boundaries"): the number of tasks, batches and
 * complexity points, read from the task table the step before the boundary
 * wrote (its first Done-when file), by the task index's one parser
 * (`evidence/task-table.ts`, no Markdown parser). Read only when a boundary
 * is shown.
 */
import { closeSync, fstatSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { withCycle, type Flow } from '../../formats/flow/model.js';
import { findMatches } from '../../io/find-matches.js';
import { openFile } from '../../io/journal.js';
import type { Repo } from '../../io/repo.js';
import { summarizeTasks, TABLE_EXAMPLE } from '../../summary/task-table.js';
import type { BoundarySummary } from './view.js';
import { TASK_INDEX_MAX_BYTES } from '../../limits.js';

/** What the agent does about a task index the summary cannot read: the file, where, what it needs; then `next` shows the boundary again. */
const fixOf = (file: string, needs: string, line?: number) =>
  `fix ${file}${line ? ` line ${line}` : ''}: it needs ${needs}; then run \`next\` to show the summary`;

export async function boundarySummary(repo: Repo, flow: Flow, after: number, cycle: number): Promise<BoundarySummary | undefined> {
  const step = flow.steps[after - 1];
  const pattern = step?.doneWhen[0];
  if (!pattern) return undefined;
  const [match] = findMatches(repo.docs, withCycle(pattern, cycle), 1, { root: repo.root, refused: () => undefined });
  const file = `${repo.docsName}/${match ?? withCycle(pattern, cycle)}`;
  const fd = match ? openFile(join(repo.docs, match)) : undefined;
  if (fd === undefined) return { file, problem: 'no task table: the file is missing', fix: fixOf(file, `a task table: ${TABLE_EXAMPLE}`) };
  let text: string;
  try {
    const size = fstatSync(fd).size;
    if (size > TASK_INDEX_MAX_BYTES)
      return {
        file,
        problem: `the task index is ${size} bytes, more than the ${TASK_INDEX_MAX_BYTES} read for a summary`,
        fix: fixOf(file, `to be at most ${TASK_INDEX_MAX_BYTES} bytes: its task table, one row per task, and little else`),
      };
    const bytes = Buffer.alloc(size);
    readSync(fd, bytes, 0, size, 0);
    text = bytes.toString('utf8');
  } finally {
    closeSync(fd);
  }
  const summary = summarizeTasks(text, file);
  if ('problem' in summary) {
    const { message, line, expected } = summary.problem;
    return { file, problem: `${message}${line ? ` (line ${line})` : ''}`, fix: fixOf(file, expected ?? `a task table: ${TABLE_EXAMPLE}`, line) };
  }
  return { file, ...summary };
}
