/**
 * Implement walks the task table (issue 24): a greenfield run whose task
 * index has three batches is walked batch by batch through the built CLI.
 * `next` hands out each batch (its tasks, each task's file and criteria,
 * the report `done` checks); `done` checks that batch's report and moves to
 * the next; the step is done only after the last batch, its own report
 * checked last. Each batch has its progress commit holding its work and no
 * other's; a kill in the middle of a batch resumes it; a batch failed three
 * times stops for a person, and `ack` gives it three more; `status` shows
 * the batches.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { atImplement, work, type BatchJson } from '../helpers/batches.js';
import { autopilot, write as writeFile, writeArtifacts, type NextJson } from '../helpers/cli.js';
import { cli } from '../helpers/faults.js';
import { commit, git, newRepo } from '../helpers/git.js';
import { batchReport, filledTemplate, stepEvidence, testProject } from '../helpers/templates.js';

const pointer = (dir: string) => readFileSync(join(dir, '_docs/_autopilot_state.md'), 'utf8');
const events = (dir: string) =>
  readFileSync(join(dir, '_docs/_autopilot/journal.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('Implement walks the task table, batch by batch', () => {
  it('hands out 3 batches in turn, checks each report, commits each batch alone, and completes the step after the last', async () => {
    const dir = atImplement();
    const first = autopilot(dir, 'next', '--json');
    const b1 = first.json<NextJson & { batch: BatchJson }>();
    expect(b1.sub_step).toBe('batch 1 of 3 — 01, 02');
    expect(b1.batch).toMatchObject({ batch: 1, of: 3, report: '_docs/03_implementation/batch_01.md' });
    expect(b1.batch.tasks).toEqual([
      { id: '01', name: 'Parse config', file: '_docs/02_tasks/01_parse_config.md', criteria: ['AC-01'] },
      { id: '02', name: 'Load flows', file: '_docs/02_tasks/02_load_flows.md', criteria: ['AC-01'] },
    ]);
    expect(pointer(dir)).toContain('sub_step: batch 1 of 3 — 01, 02');
    const text = autopilot(dir, 'next').stdout;
    expect(text).toContain('Batch:     1 of 3 from _docs/02_tasks/_index.md');
    expect(text).toContain('01 Parse config · _docs/02_tasks/01_parse_config.md · AC-01');

    // A report that leaves out a task of the batch is refused, naming it; nothing is written.
    writeFile(dir, 'src/task_01.js', '// task 01\n');
    testProject(dir);
    expect(autopilot(dir, 'exec').code).toBe(0);
    writeFile(dir, '_docs/03_implementation/batch_01.md', batchReport(1, ['01'], ['AC-01']));
    const before = events(dir).length;
    const refused = autopilot(dir, 'done', '--json');
    expect(refused.code).toBe(2);
    expect(refused.json<{ error: { message: string }; findings: { message: string }[] }>().error.message).toContain(
      'batch 1 of 3 of step 6 (Implement) is not done',
    );
    expect(refused.json<{ findings: { message: string }[] }>().findings.map((f) => f.message)).toEqual(['the report does not name task 02 of batch 1']);
    expect(events(dir)).toHaveLength(before);

    // An implementation report written early does not end the step: batch 1's done moves to batch 2.
    writeFile(dir, '_docs/03_implementation/implementation_report.md', '# Implementation report\n\nA draft, written too early.\n');
    work(dir, b1.batch);
    const done1 = autopilot(dir, 'done', '--json');
    expect(done1.code, done1.stdout).toBe(0);
    const d1 = done1.json<NextJson & { batch: BatchJson }>();
    expect(d1).toMatchObject({ step: 6, status: 'not_started', sub_step: 'batch 2 of 3 — 03', retry_count: 0 });
    expect(d1.batch.finished).toEqual({ batch: 1, tasks: ['01', '02'] });
    const c1 = git(dir, 'log', '-1', '--format=%s').trim();
    expect(c1).toBe('autopilot: greenfield 6/10 Implement in progress, batch 1 of 3 done (tasks 01, 02)');
    const files1 = git(dir, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n');
    expect(files1).toEqual(expect.arrayContaining(['src/task_01.js', 'src/task_02.js', '_docs/03_implementation/batch_01.md']));

    // Batch 2: begun by next, journaled.
    const n2 = autopilot(dir, 'next', '--json').json<NextJson & { batch: BatchJson }>();
    expect(n2).toMatchObject({ status: 'in_progress', sub_step: 'batch 2 of 3 — 03', action: 'start' });
    expect(n2.batch.tasks.map((t) => t.id)).toEqual(['03']);
    expect(events(dir).at(-1)).toMatchObject({ event: 'batch_started', batch: 2, of: 3, tasks: ['03'] });
    work(dir, n2.batch);
    expect(autopilot(dir, 'done').code).toBe(0);
    const files2 = git(dir, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n');
    expect(files2).toContain('src/task_03.js');
    expect(files2).not.toContain('src/task_01.js');

    // Batch 3, the last: its report, then the step's own report, checked last.
    const n3 = autopilot(dir, 'next', '--json').json<NextJson & { batch: BatchJson }>();
    expect(n3.sub_step).toBe('batch 3 of 3 — 04, 05');
    work(dir, n3.batch);
    writeFile(dir, '_docs/03_implementation/implementation_report.md');
    testProject(dir);
    expect(autopilot(dir, 'exec').code).toBe(0);
    const last = autopilot(dir, 'done', '--json');
    expect(last.code, last.stdout).toBe(0);
    expect(last.json<NextJson>()).toMatchObject({ step: 7, name: 'Run Tests' });
    const log = git(dir, 'log', '--format=%s').trim().split('\n');
    expect(log.filter((s) => /batch \d of 3 done/.test(s))).toEqual([
      'autopilot: greenfield 6/10 Implement completed, batch 3 of 3 done (tasks 04, 05)',
      'autopilot: greenfield 6/10 Implement in progress, batch 2 of 3 done (tasks 03)',
      'autopilot: greenfield 6/10 Implement in progress, batch 1 of 3 done (tasks 01, 02)',
    ]);
    const files3 = git(dir, 'show', '--name-only', '--format=', 'HEAD');
    expect(files3).toContain('src/task_04.js');
    expect(files3).toContain('_docs/03_implementation/implementation_report.md');
    expect(files3).not.toContain('src/task_03.js');
    const done = events(dir)
      .filter((e) => e.event === 'batch_completed')
      .map((e) => e.batch);
    expect(done).toEqual([1, 2, 3]);
  }, 120_000);

  it('a kill in the middle of batch 2 resumes batch 2 with its tasks; status shows the 3 batches; an index edited mid-step is said and kept out until a person repins', async () => {
    const dir = atImplement();
    const b1 = autopilot(dir, 'next', '--json').json<NextJson & { batch: BatchJson }>();
    work(dir, b1.batch);
    expect(autopilot(dir, 'done').code).toBe(0);
    expect(autopilot(dir, 'next').code).toBe(0);
    expect(autopilot(dir, 'substep', '1 — Code and tests').code).toBe(0);
    expect(pointer(dir)).toContain('sub_step: batch 2 of 3 — 03 (1 — Code and tests)');
    // The agent's conversation dies mid-batch, and so does its `done`, half-way through the journal write.
    writeFile(dir, 'src/task_03.js', '// half done\n');
    writeFile(dir, '_docs/03_implementation/batch_02.md', '# Batch 02 report\n\n## Tasks\n\n- 03: begun, its walk written, tests still to come.\n');
    const killed = await cli(dir, ['done'], { crashAt: 'mid-journal' });
    expect(killed.code === 0).toBe(false);
    const resumed = autopilot(dir, 'next', '--json');
    expect(resumed.code, resumed.stdout).toBe(0);
    const r = resumed.json<NextJson & { batch: BatchJson }>();
    expect(r).toMatchObject({ step: 6, status: 'in_progress', action: 'resume', sub_step: 'batch 2 of 3 — 03 (1 — Code and tests)' });
    // The tasks the half-written report already names come with it.
    expect(r.batch).toMatchObject({ batch: 2, of: 3, tasks: [{ id: '03', name: 'Walk steps', criteria: ['AC-02'] }], reported: ['03'] });

    const status = autopilot(dir, 'status', '--json').json<{ batches: { batch: number; tasks: string[]; status: string }[] }>();
    expect(status.batches).toEqual([
      { batch: 1, tasks: ['01', '02'], status: 'done' },
      { batch: 2, tasks: ['03'], status: 'in_progress' },
      { batch: 3, tasks: ['04', '05'], status: 'pending' },
    ]);
    const text = autopilot(dir, 'status').stdout;
    expect(text).toContain('Batches   1 of 3 done · now batch 2 (03) · to do: 3 (04, 05)');

    // The report: a sub-diagram for Implement, and a task table linking each batch's report.
    expect(autopilot(dir, 'report', '--html').code).toBe(0);
    const md = readFileSync(join(dir, '_docs/_autopilot_report.md'), 'utf8');
    expect(md).toContain('subgraph s6b["6 · Implement: batches"]');
    expect(md).toContain('s6b1["batch 1 · 01, 02 #40;done#41;"]');
    expect(md).toContain('| 2 | 03 | in progress | [03\\_implementation/batch\\_02.md](03_implementation/batch_02.md) |');
    const html = readFileSync(join(dir, '_docs/_autopilot_report.html'), 'utf8');
    expect(html).toContain('<h2>Batches of 6 Implement</h2>');
    expect(html).toContain('<td>04, 05</td><td>not started</td><td><a href="03_implementation/batch_03.md">');

    // The index edited mid-step (05 moved to a batch 4 of its own) is said, like a flow edit; the run keeps its batches.
    const index = readFileSync(join(dir, '_docs/02_tasks/_index.md'), 'utf8');
    writeFile(dir, '_docs/02_tasks/_index.md', index.replace('| 05 | Show status | 3 | 3 |', '| 05 | Show status | 3 | 4 |'));
    const edited = autopilot(dir, 'next', '--json');
    expect(edited.stdout).toContain('changed since this step pinned its batches (now 4: [01, 02] [03] [04] [05]); the run keeps its 3');
    expect(edited.json<NextJson>().sub_step).toBe('batch 2 of 3 — 03 (1 — Code and tests)');
    // A person's repin adopts it: the run stands at batch 2 of 4, journaled with every batch pinned again.
    const repin = autopilot(dir, 'repin');
    expect(repin.code, repin.stdout + repin.stderr).toBe(0);
    expect(pointer(dir)).toContain('sub_step: batch 2 of 4 — 03');
    expect(
      events(dir)
        .filter((e) => e.event === 'batch_started')
        .at(-1),
    ).toMatchObject({ batch: 2, of: 4, batches: [['01', '02'], ['03'], ['04'], ['05']] });
    expect(autopilot(dir, 'next', '--json').stdout).not.toContain('changed since this step pinned');
  }, 120_000);

  it('a batch failed 3 times stops for a person (exit 3); ack gives it 3 more; its done resets only itself', () => {
    const dir = atImplement();
    const b1 = autopilot(dir, 'next', '--json').json<NextJson & { batch: BatchJson }>();
    work(dir, b1.batch);
    expect(autopilot(dir, 'done').code).toBe(0);
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect(autopilot(dir, 'next').code).toBe(0);
      const failed = autopilot(dir, 'fail', '--reason', `the walk loops (${attempt})`);
      expect(failed.code).toBe(attempt === 3 ? 3 : 0);
    }
    expect(pointer(dir)).toMatch(/status: failed\nsub_step: batch 2 of 3 — 03\nretry_count: 3/);
    expect(autopilot(dir, 'next').code).toBe(3);
    expect(
      events(dir)
        .filter((e) => e.event === 'step_failed')
        .map((e) => e.batch),
    ).toEqual([2, 2, 2]);
    expect(autopilot(dir, 'ack').code).toBe(0);
    const again = autopilot(dir, 'next', '--json').json<NextJson & { batch: BatchJson }>();
    expect(again).toMatchObject({ sub_step: 'batch 2 of 3 — 03', retry_count: 0, status: 'in_progress' });
    work(dir, again.batch);
    const done = autopilot(dir, 'done', '--json').json<NextJson>();
    expect(done).toMatchObject({ sub_step: 'batch 3 of 3 — 04, 05', retry_count: 0 });
    // Batch 1 stays done: nothing of it was redone.
    expect(
      events(dir)
        .filter((e) => e.event === 'batch_completed')
        .map((e) => e.batch),
    ).toEqual([1, 2]);
  }, 120_000);

  it("existing-code's Implement Tests (step 5) and Implement (step 9, cycle 1) walk 2 batches each, each batch with its commit", () => {
    const dir = newRepo();
    commit(dir, 'initial', { 'package.json': '{"name":"legacy"}\n', 'src/index.js': 'export const legacy = true;\n' });
    const walked: string[] = [];
    for (let i = 0; i < 40; i++) {
      const next = autopilot(dir, 'next', '--json');
      if (next.code === 3) {
        expect(autopilot(dir, 'decide', 'B').code).toBe(0);
        continue;
      }
      expect(next.code, next.stdout + next.stderr).toBe(0);
      const json = next.json<NextJson & { batch?: BatchJson }>();
      if (json.step === 10) break;
      if (json.batch) {
        walked.push(`${json.step} ${json.sub_step}`);
        work(dir, json.batch);
        if (json.batch.batch === json.batch.of) {
          // After the last batch, the step's own report (only it: the batches have theirs).
          const files = stepEvidence(json.done_when!);
          for (const path of json.done_when!) writeFile(dir, path, files[path]);
          testProject(dir);
          expect(autopilot(dir, 'exec').code).toBe(0);
        }
      } else {
        writeArtifacts(dir, json.done_when!);
        // Decompose Tests and New Task write a two-batch index: task 02 depends on 01.
        const index = json.done_when!.find((p) => p.endsWith('/_index.md'));
        if (index) twoBatches(dir, index);
      }
      const done = autopilot(dir, 'done');
      expect([0, 3], `${json.step} ${json.sub_step}: ${done.stdout}${done.stderr}`).toContain(done.code);
      if (done.code === 3) expect(autopilot(dir, 'decide', 'B').code).toBe(0);
    }
    expect(walked).toEqual(['5 batch 1 of 2 — 01', '5 batch 2 of 2 — 02', '9 batch 1 of 2 — 01', '9 batch 2 of 2 — 02']);
    const subjects = git(dir, 'log', '--format=%s')
      .split('\n')
      .filter((s) => / batch \d of 2 done/.test(s));
    expect(subjects).toEqual([
      'autopilot: existing-code 9/14 Implement completed, batch 2 of 2 done (tasks 02)',
      'autopilot: existing-code 9/14 Implement in progress, batch 1 of 2 done (tasks 01)',
      'autopilot: existing-code 5/14 Implement Tests completed, batch 2 of 2 done (tasks 02)',
      'autopilot: existing-code 5/14 Implement Tests in progress, batch 1 of 2 done (tasks 01)',
    ]);
  }, 180_000);
});

/** The filled index rewritten to two batches (01, then 02 that depends on it), both serving its first criterion, with 02's task file. */
function twoBatches(dir: string, index: string): void {
  const path = join(dir, index);
  const text = readFileSync(path, 'utf8');
  const criterion = /^\| Criterion \| Tasks \|\n\|---\|---\|\n\| (\S+) \|/m.exec(text)![1]!;
  const rewritten = text
    .replace(
      /(\| Task \| Name \| Points \| Batch \| Depends on \| Test strategy \|\n\|---\|---\|---\|---\|---\|---\|\n)\|[^\n]*\n/,
      '$1| 01 | First task | 3 | 1 | — | unit tests of its criteria |\n| 02 | Second task | 2 | 2 | 01 | unit tests of its criteria |\n',
    )
    .replace(
      /(\| Batch \| Tasks \| Points \| Why together \|\n\|---\|---\|---\|---\|\n)\|[^\n]*\n/,
      '$1| 1 | 01 | 3 | the first task alone |\n| 2 | 02 | 2 | it builds on the first |\n',
    )
    .replace(/(\| Criterion \| Tasks \|\n\|---\|---\|\n)\|[^\n]*\n/, `$1| ${criterion} | 01, 02 |\n`);
  expect(rewritten).not.toBe(text);
  writeFile(dir, index, rewritten);
  writeFile(dir, index.replace(/_index\.md$/, '02_second_task.md'), filledTemplate('decompose', 'templates/task.md'));
}
