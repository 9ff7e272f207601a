/**
 * The whole greenfield flow, driven through the real command line only, the
 * way an agent drives it: next, write what it asks for, done. The decision,
 * the conditional step, the session boundary and the retry rule all take
 * effect where the flow says.
 */
import { withOptions } from '../helpers/line.js';
import { describe, expect, it } from 'vitest';
import { autopilot as cli, journal, read, tempRepo, write, writeArtifacts, type NextJson, GREENFIELD_1_TO_7 } from '../helpers/cli.js';

/** The agent of one conversation, named as the installed /autopilot text names it. */
const autopilot = (dir: string, ...args: string[]) => cli(dir, ...withOptions(args, ['--session', 'conversation-1']));

function next(dir: string): NextJson {
  const run = autopilot(dir, 'next', '--json');
  expect(run.code, run.stdout + run.stderr).toBe(0);
  return run.json<NextJson>();
}

/** next, write the step's artifacts, done: returns done's exit code and JSON. */
function work(dir: string, expected: { step: number; name: string }): { code: number; json: NextJson } {
  const n = next(dir);
  expect(n).toMatchObject({ step: expected.step, name: expected.name, outcome: 'work', status: 'in_progress' });
  writeArtifacts(dir, n.done_when!);
  const done = autopilot(dir, 'done', '--json');
  return { code: done.code, json: done.json<NextJson>() };
}

