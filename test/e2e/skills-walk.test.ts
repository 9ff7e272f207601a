/**
 * The positive walk (issue 23): an agent that writes each step's files as its
 * skill says (from the template `next` names, every `{{ … }}` filled, every
 * Self-check box ticked, a report's Result the run `autopilot exec` recorded)
 * walks both built-in flows to their end, through every optional and
 * conditional step, and `done` never refuses it. Between them the two walks
 * use all 16 skills.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { autopilot, tempRepo, write, type NextJson } from '../helpers/cli.js';
import { FILLED_COMMAND, fillTemplate, filledTemplate, testProject } from '../helpers/templates.js';

/** The skills whose report holds a Result: the agent runs the suite through `autopilot exec` first. */
const RUNS_TESTS = new Set(['implement', 'test-run', 'refactor', 'testability-revision', 'performance-test']);

interface Walked {
  steps: string[];
  skills: Set<string>;
  /** With `placeholdersFirst`: the steps whose templates, written as they are, `done` refused naming each file and what to write. */
  refused: string[];
}

/** Walks the flow as the skills say until `stop` says so; answers each decision and boundary with B (go on). */
function walk(dir: string, stop: (next: NextJson) => boolean, extra: Record<string, string> = {}, placeholdersFirst = false): Walked {
  const walked: Walked = { steps: [], skills: new Set(), refused: [] };
  for (let i = 0; i < 40; i++) {
    const next = autopilot(dir, 'next', '--json');
    expect(next.code, next.stdout + next.stderr).toBe(0);
    const json = next.json<NextJson & { templates?: { file: string; template: string }[] }>();
    if (stop(json) || !json.templates) return walked;
    const skill = json.skill!.split('/').at(-2)!;
    walked.steps.push(`${json.step} ${json.name}`);
    walked.skills.add(skill);
    if (RUNS_TESTS.has(skill)) {
      testProject(dir);
      const run = autopilot(dir, 'exec');
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain(`Command: ${FILLED_COMMAND}`);
    }
    if (placeholdersFirst) {
      // The templates copied as they are: every placeholder left in, every box unticked.
      for (const { file, template } of json.templates) write(dir, file.replace('*', '01'), readFileSync(template, 'utf8'));
      const journal = readFileSync(`${dir}/_docs/_autopilot/journal.jsonl`, 'utf8');
      const refused = autopilot(dir, 'done');
      expect(refused.code, `${json.step} ${json.name}: ${refused.stdout}`).toBe(2);
      for (const { file } of json.templates) expect(refused.stdout).toContain(`✗ ${file.replace('*', '01')}`);
      expect(refused.stdout).toMatch(/\n {6}write: \S/);
      expect(readFileSync(`${dir}/_docs/_autopilot/journal.jsonl`, 'utf8')).toBe(journal);
      walked.refused.push(`${json.step} ${json.name}`);
    }
    for (const { file, template } of json.templates) {
      const path = file.replace('*', '01');
      write(dir, path, fillTemplate(readFileSync(template, 'utf8')));
      if (path.endsWith('/_index.md')) write(dir, path.replace(/_index\.md$/, '01_first_task.md'), filledTemplate('decompose', 'templates/task.md'));
      if (extra[path]) write(dir, extra[path], 'A file this step writes only when it applies: its existence makes a later step run.\n');
    }
    const done = autopilot(dir, 'done');
    expect(done.code, `${json.step} ${json.name}: ${done.stdout}${done.stderr}`).not.toBe(2);
    if (done.code === 3) expect(autopilot(dir, 'decide', 'B').code).toBe(0);
    else expect(done.code, done.stderr).toBe(0);
  }
  throw new Error('the walk did not end in 40 steps');
}

describe('the positive walk: every step written as its skill and template say', () => {
  const skills = new Set<string>();

  it('greenfield: all 10 steps, UI Design included, complete without a refusal', () => {
    const dir = tempRepo();
    const walked = walk(dir, () => false, { '_docs/00_problem/problem.md': '_docs/00_problem/ui.md' });
    for (const skill of walked.skills) skills.add(skill);
    expect(walked.steps).toEqual([
      '1 Problem',
      '2 Research',
      '3 Plan',
      '4 UI Design',
      '5 Decompose',
      '6 Implement',
      '7 Run Tests',
      '8 Security Audit',
      '9 Performance Test',
      '10 Deploy',
    ]);
    expect(autopilot(dir, 'status', '--json').json()).toMatchObject({ step: 'done' });
  }, 120_000);

  it('existing-code: the 14 steps of cycle 1, Code Testability Revision included, complete without a refusal', () => {
    const dir = tempRepo();
    write(dir, 'src/main.js', 'console.log("the code this flow documents");\n');
    const walked = walk(dir, (next) => next.cycle > 1, { '_docs/02_document/tests/test_spec.md': '_docs/02_document/tests/testability_issues.md' });
    expect(walked.steps).toHaveLength(14);
    expect(walked.steps[2]).toBe('3 Code Testability Revision');
    for (const skill of walked.skills) skills.add(skill);
  }, 120_000);

  it('an agent that copies each template as it is (placeholders left, boxes unticked) is refused at every one of the 10 greenfield steps, naming each file and what to write, with 0 events written; filled, it goes on', () => {
    const dir = tempRepo();
    const walked = walk(dir, () => false, { '_docs/00_problem/problem.md': '_docs/00_problem/ui.md' }, true);
    expect(walked.refused).toEqual(walked.steps);
    expect(walked.refused).toHaveLength(10);
    expect(autopilot(dir, 'status', '--json').json()).toMatchObject({ step: 'done' });
  }, 120_000);

  it('between them the two walks used all 16 skills', () => {
    expect(skills.size).toBe(16);
  });
});
