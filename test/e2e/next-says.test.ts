/**
 * What `next` tells an agent beyond the step (issue 22, point 7): the name to
 * write where `done_when` is a pattern, where a resumed step picks up (the
 * sub-step, the files already there), and at a boundary whose task index
 * cannot be read, what to fix. Every answer holds to its schema.
 */
import { withOptions } from '../helpers/line.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stepAnswer, type StepAnswer } from '../../src/render/answers.js';
import { autopilot as cli, tempRepo, write } from '../helpers/cli.js';

/** The agent of one conversation, named as the installed /autopilot text names it: the boundary waits for its answer. */
const autopilot = (dir: string, ...args: string[]) => cli(dir, ...withOptions(args, ['--session', 'conversation-1']));

const next = (dir: string) => {
  const run = autopilot(dir, 'next', '--json');
  return { code: run.code, json: stepAnswer.parse(run.json()) };
};

/** A greenfield run at step 2, Research, started. */
function atResearch(): string {
  const dir = tempRepo();
  autopilot(dir, 'init', '--flow', 'greenfield');
  autopilot(dir, 'next');
  for (const f of ['00_problem/problem.md', '00_problem/acceptance_criteria.md']) write(dir, `_docs/${f}`);
  expect(autopilot(dir, 'done').code).toBe(0);
  return dir;
}

describe('next names the file to write where done_when is a pattern', () => {
  it('the first draft, then on a second round the third name after 2 drafts; never for a plain path', () => {
    const dir = atResearch();
    const first = next(dir);
    expect(first.json).toMatchObject({
      step: 2,
      action: 'start',
      done_when: ['_docs/01_solution/solution_draft_*.md'],
      write: ['_docs/01_solution/solution_draft_01.md'],
    });
    expect(autopilot(dir, 'next').stdout).toContain('  Write:     _docs/01_solution/solution_draft_01.md');
    write(dir, '_docs/01_solution/solution_draft_01.md');
    write(dir, '_docs/01_solution/solution_draft_02.md');
    expect(autopilot(dir, 'done').code).toBe(3);
    // A person asks for another round: the drafts on disk are taken, the next name is free.
    expect(autopilot(dir, 'decide', 'A').code).toBe(0);
    const round = next(dir);
    expect(round.json).toMatchObject({ step: 2, write: ['_docs/01_solution/solution_draft_03.md'] });
    expect(round.json.have).toBeUndefined();
    write(dir, '_docs/01_solution/solution_draft_03.md');
    expect(autopilot(dir, 'done').code).toBe(3);
    expect(autopilot(dir, 'decide', 'B').code).toBe(0);
    const plan = next(dir).json;
    expect(plan).toMatchObject({ step: 3, name: 'Plan' });
    expect(plan.write).toBeUndefined();
  });
});

describe('next, resuming a step, says where to pick up', () => {
  it('the sub-step recorded and the 1 file of 2 already written; the text says both', () => {
    const dir = tempRepo();
    autopilot(dir, 'init', '--flow', 'greenfield');
    expect(next(dir).json).toMatchObject({ step: 1, action: 'start' });
    expect(next(dir).json.resume).toBeUndefined();
    autopilot(dir, 'substep', '2 — Acceptance criteria');
    write(dir, '_docs/00_problem/problem.md');
    const resumed: StepAnswer = next(dir).json;
    expect(resumed).toMatchObject({ step: 1, action: 'resume', resume: '2 — Acceptance criteria', have: ['_docs/00_problem/problem.md'] });
    const text = autopilot(dir, 'next').stdout;
    expect(text).toContain('  Resume at sub-step: 2 — Acceptance criteria');
    expect(text).toContain('  Have:      _docs/00_problem/problem.md');
  });
});

describe('a boundary whose task index cannot be read', () => {
  it('done refuses it, naming the file and what it needs (exit 2, 0 events); forced by a person, the boundary says what to fix; fixed, the next `next` shows the numbers', () => {
    const dir = atResearch();
    const walk: string[][] = [['01_solution/solution_draft_01.md'], ['01_solution/solution.md', '02_document/architecture.md']];
    for (const files of walk) {
      autopilot(dir, 'next');
      for (const f of files) write(dir, `_docs/${f}`);
      if (autopilot(dir, 'done').code === 3) autopilot(dir, 'decide', 'B');
    }
    expect(next(dir).json).toMatchObject({ step: 5, name: 'Decompose' });
    write(dir, '_docs/02_tasks/_index.md', '# Tasks\n\n- parse\n- store\n');
    const events = readFileSync(join(dir, '_docs/_autopilot/journal.jsonl'), 'utf8');
    const refused = autopilot(dir, 'done');
    expect(refused.code).toBe(2);
    expect(refused.stdout + refused.stderr).toContain('_docs/02_tasks/_index.md');
    expect(readFileSync(join(dir, '_docs/_autopilot/journal.jsonl'), 'utf8')).toBe(events);
    // A person forces it past the checks: the boundary's summary then tells the agent what to fix.
    const done = autopilot(dir, 'done', '--force', '--reason', 'the index is rewritten next', '--json');
    expect(done.code, done.stdout + done.stderr).toBe(3);
    const summary = stepAnswer.parse(done.json()).boundary?.summary;
    expect(summary).toMatchObject({
      file: '_docs/02_tasks/_index.md',
      problem: 'the task index has no task table',
      fix: expect.stringMatching(/^fix _docs\/02_tasks\/_index\.md: it needs \| Task \| Name \| Points \| Batch \| Depends on \|.*then run `next`/),
    });
    expect(autopilot(dir, 'next').stdout).toContain('  The agent: fix _docs/02_tasks/_index.md: it needs | Task |');
    write(dir, '_docs/02_tasks/_index.md', '# Tasks\n\n| Task | Name | Points | Batch |\n|---|---|---|---|\n| 01 | Parse | 3 | 1 |\n');
    expect(next(dir).json.boundary?.summary).toEqual({ file: '_docs/02_tasks/_index.md', tasks: 1, batches: 1, points: 3 });
  });
});
