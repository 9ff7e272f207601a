/**
 * A greenfield run walked to Implement with a task index of three batches
 * (five tasks, three criteria), and an agent's honest work on one batch: a
 * source file per task, the suite run through `autopilot exec`, the batch's
 * report. Shared by the batch tests (test/e2e/batches.test.ts,
 * test/e2e/gates-batches-and-judges.test.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { autopilot, write as writeFile, type NextJson } from './cli.js';
import { commit, newRepo } from './git.js';
import { batchReport, filledTemplate, testProject } from './templates.js';

export const TASKS = [
  { id: '01', name: 'Parse config', batch: 1, deps: '—', ac: 'AC-01' },
  { id: '02', name: 'Load flows', batch: 1, deps: '—', ac: 'AC-01' },
  { id: '03', name: 'Walk steps', batch: 2, deps: '01, 02', ac: 'AC-02' },
  { id: '04', name: 'Write journal', batch: 3, deps: '03', ac: 'AC-03' },
  { id: '05', name: 'Show status', batch: 3, deps: '03', ac: 'AC-03' },
];

/** The index Decompose writes and a task file for each task, keyed by path: three batches, each criterion covered. */
export function indexFiles(): Record<string, string> {
  const rows = TASKS.map((t) => `| ${t.id} | ${t.name} | 3 | ${t.batch} | ${t.deps} | unit tests of its criteria |`);
  const coverage = ['AC-01', 'AC-02', 'AC-03'].map(
    (ac) =>
      `| ${ac} | ${TASKS.filter((t) => t.ac === ac)
        .map((t) => t.id)
        .join(', ')} |`,
  );
  const index = [
    '# Tasks',
    '',
    '## Tasks',
    '',
    '| Task | Name | Points | Batch | Depends on | Test strategy |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    '## Batches',
    '',
    '| Batch | Tasks | Points | Why together |',
    '|---|---|---|---|',
    '| 1 | 01, 02 | 6 | the two readers share no code |',
    '| 2 | 03 | 3 | the walk needs both readers |',
    '| 3 | 04, 05 | 6 | both read the walk and nothing else |',
    '',
    '## Coverage',
    '',
    '| Criterion | Tasks |',
    '|---|---|',
    ...coverage,
    '',
    '## Self-check',
    '',
    '- [x] Every task row has its task file beside the index.',
    '- [x] Every dependency is a task of an earlier batch.',
    '- [x] Every task has points from 1, 2, 3, 5, 8 and a test strategy.',
    '- [x] Every acceptance criterion or test case id is covered by a task.',
    '',
  ].join('\n');
  const files: Record<string, string> = { '_docs/02_tasks/_index.md': index };
  for (const t of TASKS) files[`_docs/02_tasks/${t.id}_${t.name.toLowerCase().replace(/ /g, '_')}.md`] = filledTemplate('decompose', 'templates/task.md');
  return files;
}

/** Writes the index Decompose writes, with its task files (`indexFiles`). */
export function writeIndex(dir: string): void {
  for (const [path, text] of Object.entries(indexFiles())) writeFile(dir, path, text);
}

/**
 * A greenfield repository with a first commit, walked to Implement: Problem
 * (three criteria) to Decompose (the index above). Implement started (its
 * first batch handed out), or with `started: false` not yet (the boundary
 * after Decompose answered, the pointer at step 6 not started).
 */
export function atImplement({ started = true } = {}): string {
  const dir = newRepo();
  commit(dir, 'initial', { 'README.md': 'a project\n' });
  for (let i = 0; i < 20; i++) {
    const next = autopilot(dir, 'next', '--json');
    const json = next.json<NextJson>();
    if (next.code === 3) {
      expect(autopilot(dir, 'decide', 'B').code).toBe(0);
      continue;
    }
    expect(next.code, next.stdout + next.stderr).toBe(0);
    // The project's own tests (`verify: node --test`), once the run has begun as greenfield: a batch's report stands on a run of them.
    if (i === 0) testProject(dir);
    if (json.step === 6) return dir;
    if (json.step === 5) writeIndex(dir);
    else for (const file of json.done_when!) writeFile(dir, file.replace('*', '01'));
    if (json.step === 1) {
      // Three criteria, so each batch covers its own.
      const path = join(dir, '_docs/00_problem/acceptance_criteria.md');
      const text = readFileSync(path, 'utf8');
      writeFile(
        dir,
        '_docs/00_problem/acceptance_criteria.md',
        text.replace(/^(- (?:\*\*)?AC-01.*)$/m, '$1\n- AC-02: the walk reaches every step.\n- AC-03: the journal and status agree.'),
      );
    }
    const done = autopilot(dir, 'done');
    expect([0, 3], `${json.step}: ${done.stdout}${done.stderr}`).toContain(done.code);
    if (done.code === 3) expect(autopilot(dir, 'decide', 'B').code).toBe(0);
    if (json.step === 5 && !started) return dir;
  }
  throw new Error('never reached Implement');
}

export interface BatchJson {
  batch: number;
  of: number;
  tasks: { id: string; name: string; file?: string; criteria: string[] }[];
  report: string;
  finished?: { batch: number; tasks: string[] };
}

/** The agent's work on a batch: a source file per task, the suite run through `autopilot exec`, the batch's report. */
export function work(dir: string, batch: BatchJson): void {
  // The code of each task, written for this batch (a batch's `done` needs code changed since it began).
  for (const t of batch.tasks) writeFile(dir, `src/task_${t.id}.js`, `// task ${t.id}: ${t.name}, for ${batch.report}\n`);
  testProject(dir);
  expect(autopilot(dir, 'exec').code).toBe(0);
  const criteria = [...new Set(batch.tasks.flatMap((t) => t.criteria))];
  writeFile(
    dir,
    batch.report,
    batchReport(
      batch.batch,
      batch.tasks.map((t) => t.id),
      criteria,
    ),
  );
}
