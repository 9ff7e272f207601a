/**
 * Issue 29, points 2, 3 and 5, tried as a lazy or cheating agent would, through
 * the built CLI in real git repositories:
 *
 * - a batch is done only by the engine's own `batch_completed` (files on
 *   disk count for nothing; a report already on disk when its batch began
 *   counts only once it is written again);
 * - a batch's `done` needs code changed outside the docs folder since the
 *   batch began, and names the files each task's Touches lists that did not;
 * - the skills' declarations are pinned with the run: an override written
 *   mid-run changes no judge until a person's `repin`.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { atImplement, work, type BatchJson } from '../helpers/batches.js';
import { autopilot, tempRepo, write, type NextJson } from '../helpers/cli.js';
import { commit, newRepo } from '../helpers/git.js';
import { batchReport, FILLED_ARGV } from '../helpers/templates.js';

type Finding = { check: string; file: string; message: string; write: string };
type Refused = { error: { message: string; expected?: string }; findings: Finding[] };
type StatusJson = { batches: { batch: number; tasks: string[]; status: string }[]; notices?: string[] };

const events = (dir: string) =>
  readFileSync(join(dir, '_docs/_autopilot/journal.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('a batch is done only by the engine (issue 29, point 2)', () => {
  it('2 one-byte batch reports written before Implement starts: next hands out batch 1 of 3, status says 0 of 3 done', () => {
    const dir = atImplement({ started: false });
    expect(readFileSync(join(dir, '_docs/_autopilot_state.md'), 'utf8')).toMatch(/step: 6\nname: Implement\nstatus: not_started/);
    write(dir, '_docs/03_implementation/batch_01.md', 'x');
    write(dir, '_docs/03_implementation/batch_02.md', 'y');
    const next = autopilot(dir, 'next', '--json');
    expect(next.code, next.stdout + next.stderr).toBe(0);
    const json = next.json<NextJson & { batch: BatchJson }>();
    expect(json.sub_step).toBe('batch 1 of 3 — 01, 02');
    expect(json.batch.batch).toBe(1);
    const status = autopilot(dir, 'status', '--json').json<StatusJson>();
    expect(status.batches.map((b) => b.status)).toEqual(['in_progress', 'pending', 'pending']);
    expect(autopilot(dir, 'status').stdout).toContain('Batches   0 of 3 done · now batch 1 (01, 02)');
    // The one-byte report is no report: batch 1's done is refused, and nothing counts it done.
    const done = autopilot(dir, 'done', '--json');
    expect(done.code).toBe(2);
    expect(events(dir).filter((e) => e.event === 'batch_completed')).toHaveLength(0);
  }, 60_000);

  it('a whole batch report written before its batch began: 1 done refused while it is unchanged, 1 accepted once it is written for the batch', () => {
    const dir = atImplement({ started: false });
    // The agent writes batch 1's code and report before Implement starts.
    for (const id of ['01', '02']) write(dir, `src/task_${id}.js`, `// task ${id}\n`);
    write(dir, '_docs/03_implementation/batch_01.md', batchReport(1, ['01', '02'], ['AC-01']));
    const next = autopilot(dir, 'next', '--json').json<NextJson & { batch: BatchJson }>();
    expect(next.batch.batch).toBe(1);
    expect(events(dir).findLast((e) => e.event === 'batch_started')).toMatchObject({ batch: 1, report_hash: expect.stringMatching(/^[0-9a-f]{16}$/) });
    write(dir, 'src/task_01.js', '// task 01, done in the batch\n');
    expect(autopilot(dir, 'exec', '--', ...FILLED_ARGV).code).toBe(0);
    const refused = autopilot(dir, 'done', '--json');
    expect(refused.code, refused.stdout).toBe(2);
    const findings = refused.json<Refused>().findings;
    expect(findings.map((f) => f.check)).toEqual(['batch-report-fresh']);
    expect(findings[0]!.message).toContain('as it was on disk when batch 1 began');
    // Written again for the batch (its deviations said), it is the batch's own report.
    write(dir, '_docs/03_implementation/batch_01.md', `${batchReport(1, ['01', '02'], ['AC-01'])}\nWritten again in batch 1, after its tests ran.\n`);
    const done = autopilot(dir, 'done', '--json');
    expect(done.code, done.stdout).toBe(0);
    expect(done.json<NextJson>().sub_step).toBe('batch 2 of 3 — 03');
  }, 60_000);

  it("the step's own report and the next step's written in batch 1 of 3: the walk over work on disk does not complete Implement (3 batches not recorded done)", () => {
    const dir = atImplement();
    write(dir, 'src/task_01.js', '// task 01\n');
    write(dir, '_docs/03_implementation/implementation_report.md');
    write(dir, '_docs/03_implementation/test_report.md');
    expect(autopilot(dir, 'exec', '--', ...FILLED_ARGV).code).toBe(0);
    const next = autopilot(dir, 'next', '--json');
    expect(next.code, next.stdout).toBe(0);
    const json = next.json<NextJson & { findings?: Finding[] }>();
    expect(json).toMatchObject({ step: 6, sub_step: 'batch 1 of 3 — 01, 02' });
    expect(json.findings?.filter((f) => f.check === 'batches')).toHaveLength(3);
    expect(events(dir).filter((e) => e.event === 'step_completed' && e.step === 6)).toHaveLength(0);
  }, 60_000);
});

describe('a batch changes the code (issue 29, point 5)', () => {
  it("a batch's done with no code changed: 1 refused naming its 2 tasks' Touches files unchanged; 1 accepted once code changed", () => {
    const dir = atImplement();
    // Task 01 names its files under Touches.
    write(
      dir,
      '_docs/02_tasks/01_parse_config.md',
      readFileSync(join(dir, '_docs/02_tasks/01_parse_config.md'), 'utf8').replace(
        /## Touches\n\n[^\n]*\n/,
        '## Touches\n\n- `src/config.js`: the reader of the settings.\n- src/config.test.js, its tests.\n',
      ),
    );
    const next = autopilot(dir, 'next', '--json').json<NextJson & { batch: BatchJson }>();
    expect(autopilot(dir, 'exec', '--', ...FILLED_ARGV).code).toBe(0);
    write(dir, next.batch.report, batchReport(1, ['01', '02'], ['AC-01']));
    const refused = autopilot(dir, 'done', '--json');
    expect(refused.code, refused.stdout).toBe(2);
    const r = refused.json<Refused>();
    expect(r.error.message).toContain('batch 1 of 3 of step 6 (Implement) is not done');
    const code = r.findings.filter((f) => f.check === 'code-change');
    expect(code).toHaveLength(1);
    expect(code[0]!.message).toContain('nothing outside _docs/ changed since batch 1 began');
    expect(code[0]!.write).toContain('01 names src/config.js, src/config.test.js under Touches');
    expect(events(dir).filter((e) => e.event === 'batch_completed')).toHaveLength(0);
    // The code written, and the tests run again on it: accepted, and the batch's commit holds it.
    write(dir, 'src/config.js', 'export const config = {};\n');
    expect(autopilot(dir, 'exec').code).toBe(0);
    const done = autopilot(dir, 'done', '--json');
    expect(done.code, done.stdout).toBe(0);
    expect(done.json<NextJson & { notices?: string[] }>().notices?.join(' ')).toContain('01 names src/config.test.js under Touches');
  }, 60_000);

  it('a change only under _docs/ and .autopilot/ is no code: refused', () => {
    const dir = atImplement();
    const next = autopilot(dir, 'next', '--json').json<NextJson & { batch: BatchJson }>();
    write(dir, '_docs/notes.md', 'notes\n');
    write(dir, '.autopilot/notes.md', 'notes\n');
    expect(autopilot(dir, 'exec', '--', ...FILLED_ARGV).code).toBe(0);
    write(dir, next.batch.report, batchReport(1, ['01', '02'], ['AC-01']));
    const refused = autopilot(dir, 'done', '--json');
    expect(refused.code).toBe(2);
    expect(refused.json<Refused>().findings.map((f) => f.check)).toEqual(['code-change']);
  }, 60_000);

  it('not a git repository: the batch is accepted on its report, and the answer says the code check could not see the work tree', () => {
    const dir = tempRepo();
    for (let i = 0; i < 20; i++) {
      const next = autopilot(dir, 'next', '--json');
      if (next.code === 3) {
        expect(autopilot(dir, 'decide', 'B').code).toBe(0);
        continue;
      }
      const json = next.json<NextJson & { batch?: BatchJson }>();
      if (json.batch) {
        work(dir, json.batch);
        // The filled index has one batch: the step's own report too.
        write(dir, '_docs/03_implementation/implementation_report.md');
        expect(autopilot(dir, 'exec', '--', ...FILLED_ARGV).code).toBe(0);
        const done = autopilot(dir, 'done', '--json');
        expect(done.code, done.stdout).toBe(0);
        expect(done.json<{ notices?: string[] }>().notices?.join(' ')).toContain(
          'not a git repository: the check that batch 1 changed code could not see the work tree',
        );
        expect(events(dir).findLast((e) => e.event === 'batch_completed')).toMatchObject({
          batch: 1,
          code_unseen: expect.stringContaining('not a git repository'),
        });
        return;
      }
      for (const file of json.done_when!) write(dir, file.replace('*', '01'));
      const done = autopilot(dir, 'done');
      if (done.code === 3) expect(autopilot(dir, 'decide', 'B').code).toBe(0);
    }
    throw new Error('never reached a batch');
  }, 60_000);
});

describe('the judges are pinned with the run (issue 29, point 3)', () => {
  const NO_OUTPUTS = '---\nname: problem\ndescription: Write anything.\n---\n\n# Problem\n\nWrite anything at all.\n';

  it('an override SKILL.md with no outputs written mid-step: done refused by the 2 pinned outputs; every command names it; a person repins it', () => {
    const dir = newRepo();
    commit(dir, 'initial', { 'README.md': 'a project\n' });
    expect(autopilot(dir, 'next').code).toBe(0);
    write(dir, '.autopilot/skills/problem/SKILL.md', NO_OUTPUTS);
    write(dir, '_docs/00_problem/problem.md', 'x');
    write(dir, '_docs/00_problem/acceptance_criteria.md', 'x');
    const done = autopilot(dir, 'done', '--json');
    expect(done.code, done.stdout).toBe(2);
    const files = [...new Set(done.json<Refused>().findings.map((f) => f.file))].sort();
    expect(files).toEqual(['_docs/00_problem/acceptance_criteria.md', '_docs/00_problem/problem.md']);
    const said = 'the skill problem is now read from .autopilot/skills/problem/SKILL.md';
    for (const command of ['status', 'next', 'check']) {
      const run = autopilot(dir, command);
      expect((run.stdout + run.stderr).replace(/\s+/g, ' '), command).toContain(said);
    }
    expect(autopilot(dir, 'check').code).not.toBe(0);
    // A person adopts it: journaled, and the judges read the override from then on.
    const repin = autopilot(dir, 'repin');
    expect(repin.code, repin.stdout + repin.stderr).toBe(0);
    expect(repin.stdout).toContain('problem');
    expect(events(dir).findLast((e) => e.event === 'skills_pinned')).toMatchObject({ actor: 'person', changed: [expect.stringContaining('problem')] });
    expect(autopilot(dir, 'status').stdout).not.toContain(said);
    expect(autopilot(dir, 'done').code).toBe(0);
  }, 60_000);

  it('a run an older autopilot began (no skills pinned): the first write pins its 10 skills, journaled, saying nothing; an override written after that is held', () => {
    const dir = newRepo();
    commit(dir, 'initial', { 'README.md': 'a project\n' });
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    // The journal as an older autopilot wrote it: run_started with no skills, its pointer record with no skills_hash.
    const file = join(dir, '_docs/_autopilot/journal.jsonl');
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    const started = JSON.parse(lines[0]!) as Record<string, unknown> & { pointer: Record<string, unknown> };
    expect(Object.keys(started.skills as object)).toHaveLength(10);
    delete started.skills;
    delete started.skills_hash;
    delete started.journal_index;
    delete started.pointer.skills_hash;
    writeFileSync(file, `${JSON.stringify(started)}\n`);
    rmSync(join(dir, '_docs/_autopilot/cache'), { recursive: true, force: true });
    expect(autopilot(dir, 'status', '--json').json<StatusJson>().notices ?? []).toEqual([]);
    const next = autopilot(dir, 'next', '--json');
    expect(next.code, next.stdout).toBe(0);
    expect(next.json<{ notices?: string[] }>().notices).toBeUndefined();
    const pinned = events(dir).filter((e) => e.event === 'skills_pinned');
    expect(pinned).toHaveLength(1);
    expect(Object.keys(pinned[0]!.skills as object)).toHaveLength(10);
    write(dir, '.autopilot/skills/problem/SKILL.md', NO_OUTPUTS);
    write(dir, '_docs/00_problem/problem.md', 'x');
    write(dir, '_docs/00_problem/acceptance_criteria.md', 'x');
    expect(autopilot(dir, 'done').code).toBe(2);
  }, 60_000);

  it("a pinned override's template edited mid-step: done refused naming the template until a person repins", () => {
    const dir = newRepo();
    commit(dir, 'initial', { 'README.md': 'a project\n' });
    const skill = readFileSync(join(import.meta.dirname, '..', '..', 'skills', 'problem', 'SKILL.md'), 'utf8');
    write(dir, '.autopilot/skills/problem/SKILL.md', skill);
    for (const t of ['problem.md', 'acceptance_criteria.md'])
      write(dir, `.autopilot/skills/problem/templates/${t}`, readFileSync(join(import.meta.dirname, '..', '..', 'skills', 'problem', 'templates', t), 'utf8'));
    expect(autopilot(dir, 'next').code).toBe(0);
    write(dir, '.autopilot/skills/problem/templates/problem.md', '# Problem\n');
    write(dir, '_docs/00_problem/problem.md');
    write(dir, '_docs/00_problem/acceptance_criteria.md');
    const done = autopilot(dir, 'done', '--json');
    expect(done.code, done.stdout).toBe(2);
    const pinned = done.json<Refused>().findings.filter((f) => f.check === 'pinned');
    expect(pinned.map((f) => f.file)).toEqual(['_docs/00_problem/problem.md']);
    expect(pinned[0]!.message).toContain('templates/problem.md');
    expect(autopilot(dir, 'repin').code).toBe(0);
    expect(autopilot(dir, 'done').code).toBe(0);
  }, 60_000);
});
