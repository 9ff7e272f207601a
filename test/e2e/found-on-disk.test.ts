/**
 * Issue 23, point 7: the folder never walks past a person. Work found on disk
 * that the journal never heard of is completed only up to the first decision,
 * session boundary or checkpointed step, and each step it completes gets the
 * checks `done` gives it. The built CLI on real folders in a real git
 * repository.
 */
import { describe, expect, it } from 'vitest';
import { autopilot, journal, tempRepo, write, type NextJson } from '../helpers/cli.js';
import { GREENFIELD_1_TO_7 } from '../helpers/greenfield.js';
import { git, identify } from '../helpers/git.js';

type StepJson = NextJson & { findings?: { check: string; file: string; message: string; write: string }[]; checkpoint?: string };

/** A fresh git repository with a first commit, set up by `autopilot init` (greenfield: no code). */
function freshRepo(): string {
  const dir = tempRepo();
  git(dir, 'init', '-q', '-b', 'main');
  identify(dir);
  write(dir, 'README.md', '# A new project\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'first');
  const init = autopilot(dir, 'init');
  expect(init.code, init.stdout + init.stderr).toBe(0);
  return dir;
}

/** The steps the journal says were completed, each as `step:by`. */
const completions = (dir: string) =>
  journal(dir)
    .filter((e) => e.event === 'step_completed')
    .map((e) => `${String(e.step)}:${String(e.by ?? 'done')}`);

/** Greenfield's files of steps 1–3, written as their skills say (each template filled). */
const STEPS_1_TO_3 = GREENFIELD_1_TO_7.slice(0, 5);

describe('the folder never walks past a person (the built CLI, real git)', () => {
  it("the issue's reproduction: eight one-line `# x` files at step 1, then `next`: 0 of the 6 steps complete by folder, the run stands at step 1, and `next` names the findings", () => {
    const dir = freshRepo();
    expect(autopilot(dir, 'next').code).toBe(0);
    for (const rel of GREENFIELD_1_TO_7) write(dir, `_docs/${rel}`, '# x\n');
    const run = autopilot(dir, 'next', '--json');
    expect(run.code, run.stderr).toBe(0);
    const next = run.json<StepJson>();
    expect(next).toMatchObject({ step: 1, name: 'Problem', outcome: 'work' });
    expect(next.findings?.map((f) => f.file)).toContain('_docs/00_problem/problem.md');
    expect(completions(dir)).toEqual([]);
    expect(journal(dir).some((e) => e.event === 'decision_required' || e.event === 'boundary_reached')).toBe(false);
    // The text a person reads says why, and `done` refuses the same files.
    expect(autopilot(dir, 'next').stdout).toMatch(/found on disk, but they do not pass its checks/);
    expect(autopilot(dir, 'done').code).toBe(2);
  });

  it('the same eight files in a folder with no pointer and no journal yet (init, write, next): 0 steps complete; the run starts at step 1', () => {
    const dir = freshRepo();
    for (const rel of GREENFIELD_1_TO_7) write(dir, `_docs/${rel}`, '# x\n');
    const next = autopilot(dir, 'next', '--json').json<StepJson>();
    expect(next).toMatchObject({ step: 1, outcome: 'work', action: 'start' });
    expect(next.findings?.length).toBeGreaterThan(0);
    expect(completions(dir)).toEqual([]);
  });

  it('real files for steps 1–3 (filled from the templates): `next` completes 2 steps by folder, commits their 3 files, and asks the research decision (exit 3); Plan waits for the answer', () => {
    const dir = freshRepo();
    expect(autopilot(dir, 'next').code).toBe(0);
    for (const rel of STEPS_1_TO_3) write(dir, `_docs/${rel}`);
    const run = autopilot(dir, 'next', '--json');
    expect(run.code, run.stdout + run.stderr).toBe(3);
    const next = run.json<StepJson>();
    expect(next).toMatchObject({ step: 2, name: 'Research', status: 'completed', outcome: 'decision' });
    expect(next.decision?.question).toMatch(/Research is done/);
    expect(completions(dir)).toEqual(['1:folder', '2:folder']);
    expect(
      journal(dir)
        .filter((e) => e.event === 'decision_required')
        .map((e) => e.step),
    ).toEqual([2]);
    // The walk's steps are committed with their files (3 of them).
    expect(git(dir, 'show', '--name-only', '--format=%s', 'HEAD').trim().split('\n')).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^autopilot: greenfield 2\/10 Research completed/),
        '_docs/00_problem/problem.md',
        '_docs/00_problem/acceptance_criteria.md',
        '_docs/01_solution/solution_draft_01.md',
      ]),
    );
    // Plan's files wait, uncommitted, for their step; everything else of the run is in HEAD as the work tree has it.
    expect(git(dir, 'status', '--short', '--', '_docs').trim().split('\n').sort()).toEqual(['?? _docs/01_solution/solution.md', '?? _docs/02_document/']);
    // Asked again, not walked past, until a person answers.
    expect(autopilot(dir, 'next').code).toBe(3);
    expect(autopilot(dir, 'decide', 'B').code).toBe(0);
    expect(autopilot(dir, 'next', '--json').json<StepJson>()).toMatchObject({ step: 3, name: 'Plan', outcome: 'work' });
    expect(autopilot(dir, 'check').code).toBe(0);
  });

  it('after the decision, real files for Plan and Decompose: `next` completes 2 steps by folder (3, 5) and stops at the session boundary (exit 3), with its checkpoint and a progress commit', () => {
    const dir = freshRepo();
    expect(autopilot(dir, 'next').code).toBe(0);
    for (const rel of STEPS_1_TO_3.slice(0, 3)) write(dir, `_docs/${rel}`);
    expect(autopilot(dir, 'next').code).toBe(3);
    expect(autopilot(dir, 'decide', 'B').code).toBe(0);
    for (const rel of [...STEPS_1_TO_3.slice(3), '02_tasks/_index.md']) write(dir, `_docs/${rel}`);
    // Work written past the boundary is not walked into.
    write(dir, '_docs/03_implementation/implementation_report.md', '# x\n');
    const commits = git(dir, 'rev-list', '--count', 'HEAD').trim();
    const run = autopilot(dir, 'next', '--json');
    expect(run.code, run.stdout + run.stderr).toBe(3);
    const next = run.json<StepJson>();
    expect(next).toMatchObject({ step: 6, name: 'Implement', outcome: 'boundary', boundary: { after: { step: 5 }, next: { step: 6 } } });
    expect(next.checkpoint).toMatch(/boundary/);
    expect(completions(dir)).toEqual(['1:folder', '2:folder', '3:folder', '5:folder']);
    expect(
      journal(dir)
        .filter((e) => e.event === 'boundary_reached')
        .map((e) => e.after),
    ).toEqual([5]);
    expect(Number(git(dir, 'rev-list', '--count', 'HEAD').trim())).toBeGreaterThan(Number(commits));
    // The commit holds both walked steps' files: Plan's and Decompose's.
    const held = git(dir, 'show', '--name-only', '--format=', 'HEAD');
    for (const rel of [...STEPS_1_TO_3.slice(3), '02_tasks/_index.md']) expect(held).toContain(`_docs/${rel}`);
    expect(autopilot(dir, 'check').code).toBe(0);
  });

  it("after a `fail`, the step's files unchanged and the next step's draft on disk: 0 steps complete; the retry is told its files are not new (fresh)", () => {
    const dir = freshRepo();
    expect(autopilot(dir, 'next').code).toBe(0);
    for (const rel of STEPS_1_TO_3.slice(0, 2)) write(dir, `_docs/${rel}`);
    expect(autopilot(dir, 'fail', '--reason', 'the criteria miss the offline case').code).toBe(0);
    write(dir, `_docs/${STEPS_1_TO_3[2]!}`);
    const next = autopilot(dir, 'next', '--json').json<StepJson>();
    expect(next).toMatchObject({ step: 1, outcome: 'work', retry_count: 1 });
    expect(next.findings?.map((f) => f.check)).toEqual(['fresh']);
    expect(completions(dir)).toEqual([]);
  });

  it('a Decompose found on disk whose task index fails its checks: Plan completes by folder (1 step) and the run stands at Decompose with the findings', () => {
    const dir = freshRepo();
    expect(autopilot(dir, 'next').code).toBe(0);
    for (const rel of STEPS_1_TO_3.slice(0, 3)) write(dir, `_docs/${rel}`);
    expect(autopilot(dir, 'next').code).toBe(3);
    expect(autopilot(dir, 'decide', 'B').code).toBe(0);
    for (const rel of STEPS_1_TO_3.slice(3)) write(dir, `_docs/${rel}`);
    write(dir, '_docs/02_tasks/_index.md', '| T1 | nothing | 3 | T9 |\n');
    const run = autopilot(dir, 'next', '--json');
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const next = run.json<StepJson>();
    expect(next).toMatchObject({ step: 5, name: 'Decompose', outcome: 'work', action: 'start' });
    expect(next.findings?.every((f) => f.file === '_docs/02_tasks/_index.md')).toBe(true);
    expect(completions(dir)).toEqual(['1:folder', '2:folder', '3:folder']);
  });
});
