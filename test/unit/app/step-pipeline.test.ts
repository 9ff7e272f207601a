/**
 * Issue 31 point 1: one step command crosses the step pipeline's stages in
 * the order of one list (`STEP_STAGES`), each once, never back; and the plan
 * is final once planned: a stage after `plan` that tried to change it fails.
 * Real temporary folders and a real git repository; the stages are recorded
 * by the runner's observer, no timing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Context } from '../../../src/app/transaction/context.js';
import { runStep } from '../../../src/app/step/run-step.js';
import { STEP_STAGES } from '../../../src/app/step/stages.js';
import type { StepRun } from '../../../src/app/step/run.js';
import { tempRepo, write } from '../../helpers/cli.js';
import { commit, git, newRepo } from '../../helpers/git.js';

const ctx = (dir: string): Context => ({ repo: { dir }, session: 'unit', now: () => new Date() });
const ORDER = ['gather', 'decide', 'code', 'attempt', 'plan', 'write', 'commit', 'answer'];
const journal = (dir: string) => readFileSync(join(dir, '_docs/_autopilot/journal.jsonl'), 'utf8');

/** The stages one command ran, in order, as the runner's observer heard them. */
async function stagesOf(dir: string, event: Parameters<typeof runStep>[1]['event']): Promise<{ stages: string[]; exit: number; sha?: string }> {
  const stages: string[] = [];
  const answer = await runStep(ctx(dir), { event }, (stage) => stages.push(stage));
  return { stages, exit: answer.exit, sha: answer.written.progressCommit?.sha };
}

/** Each stage once, and each after the one before it in the list: never back. */
function forwardOnly(stages: string[]): boolean {
  const at = stages.map((s) => ORDER.indexOf(s));
  return new Set(stages).size === stages.length && at.every((i, n) => i >= 0 && (n === 0 || i > at[n - 1]!));
}

describe('the step pipeline', () => {
  it('is one list of 8 stages: gather, decide, code, attempt, plan, write, commit, answer', () => {
    expect(STEP_STAGES.map((s) => s.name)).toEqual(ORDER);
  });

  it('a `next` and a `done` each cross the 8 stages in order, once each, never back (3 commands, 24 stages seen, 0 out of order)', async () => {
    const dir = tempRepo();
    const runs = [await stagesOf(dir, { type: 'next' })];
    write(dir, '_docs/00_problem/problem.md');
    write(dir, '_docs/00_problem/acceptance_criteria.md');
    runs.push(await stagesOf(dir, { type: 'done' }), await stagesOf(dir, { type: 'next' }));
    for (const run of runs) {
      expect(run.stages).toEqual(ORDER);
      expect(forwardOnly(run.stages)).toBe(true);
      expect(run.exit).toBe(0);
    }
    expect(journal(dir)).toContain('"event":"step_completed"');
  });

  it('a `done` that makes its progress commit crosses the same 8 stages: the commit is made in `commit`, after `write`', async () => {
    const dir = newRepo();
    commit(dir, 'first', { 'README.md': 'a project\n' });
    await stagesOf(dir, { type: 'next' });
    write(dir, '_docs/00_problem/problem.md');
    write(dir, '_docs/00_problem/acceptance_criteria.md');
    const done = await stagesOf(dir, { type: 'done' });
    expect(done.stages).toEqual(ORDER);
    expect(done.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(done.sha);
  });

  it('the plan is final once planned: 3 changes tried after it, 3 refused, and the plan written is the plan made', async () => {
    const dir = tempRepo();
    await runStep(ctx(dir), { event: { type: 'next' } });
    const before = journal(dir);
    const tries: ((run: StepRun) => void)[] = [
      (run) => (run.plan!.step.notices as string[]).push('a notice added after the plan'),
      (run) => (run.plan!.decision.plan.entries as unknown[]).push({}),
      (run) => ((run.plan!.decision as { plan: unknown }).plan = { entries: [] }),
    ];
    let refused = 0;
    const observe = (stage: string, run: StepRun) => {
      if (stage !== 'write') return;
      for (const tryIt of tries) {
        try {
          tryIt(run);
        } catch (error) {
          if (error instanceof TypeError) refused += 1;
        }
      }
    };
    await runStep(ctx(dir), { event: { type: 'next' } }, observe);
    expect(refused).toBe(3);
    // The plan written is the plan made: a `next` resuming the step in progress journals nothing.
    expect(journal(dir)).toBe(before);
  });
});
