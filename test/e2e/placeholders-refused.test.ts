/**
 * Issue 23's list, tried as the new user tried it, through the built command
 * line: each placeholder that `done` used to accept ("✓ Completed step …") is
 * now refused with exit 2, naming the file and what to write, and the journal
 * is left as it was. (The folder walk past a person is tried in
 * found-on-disk.test.ts; a research round's copied draft in
 * test/unit/app/evidence.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { autopilot, read, tempRepo, write, writeArtifacts, type NextJson } from '../helpers/cli.js';
import { filledTemplate } from '../helpers/templates.js';

const JOURNAL = '_docs/_autopilot/journal.jsonl';

/** `done` refused: exit 2, each of `names` in the answer, nothing journaled. */
function refused(dir: string, ...names: (string | RegExp)[]): string {
  const before = read(dir, JOURNAL);
  const done = autopilot(dir, 'done');
  expect(done.code, done.stdout + done.stderr).toBe(2);
  for (const name of names) expect(done.stdout).toMatch(name);
  expect(read(dir, JOURNAL)).toBe(before);
  return done.stdout;
}

function next(dir: string): NextJson {
  const run = autopilot(dir, 'next', '--json');
  expect(run.code, run.stdout + run.stderr).toBe(0);
  return run.json<NextJson>();
}

/** Steps done as the skills say until `step` is the one in progress. */
function reach(dir: string, step: number): NextJson {
  for (let i = 0; i < 12; i++) {
    const n = next(dir);
    if (n.step === step) return n;
    writeArtifacts(dir, n.done_when!);
    const done = autopilot(dir, 'done');
    if (done.code === 3) expect(autopilot(dir, 'decide', 'B').code).toBe(0);
    else expect(done.code, done.stdout).toBe(0);
  }
  throw new Error(`step ${step} not reached`);
}

const PROBLEM = '_docs/00_problem/problem.md';
const CRITERIA = '_docs/00_problem/acceptance_criteria.md';

describe('the placeholders a new user tried, each refused by done', () => {
  it('Problem: 4 kinds refused (headings alone, TODO, TBD, "Nothing implemented."); the skill’s filled template passes', () => {
    const dir = tempRepo();
    next(dir);
    write(dir, PROBLEM, '# Problem\n\n## Problem\n\n## Users\n\n## Constraints\n\n## Scope\n');
    write(dir, CRITERIA, '# Acceptance criteria\n\nTODO\n');
    refused(dir, /✗ _docs\/00_problem\/problem\.md/, /Problem/, /✗ _docs\/00_problem\/acceptance_criteria\.md/, /TODO/, /write: \S/);
    write(dir, PROBLEM, filledTemplate('problem', 'templates/problem.md').replace(/(## Users\n\n)[^\n]+/, '$1TBD'));
    write(dir, CRITERIA, filledTemplate('problem', 'templates/acceptance_criteria.md'));
    refused(dir, /TBD/, /problem\.md:\d+/);
    write(dir, PROBLEM, filledTemplate('problem', 'templates/problem.md').replace(/(## Scope\n\n)[^\n]+/, '$1Nothing implemented.'));
    refused(dir, /Scope/);
    write(dir, PROBLEM, filledTemplate('problem', 'templates/problem.md'));
    expect(autopilot(dir, 'done').code).toBe(0);
  });

  it('Research: a retry after `fail` that leaves the failed attempt’s draft as it was is refused; a changed draft passes', () => {
    const dir = tempRepo();
    const research = reach(dir, 2);
    writeArtifacts(dir, research.done_when!);
    expect(autopilot(dir, 'fail', '--reason', 'the sources were thin').code).toBe(0);
    expect(next(dir)).toMatchObject({ step: 2, retry_count: 1 });
    refused(dir, /changed|new/i);
    write(dir, '_docs/01_solution/solution_draft_01.md', filledTemplate('research', 'templates/solution_draft.md', 'attempt 2'));
    expect(autopilot(dir, 'done').code).toBe(3);
  });

  it('Plan: `# Solution` alone is refused, naming each required section', () => {
    const dir = tempRepo();
    const plan = reach(dir, 3);
    writeArtifacts(dir, plan.done_when!);
    write(dir, '_docs/01_solution/solution.md', '# Solution\n');
    refused(dir, /✗ _docs\/01_solution\/solution\.md/, /##/);
  });

  it('Decompose: the task index `| T1 | nothing | 3 | T9 |` is refused (no Batch column), and so are a missing task file and a dependency on no task', () => {
    const dir = tempRepo();
    const decompose = reach(dir, 5);
    writeArtifacts(dir, decompose.done_when!);
    const index = read(dir, '_docs/02_tasks/_index.md');
    write(
      dir,
      '_docs/02_tasks/_index.md',
      index.replace(/## Tasks\n\n[\s\S]*?\n\n/, '## Tasks\n\n| Task | Name | Points | Depends on |\n|---|---|---|---|\n| T1 | nothing | 3 | T9 |\n\n'),
    );
    refused(dir, /_index\.md/, /Batch/);
    write(dir, '_docs/02_tasks/_index.md', index.replace(/^\| 01 \|(.*)\| — \|/m, '| 01 |$1| 09 |'));
    refused(dir, /09/);
  });

  it('Run Tests: a report of a run that exited 1 with 7 failed is refused, a zero typed over it too; a person accepts it with a reason', () => {
    const dir = tempRepo();
    const tests = reach(dir, 7);
    const report = tests.done_when!.find((f) => f.endsWith('test_report.md'))!;
    writeArtifacts(dir, tests.done_when!);
    // The project's tests (node --test over one passing test) gain 11 more that pass and 7 that fail.
    const cases = [
      ...Array.from({ length: 11 }, (_, i) => `test('passes ${i}', () => {});`),
      ...Array.from({ length: 7 }, (_, i) => `test('fails ${i}', () => assert.fail('red'));`),
    ];
    write(dir, 'test/more.test.js', ["const test = require('node:test');", "const assert = require('node:assert');", ...cases, ''].join('\n'));
    const run = autopilot(dir, 'exec');
    expect(run.code).toBe(1);
    const result = /^## Result\n\nCommand: .*\nExit code: 1\nTotals: 12 passed, 7 failed$/m.exec(run.stdout)![0];
    const text = read(dir, report).replace(/^## Result\n\nCommand: .*\nExit code: .*\nTotals: .*$/m, result);
    write(dir, report, text);
    refused(dir, /did not pass/, /--accept-failures/);
    write(dir, report, text.replace('Exit code: 1', 'Exit code: 0').replace('Totals: 12 passed, 7 failed', 'Totals: 12 passed, 0 failed'));
    refused(dir, /exited 1/);
    write(dir, report, text);
    expect(autopilot(dir, 'done', '--accept-failures', '--reason', 'the 7 are tracked in #42').code).toBe(0);
    expect(read(dir, JOURNAL)).toMatch(/"event":"step_completed"[^\n]*"accepted_failures":true/);
  });
});