describe('greenfield, start to end, through the CLI', () => {
  it('walks all ten steps', () => {
    const dir = tempRepo();

    // 1 Problem: an empty folder is a new project.
    const first = next(dir);
    expect(first).toMatchObject({ flow: 'greenfield', step: 1, name: 'Problem', source: 'folder', action: 'start' });
    expect(first.skill).toMatch(/skills\/problem\/SKILL\.md$/);
    expect(first.done_when).toEqual(['_docs/00_problem/problem.md', '_docs/00_problem/acceptance_criteria.md']);
    // The agent's word is not proof: done without the files is refused, naming them.
    const early = autopilot(dir, 'done', '--json');
    expect(early.code).toBe(2);
    expect(early.json<NextJson>().error!.message).toContain('acceptance_criteria.md');
    writeArtifacts(dir, first.done_when!);
    expect(autopilot(dir, 'done', '--json').json<NextJson>()).toMatchObject({ outcome: 'advanced', step: 2, status: 'not_started' });

    // 2 Research ends with a decision: exit 3, asked again until answered.
    let research = work(dir, { step: 2, name: 'Research' });
    expect(research.code).toBe(3);
    expect(research.json.decision!.options.map((o) => o.option)).toEqual(['A', 'B']);
    expect(research.json.decision!.recommendation.option).toBe('B');
    expect(autopilot(dir, 'next', '--json').code).toBe(3);
    // A: another round of the same step.
    expect(autopilot(dir, 'decide', 'A', '--json').json<NextJson>()).toMatchObject({ step: 2, status: 'not_started' });
    // The second round must leave a new draft: the first round's file proves nothing.
    research = work(dir, { step: 2, name: 'Research' });
    expect(research.code).toBe(2);
    expect(research.json.error!.message).toContain('no new artifact');
    write(dir, '_docs/01_solution/solution_draft_02.md');
    expect(autopilot(dir, 'done').code).toBe(3);
    expect(autopilot(dir, 'decide', 'Z').code).toBe(2);
    expect(autopilot(dir, 'decide', 'b', '--json').json<NextJson>()).toMatchObject({ outcome: 'advanced', step: 3, name: 'Plan' });

    // 3 Plan; 4 UI Design is passed over (no 00_problem/ui.md), journaled with the reason.
    expect(work(dir, { step: 3, name: 'Plan' }).json).toMatchObject({ step: 5, name: 'Decompose' });
    expect(journal(dir)).toContainEqual(expect.objectContaining({ event: 'step_skipped', step: 4, by: 'condition' }));

    // 5 Decompose: a session boundary. Completed, the pointer on 6 not started, exit 3.
    const decompose = work(dir, { step: 5, name: 'Decompose' });
    expect(decompose.code).toBe(3);
    expect(decompose.json.boundary).toMatchObject({ after: { step: 5 }, next: { step: 6 } });
    expect(read(dir, '_docs/_autopilot_state.md')).toContain('step: 6\nname: Implement\nstatus: not_started');
    // The boundary is the seed's decision: the same session is stopped there again until it answers.
    expect(decompose.json.boundary).toMatchObject({ decision: { question: 'Decompose complete — start Implement?', recommendation: { option: 'A' } } });
    expect(autopilot(dir, 'next').code).toBe(3);
    expect(autopilot(dir, 'decide', 'B', '--json').json<NextJson>()).toMatchObject({ outcome: 'advanced', step: 6 });

    // 6 Implement.
    expect(work(dir, { step: 6, name: 'Implement' }).code).toBe(0);

    // 7 Run Tests: two failures are retried, the third stops for a person.
    expect(next(dir).step).toBe(7);
    for (const attempt of [1, 2]) {
      const failed = autopilot(dir, 'fail', '--reason', 'suite red', '--json');
      expect(failed.code).toBe(0);
      expect(failed.json<NextJson>()).toMatchObject({ retry_count: attempt, status: 'not_started' });
      expect(next(dir)).toMatchObject({ action: 'retry', retry_count: attempt });
    }
    const third = autopilot(dir, 'fail', '--reason', 'still red', '--json');
    expect(third.code).toBe(3);
    expect(third.json<NextJson>()).toMatchObject({ status: 'failed', retry_count: 3 });
    expect(read(dir, '_docs/_autopilot_state.md')).toContain('status: failed\nsub_step: 0\nretry_count: 3');
    expect(autopilot(dir, 'next').code).toBe(3);
    expect(autopilot(dir, 'done').code).toBe(3);
    expect(autopilot(dir, 'ack', '--json').json<NextJson>()).toMatchObject({ status: 'not_started', retry_count: 0 });
    const runTests = work(dir, { step: 7, name: 'Run Tests' });
    expect(runTests.json).toMatchObject({ step: 8, retry_count: 0 });

    // 8 Security Audit is optional: skipped with a reason. 3 Plan is not.
    expect(next(dir).step).toBe(8);
    expect(autopilot(dir, 'skip', '--reason', 'no network surface', '--json').json<NextJson>()).toMatchObject({ step: 9 });

    // 9 Performance Test, 10 Deploy, then the flow is done.
    expect(work(dir, { step: 9, name: 'Performance Test' }).json.step).toBe(10);
    const deploy = work(dir, { step: 10, name: 'Deploy' });
    expect(deploy.code).toBe(0);
    expect(deploy.json).toMatchObject({ outcome: 'complete', step: 'done' });
    expect(next(dir)).toMatchObject({ outcome: 'complete', step: 'done', message: expect.stringContaining('Tell the person the flow is complete') });
    expect(autopilot(dir, 'status', '--json').json<NextJson>()).toMatchObject({ step: 'done', drift: [] });
    expect(autopilot(dir, 'check').code).toBe(0);

    // The journal tells the story in order.
    const events = journal(dir).map((e) => `${String(e.event)}:${String(e.step)}`);
    expect(events.filter((e) => e.startsWith('step_completed')).map((e) => e.split(':')[1])).toEqual(['1', '2', '2', '3', '5', '6', '7', '9', '10']);
    expect(events).toContain('decision_answered:2');
    expect(events).toContain('boundary_reached:6');
    expect(events).toContain('boundary_answered:6');
    expect(events).toContain('failure_acknowledged:7');
    expect(events).toContain('step_skipped:8');
    expect(events[events.length - 1]).toBe('flow_completed:done');
  });

  it('counts a skipped optional step as settled on the next call (the journal is evidence)', () => {
    const dir = tempRepo();
    for (const rel of GREENFIELD_1_TO_7) {
      write(dir, `_docs/${rel}`);
    }
    // A run the seed's autopilot left at Security Audit (files alone are never walked past the research decision).
    write(dir, '_docs/_autopilot_state.md', 'flow: greenfield\nstep: 8\nname: Security Audit\nstatus: not_started\nsub_step: 0\nretry_count: 0\n');
    expect(next(dir)).toMatchObject({ step: 8 });
    expect(autopilot(dir, 'skip', '--reason', 'internal tool').code).toBe(0);
    expect(autopilot(dir, 'status', '--json').json<NextJson>()).toMatchObject({ step: 9, drift: [] });
  });
});
