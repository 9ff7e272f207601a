import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarizeTasks } from '../../../src/summary/task-table.js';
import { TABLE_INPUT_LIMITS } from '../../../src/limits.js';
import { ROOT } from '../../helpers/engine.js';

const FILE = '_docs/02_tasks/_index.md';

const INDEX = `# Tasks

Built from the plan; batch 1 has no dependencies.

## Tasks

| Task | Name | Points | Batch | Depends on | Test strategy |
|---|---|---|---|---|---|
| 01 | Project skeleton | 2 | 1 | — | unit: prints its version |
| 02 | Config loader | 3 | 1 | — | unit: defaults and bad values |
| 03 | Parse config | 5 | 2 | 02 | unit per rule |
| 04 | CLI | 8 | 3 | 01, 03 | end to end: exit codes |

## Batches

| Batch | Tasks | Points |
|---|---|---|
| 1 | 01, 02 | 5 |
| 2 | 03 | 5 |
| 3 | 04 | 8 |
`;

const lineOf = (text: string, fragment: string) => text.split('\n').findIndex((line) => line.includes(fragment)) + 1;
const problemOf = (text: string) => {
  const result = summarizeTasks(text, FILE);
  if (!('problem' in result)) throw new Error(`expected a problem, got ${JSON.stringify(result)}`);
  return result.problem;
};

