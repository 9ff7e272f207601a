/**
 * The edge of the words judges (issue 29, points 9 and 10), on a real
 * folder: what the disk says of each task file a task index names (`lstat`:
 * a link is seen as a link and never followed, a named pipe never opened),
 * the task template found beside the index's, and the hashes an attempt
 * records, of what a reader sees.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { judgeOutputs } from '../../../src/engine/evidence.js';
import { parseFlow } from '../../../src/formats/flow/parse-flow.js';
import { gatherOutputs, hashFiles } from '../../../src/io/gather-outputs.js';
import { openRepo } from '../../../src/io/repo.js';
import { parseOutputsDeclaration } from '../../../src/formats/skill-outputs.js';
import { ROOT } from '../../helpers/engine.js';
import { filledTemplate } from '../../helpers/templates.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function put(dir: string, rel: string, text: string): void {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), text);
}

const flow = parseFlow(readFileSync(join(ROOT, 'flows', 'greenfield.md'), 'utf8'), 'flows/greenfield.md', 'greenfield').flow!;
const decompose = flow.steps.find((s) => s.name === 'Decompose')!;
const skillText = readFileSync(join(ROOT, 'skills', 'decompose', 'SKILL.md'), 'utf8');
const parsed = parseOutputsDeclaration(skillText, 'skills/decompose/SKILL.md') as { outputs: { file: string }[] };
const declared = {
  skill: 'decompose',
  file: 'skills/decompose/SKILL.md',
  dir: join(ROOT, 'skills', 'decompose'),
  outputs: parsed.outputs.filter((o) => o.file === '02_tasks/_index.md'),
} as Parameters<typeof gatherOutputs>[3];

/** A repository at Decompose whose index names 5 tasks, each file of another kind. */
function repoWithTasks() {
  const dir = mkdtempSync(join(tmpdir(), 'autopilot-task-files-'));
  made.push(dir);
  mkdirSync(join(dir, '.git'));
  const row = (id: string) => `| ${id} | Task ${id} | 3 | 1 | — | unit tests of task ${id} |`;
  const index = filledTemplate('decompose', 'templates/task_index.md').replace(/^\| 01 \|.*$/m, ['01', '02', '03', '04', '05'].map(row).join('\n'));
  put(dir, '_docs/02_tasks/_index.md', index);
  put(dir, '_docs/02_tasks/01_real.md', filledTemplate('decompose', 'templates/task.md'));
  put(dir, '_docs/02_tasks/02_empty.md', '');
  mkdirSync(join(dir, '_docs/02_tasks/03_folder.md'));
  symlinkSync('/etc/passwd', join(dir, '_docs/02_tasks/04_passwd.md'));
  expect(spawnSync('mkfifo', [join(dir, '_docs/02_tasks/05_pipe.md')]).status).toBe(0);
  return openRepo({ dir });
}

describe('the task files a task index names, gathered at the edge', () => {
  it('5 task files of 5 kinds: 1 real file read, 1 empty, 1 folder, 1 link (not followed), 1 named pipe (not opened)', () => {
    const repo = repoWithTasks();
    const gathered = gatherOutputs(repo, decompose, 1, declared);
    const [index] = gathered.outputs;
    expect(index!.taskTemplate).toBe(readFileSync(join(ROOT, 'skills', 'decompose', 'templates', 'task.md'), 'utf8'));
    const facts = index!.files[0]!.taskFiles!;
    expect(
      Object.fromEntries(
        Object.entries(facts).map(([name, f]) => [
          name,
          f.kind === 'file' ? `file, ${f.text?.length ? 'text' : 'empty'}` : `${f.kind}${f.target ? ` to ${f.target}` : ''}`,
        ]),
      ),
    ).toEqual({
      '01_real.md': 'file, text',
      '02_empty.md': 'file, empty',
      '03_folder.md': 'folder',
      '04_passwd.md': 'link to /etc/passwd',
      '05_pipe.md': 'pipe',
    });
    const findings = judgeOutputs(gathered, decompose).filter((f) => f.check === 'task-index');
    expect(findings.map((f) => f.file)).toEqual(['02_tasks/02_empty.md', '02_tasks/03_folder.md', '02_tasks/04_passwd.md', '02_tasks/05_pipe.md']);
  });

  it('hashes what a reader sees: a space or a capital added is the same hash, a word changed is not', () => {
    const repo = repoWithTasks();
    const file = '02_tasks/01_real.md';
    const before = hashFiles(repo, [file])!;
    const text = readFileSync(join(repo.docs, file), 'utf8');
    writeFileSync(join(repo.docs, file), `${text.toUpperCase()}  \n\n`);
    expect(hashFiles(repo, [file])).toEqual(before);
    writeFileSync(join(repo.docs, file), text.replace('Goal', 'Aim'));
    expect(hashFiles(repo, [file])).not.toEqual(before);
  });
});
