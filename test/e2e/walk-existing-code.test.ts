/**
 * The existing-code flow through the real command line: detection by the
 * folder, the conditional step, both session boundaries, and the loop from
 * Deploy back to New Task, where each cycle is judged by its own files.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autopilot, journal, tempRepo, write, writeArtifacts, type NextJson } from '../helpers/cli.js';

function next(dir: string): NextJson {
  const run = autopilot(dir, 'next', '--json');
  expect(run.code, run.stdout + run.stderr).toBe(0);
  return run.json<NextJson>();
}

function work(dir: string, step: number, extra: () => void = () => undefined): { code: number; json: NextJson } {
  const n = next(dir);
  expect(n).toMatchObject({ step, outcome: 'work' });
  writeArtifacts(dir, n.done_when!);
  extra();
  const done = autopilot(dir, 'done', '--json');
  return { code: done.code, json: done.json<NextJson>() };
}

describe('existing-code, through two cycles, through the CLI', () => {
  it('walks the flow and loops', () => {
    const dir = tempRepo();
    write(dir, 'package.json', '{"name":"legacy"}\n');
    write(dir, 'src/index.js', 'export const legacy = true;\n');

    // Detected: the repository has source code and no greenfield problem statement.
    expect(next(dir)).toMatchObject({ flow: 'existing-code', step: 1, name: 'Document', source: 'folder' });
    expect(autopilot(dir, 'done').code).toBe(2);
    writeArtifacts(dir, ['_docs/02_document/architecture.md', '_docs/02_document/components.md']);
    expect(autopilot(dir, 'done').code).toBe(0);

    // 2 Test Spec finds untestable code, so 3 (Code Testability Revision) runs.
    expect(work(dir, 2, () => write(dir, '_docs/02_document/tests/testability_issues.md')).json).toMatchObject({ step: 3 });
    // 4 Decompose Tests: the first session boundary.
    expect(work(dir, 3).json.step).toBe(4);
    const decomposeTests = work(dir, 4);
    expect(decomposeTests.code).toBe(3);
    expect(decomposeTests.json.boundary).toMatchObject({ after: { step: 4 }, next: { step: 5 } });
    // Answered A: this conversation stops (exit 3); the next `next` proceeds.
    expect(autopilot(dir, 'decide', 'A', '--json').json<NextJson>()).toMatchObject({ outcome: 'boundary', boundary: { answered: 'A' } });

    // 5 Implement Tests and 9 Implement run the same skill; the folder tells them apart.
    const implementTests = next(dir);
    expect(implementTests.skill).toMatch(/skills\/implement\/SKILL\.md$/);
    expect(implementTests.done_when).toEqual(['_docs/03_implementation/tests/implementation_report.md']);
    writeArtifacts(dir, implementTests.done_when!);
    expect(autopilot(dir, 'done').code).toBe(0);
    expect(work(dir, 6).json.step).toBe(7);

    // 7 Refactor is optional: skipped once, it stays skipped in later cycles (it is not per cycle).
    expect(next(dir).step).toBe(7);
    expect(autopilot(dir, 'skip', '--reason', 'code is fine').code).toBe(0);

    // 8 New Task opens cycle 1 and is the second boundary.
    const newTask = next(dir);
    expect(newTask).toMatchObject({ step: 8, cycle: 1, done_when: ['_docs/02_tasks/cycle-1/_index.md'] });
    writeArtifacts(dir, newTask.done_when!);
    expect(autopilot(dir, 'done', '--json').json<NextJson>()).toMatchObject({ outcome: 'boundary', step: 9, cycle: 1 });
    // A new conversation crosses it: that counts as A.
    expect(autopilot(dir, '--session', 'second-conversation', 'status', '--json').json()).toMatchObject({ boundary_pending: { after: 8 } });
    expect(autopilot(dir, '--session', 'second-conversation', 'next', '--json').json<NextJson>()).toMatchObject({ step: 9, action: 'start' });
    // Implement walks its task index: the step starts with its first batch.
    expect(journal(dir).at(-3)).toMatchObject({ event: 'boundary_answered', option: 'A', session: 'second-conversation' });
    expect(journal(dir).at(-1)).toMatchObject({ event: 'batch_started', batch: 1, of: 1, tasks: ['01'] });
    expect(autopilot(dir, '--session', 'second-conversation', 'done').code).toBe(2);
    autopilot(dir, '--session', 'second-conversation', 'fail', '--reason', 'hand back to the local session');
    expect(autopilot(dir, 'next', '--take-over').code).toBe(0);

    const implement = next(dir);
    expect(implement.skill).toBe(implementTests.skill);
    expect(implement.done_when).toEqual(['_docs/03_implementation/cycle-1/implementation_report.md']);
    writeArtifacts(dir, implement.done_when!);
    expect(autopilot(dir, 'done').code).toBe(0);
    for (const step of [10, 11]) expect(work(dir, step).code).toBe(0);
    expect(next(dir).step).toBe(12);
    expect(autopilot(dir, 'skip', '--reason', 'no new surface').code).toBe(0);
    expect(work(dir, 13).json.step).toBe(14);

    // 14 Deploy loops back to 8 New Task, cycle 2.
    expect(work(dir, 14).json).toMatchObject({ outcome: 'advanced', step: 8, cycle: 2, status: 'not_started' });
    expect(journal(dir)).toContainEqual(expect.objectContaining({ event: 'cycle_started', step: 8, cycle: 2 }));

    // Cycle 1's files do not prove cycle 2: its New Task needs its own.
    const second = next(dir);
    expect(second).toMatchObject({ step: 8, cycle: 2, done_when: ['_docs/02_tasks/cycle-2/_index.md'] });
    const refused = autopilot(dir, 'done', '--json');
    expect(refused.code).toBe(2);
    expect(refused.json<NextJson & { missing: string[] }>().missing).toEqual(['_docs/02_tasks/cycle-2/_index.md']);
    writeArtifacts(dir, second.done_when!);
    expect(autopilot(dir, 'done').code).toBe(3);
    expect(autopilot(dir, 'decide', 'B').code).toBe(0);
    expect(next(dir)).toMatchObject({ step: 9, cycle: 2, done_when: ['_docs/03_implementation/cycle-2/implementation_report.md'] });

    // Lose the pointer: the journal puts the work back where it was, and the folder agrees.
    rmSync(join(dir, '_docs/_autopilot_state.md'));
    const rebuilt = autopilot(dir, 'status', '--json').json<NextJson>();
    expect(rebuilt).toMatchObject({ flow: 'existing-code', step: 9, cycle: 2, source: 'state' });
    expect(rebuilt.drift.map((d) => d.kind)).toEqual(['rebuilt']);
  });

  it('passes over Code Testability Revision when Test Spec found nothing untestable', () => {
    const dir = tempRepo();
    write(dir, 'go.mod', 'module legacy\n');
    write(dir, 'main.go', 'package main\n');
    expect(next(dir)).toMatchObject({ flow: 'existing-code', step: 1 });
    expect(work(dir, 1).code).toBe(0);
    expect(work(dir, 2).json).toMatchObject({ step: 4, name: 'Decompose Tests' });
  });
});
