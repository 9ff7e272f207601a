/**
 * Task files are real (issue 29, point 9): each file beside a task index
 * that a row names is a regular file, not empty, with the task template's
 * sections; a link (wherever it points), a folder, a device or a pipe is
 * refused, naming the task file. The judge reads the facts the edge gathers
 * (`io/gather-outputs.ts`); here they are written out.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { taskFileFindings, taskSections } from '../../../src/evidence/task-files.js';
import { taskIndex } from '../../../src/evidence/task-index.js';
import type { JudgeInput, TaskFile } from '../../../src/evidence/types.js';
import { ROOT } from '../../helpers/engine.js';
import { filledTemplate } from '../../helpers/templates.js';

const TEMPLATE = readFileSync(join(ROOT, 'skills', 'decompose', 'templates', 'task.md'), 'utf8');
const TASK = filledTemplate('decompose', 'templates/task.md');
const INDEX = `## Tasks

| Task | Name | Points | Batch | Depends on | Test strategy |
|---|---|---|---|---|---|
| 01 | Skeleton | 2 | 1 | — | unit: the CLI starts |
| 02 | Config | 3 | 1 | — | unit: defaults and bad values |
`;

function judge(files: Record<string, TaskFile>, template: string | null = TEMPLATE) {
  const input: JudgeInput = {
    output: { file: '02_tasks/_index.md', sections: [], checks: [] },
    file: '02_tasks/_index.md',
    text: INDEX,
    skill: 'decompose',
    siblings: Object.keys(files),
    taskFiles: files,
    taskTemplate: template ?? undefined,
  };
  return taskIndex(input);
}

describe('the task files a task index names', () => {
  it('the task template asks for 5 sections', () => {
    expect(taskSections(TEMPLATE)).toEqual(['Goal', 'Touches', 'Acceptance criteria', 'Test strategy', 'Dependencies']);
  });

  it('2 real task files, filled from the template, pass', () => {
    expect(judge({ '01_skeleton.md': { kind: 'file', text: TASK }, '02_config.md': { kind: 'file', text: TASK } })).toEqual([]);
  });

  const bad: [string, TaskFile, RegExp][] = [
    ['empty', { kind: 'file', text: '' }, /^task 02: 02_tasks\/02_config\.md is empty$/],
    ['blank lines only', { kind: 'file', text: '\n \n' }, /is empty$/],
    ['a folder', { kind: 'folder' }, /^task 02: 02_tasks\/02_config\.md is a folder$/],
    ['a link to /dev/null', { kind: 'link', target: '/dev/null' }, /^task 02: 02_tasks\/02_config\.md is a link to \/dev\/null$/],
    ['a link to /etc/passwd', { kind: 'link', target: '/etc/passwd' }, /is a link to \/etc\/passwd$/],
    ['a link to a real task file', { kind: 'link', target: '01_skeleton.md' }, /is a link to 01_skeleton\.md$/],
    ['a device', { kind: 'device' }, /is a device$/],
    ['a named pipe', { kind: 'pipe' }, /is a named pipe$/],
    ['too large', { kind: 'file', problem: 'the task file is 300 KB, over 256 KB' }, /cannot be read: the task file is 300 KB/],
  ];
  it.each(bad)('%s: refused, naming the task file', (_, fact, message) => {
    const found = judge({ '01_skeleton.md': { kind: 'file', text: TASK }, '02_config.md': fact });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ check: 'task-index', file: '02_tasks/02_config.md', message: expect.stringMatching(message) });
    expect(found[0]!.write.length).toBeGreaterThan(0);
  });

  it('a file without the template’s sections, or with its placeholders, is refused at each line and heading', () => {
    const found = judge({
      '01_skeleton.md': { kind: 'file', text: '# 01 Skeleton\n\nA skeleton.\n' },
      '02_config.md': { kind: 'file', text: TEMPLATE },
    });
    expect(found.filter((f) => f.file === '02_tasks/01_skeleton.md').map((f) => f.message)).toEqual(
      ['Goal', 'Touches', 'Acceptance criteria', 'Test strategy', 'Dependencies'].map((s) => `task 01: the required section "${s}" is missing`),
    );
    const placeholders = found.filter((f) => f.file === '02_tasks/02_config.md');
    expect(placeholders.length).toBeGreaterThanOrEqual(6);
    expect(placeholders[1]).toMatchObject({ line: 5, heading: 'Goal', message: expect.stringMatching(/^task 02: the template's placeholder/) });
  });

  it('with no task template to read, a real, non-empty file is all that is asked', () => {
    expect(taskFileFindings('02_tasks/_index.md', '01', '01_a.md', { kind: 'file', text: 'a task' })).toEqual([]);
    expect(judge({ '01_skeleton.md': { kind: 'file', text: 'one line' }, '02_config.md': { kind: 'folder' } }, null)).toHaveLength(1);
  });

  it('the demo’s 3 task files, real ones, pass beside its index', () => {
    const folder = join(ROOT, 'scripts', 'demo', '02_tasks');
    const names = ['01_parse_and_index.md', '02_internal_links.md', '03_external_links.md'];
    const files = Object.fromEntries(names.map((n): [string, TaskFile] => [n, { kind: 'file', text: readFileSync(join(folder, n), 'utf8') }]));
    const text = readFileSync(join(folder, '_index.md'), 'utf8');
    expect(
      taskIndex({
        output: { file: '02_tasks/_index.md', sections: [], checks: [] },
        file: '02_tasks/_index.md',
        text,
        skill: 'decompose',
        siblings: names,
        taskFiles: files,
        taskTemplate: TEMPLATE,
      }),
    ).toEqual([]);
  });
});