describe('summarizeTasks', () => {
  it('counts tasks, distinct batches and points from the task table', () => {
    expect(summarizeTasks(INDEX, FILE)).toEqual({ tasks: 4, batches: 3, points: 18 });
  });

  it('finds the task table wherever it is, and not the Batches table, which lists tasks but is not one row per task', () => {
    const batchesFirst = INDEX.replace(/## Tasks\n[\s\S]*?(?=## Batches)/, '').concat(INDEX.slice(INDEX.indexOf('## Tasks'), INDEX.indexOf('## Batches')));
    expect(batchesFirst.indexOf('## Batches')).toBeLessThan(batchesFirst.indexOf('| Task | Name'));
    expect(summarizeTasks(batchesFirst, FILE)).toEqual({ tasks: 4, batches: 3, points: 18 });
  });

  it('matches headers whatever their case, accepts Complexity for Points, and ignores extra columns', () => {
    const table = `| Owner | TASK | complexity | batch | Notes |
|---|---|---|---|---|
| ana | 01 | 1 | 1 | |
| bo | 02 | 0.5 | 2 | split later |
| ana | 03 | 0.25 | 2 | |
`;
    expect(summarizeTasks(table, FILE)).toEqual({ tasks: 3, batches: 2, points: 1.75 });
    expect(summarizeTasks(table.replace('complexity', 'Complexity points'), FILE)).toEqual({ tasks: 3, batches: 2, points: 1.75 });
  });

  it('adds decimal points without binary rounding noise', () => {
    const table = '| Task | Points | Batch |\n|---|---|---|\n| a | 0.1 | 1 |\n| b | 0.2 | 1 |\n';
    expect(summarizeTasks(table, FILE)).toEqual({ tasks: 2, batches: 1, points: 0.3 });
  });

  it('counts `2`, `Batch 2` and `batch  2` as one batch', () => {
    const table = '| Task | Points | Batch |\n|---|---|---|\n| a | 1 | 2 |\n| b | 1 | Batch 2 |\n| c | 1 | batch  2 |\n| d | 1 | 3 |\n';
    expect(summarizeTasks(table, FILE)).toEqual({ tasks: 4, batches: 2, points: 4 });
  });

  it('reads a file with front matter, and a table inside it is not the task table', () => {
    const text = `---\nnote: "| Task | Points | Batch |"\n---\n\n${INDEX}`;
    expect(summarizeTasks(text, FILE)).toEqual({ tasks: 4, batches: 3, points: 18 });
  });

  it('refuses a file with no table', () => {
    expect(problemOf('# Tasks\n\nWe will write the tasks later.\n')).toMatchObject({
      file: FILE,
      message: 'the task index has no task table',
      received: 'no table',
    });
    expect(problemOf('')).toMatchObject({ message: 'the task index has no task table' });
  });

  it('names the missing columns of the table that looks most like the task table', () => {
    const text = '# Index\n\n| Step | Owner |\n|---|---|\n| a | b |\n\n| Task | Name | Batch |\n|---|---|---|\n| 01 | Skeleton | 1 |\n';
    expect(problemOf(text)).toEqual({
      file: FILE,
      line: lineOf(text, '| Task | Name | Batch |'),
      message: 'the task table lacks the column(s) Points',
      expected: expect.stringContaining('| Task | Name | Points | Batch | Depends on | Test strategy |'),
      received: '| Task | Name | Batch |',
    });
    const noTask = '| Step | Points |\n|---|---|\n| 1 | 2 |\n';
    expect(problemOf(noTask)).toMatchObject({ line: 1, message: 'the task table lacks the column(s) Task, Batch' });
  });

  it('does not take `Tasks` for `Task`: the Batches table alone is no task table', () => {
    const batchesOnly = INDEX.slice(INDEX.indexOf('## Batches'));
    expect(problemOf(batchesOnly)).toMatchObject({ message: 'the task table lacks the column(s) Task' });
  });

  it('names the line of a points cell that is not a number', () => {
    const text = INDEX.replace('| 03 | Parse config | 5 |', '| 03 | Parse config | M |');
    expect(problemOf(text)).toEqual({
      file: FILE,
      line: lineOf(text, '| 03 | Parse config'),
      message: 'task 03 has no number of complexity points',
      expected: expect.stringContaining('e.g. 1, 2, 3, 5 or 8'),
      received: 'M',
    });
    for (const cell of ['', '-1', '3 pts', '1e3', 'TBD', '∞']) {
      const bad = INDEX.replace('| 02 | Config loader | 3 |', `| 02 | Config loader | ${cell} |`);
      expect(problemOf(bad)).toMatchObject({ line: lineOf(bad, '| 02 | Config loader'), received: cell || '(empty)' });
    }
  });

  it('refuses a row with no task or no batch', () => {
    const noTask = INDEX.replace('| 02 | Config loader |', '|  | Config loader |');
    expect(problemOf(noTask)).toMatchObject({ line: lineOf(noTask, 'Config loader'), message: 'a row of the task table names no task' });
    const noBatch = INDEX.replace('| 5 | 2 | 02 |', '| 5 |  | 02 |');
    expect(problemOf(noBatch)).toMatchObject({ line: lineOf(noBatch, 'Parse config'), message: 'task 03 is in no batch' });
  });

  it('refuses a task table with no tasks rather than reporting zeros', () => {
    const text = '## Tasks\n\n| Task | Points | Batch |\n|---|---|---|\n';
    expect(problemOf(text)).toMatchObject({ line: 3, message: 'the task table has no tasks', received: 'a header row only' });
  });

  it('refuses a file over any of the limits before parsing it', () => {
    const row = '| 01 | x | 1 | 1 | a | b | c | d | e | f | g |\n';
    const cases = [
      [INDEX + 'x'.repeat(TABLE_INPUT_LIMITS.bytes), /too large to be one \(\d+ KB\)/],
      // The limit counts bytes, not characters.
      ['é'.repeat(TABLE_INPUT_LIMITS.bytes / 2 + 1), /\(\d+ KB\)/],
      [INDEX + '\n'.repeat(TABLE_INPUT_LIMITS.lines), /\(\d+ lines\)/],
      // A lone carriage return ends a line too.
      ['a\r'.repeat(TABLE_INPUT_LIMITS.lines), /\(\d+ lines\)/],
      [INDEX + '|'.repeat(TABLE_INPUT_LIMITS.pipes), /\(\d+ table cell borders\)/],
      [INDEX + row.repeat(TABLE_INPUT_LIMITS.pipes / 12), /table cell borders/],
    ] as const;
    for (const [text, why] of cases) {
      const started = performance.now();
      expect(problemOf(text)).toMatchObject({ file: FILE, message: expect.stringMatching(why) });
      expect(performance.now() - started).toBeLessThan(1000);
    }
  });

  it('reads shapes that make the Markdown parser slow in a bounded time, and says there is no task table', () => {
    const paragraph = (line: string) => Array.from({ length: 1_000 }, () => line).join('\n');
    // Each of these took from seconds to minutes at 250 KB before the constructs a table reader never needs were switched off.
    const shapes = [
      paragraph('*a'.repeat(30)),
      paragraph('_a~a'.repeat(15)),
      paragraph('['.repeat(60)),
      paragraph('`a<b'.repeat(15)),
      paragraph('a\n==='),
      paragraph('[a]: b'),
      '>'.repeat(50_000),
      paragraph('> '.repeat(30)),
      '\u0000'.repeat(1000),
    ];
    for (const text of shapes) {
      const started = performance.now();
      expect(problemOf(text)).toMatchObject({ message: 'the task index has no task table' });
      expect(performance.now() - started).toBeLessThan(5000);
    }
  });

  it('reads cells as the plain text they are written in: emphasis is not a number', () => {
    const text = '| Task | Points | Batch |\n|---|---|---|\n| [01](01_a.md) | **3** | 1 |\n';
    expect(problemOf(text)).toMatchObject({ line: 3, message: 'task [01](01_a.md) has no number of complexity points', received: '**3**' });
  });

  it('does not read a table inside a code block, a quote or a list as the task table', () => {
    const table = '| Task | Points | Batch |\n|---|---|---|\n| 01 | 3 | 1 |';
    for (const text of ['```markdown\n' + table + '\n```\n', table.replace(/^/gm, '> ') + '\n', table.replace(/^/gm, '    ') + '\n']) {
      expect(problemOf(text)).toMatchObject({ message: 'the task index has no task table' });
    }
  });

  it('clips long cells in what it reports', () => {
    const long = 'x'.repeat(500);
    const text = `| Task | Points | Batch |\n|---|---|---|\n| 01 | ${long} | 1 |\n`;
    expect(problemOf(text).received!.length).toBeLessThanOrEqual(60);
  });
});

describe('the format skills/decompose/SKILL.md teaches', () => {
  it('reads its examples as it says: 4 tasks, 3 batches, 13 points', () => {
    const skill = readFileSync(join(ROOT, 'skills', 'decompose', 'SKILL.md'), 'utf8');
    const examples = [...skill.matchAll(/```markdown\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(examples).toHaveLength(2);
    expect(skill).toContain('that one reads as 4 tasks, 3 batches, 13');
    expect(summarizeTasks(examples.join('\n'), FILE)).toEqual({ tasks: 4, batches: 3, points: 13 });
    // The Batches table alone is not a task table.
    expect(summarizeTasks(examples[1]!, FILE)).toMatchObject({ problem: { message: 'the task table lacks the column(s) Task' } });
  });
});
