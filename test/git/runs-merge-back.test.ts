/**
 * Named runs in worktrees of their own, merged back with nothing lost
 * (docs/runs.md, "Commits, worktrees and merging back"): a main repository
 * with the default run, two named runs each driven in its own linked
 * worktree on its own branch, then merged back into main by a merge, a
 * squash and a rebase. After each, `status --run` on main shows every run
 * where its worktree left it, and `check` proves every run's completed steps
 * by content (exit 0); a merge that drops one step's file fails `check`
 * (exit 2) naming the run, the step and the file.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autopilot, write } from '../helpers/cli.js';
import { git, newRepo, tempDir } from '../helpers/git.js';
import { driveStep, runArgs, startRun } from '../helpers/run-steps.js';

const RUNS = ['login', 'search'] as const;

interface Fixture {
  main: string;
  /** Each named run's worktree. */
  trees: Record<string, string>;
  /** Each run's position where it was driven: `flow step name status`. */
  positions: Record<string, string>;
}

/** A run's position as `status --json` gives it. */
function position(dir: string, run: string): string {
  const status = autopilot(dir, 'status', '--json', ...runArgs(run));
  expect(status.code, status.stdout + status.stderr).toBe(0);
  const s = status.json<{ flow: string; step: number; name: string; status: string }>();
  return `${s.flow} ${s.step} ${s.name} ${s.status}`;
}

/**
 * Main with the default run at step 2; each named run started on main, then
 * driven through Problem and Research (and the decision after it) in its own
 * worktree on `autopilot/<run>`, while main's default run goes on meanwhile.
 */
function fixture(): Fixture {
  const main = newRepo(join(tempDir(), 'project'));
  write(main, 'README.md', '# project\n');
  startRun(main, 'default');
  driveStep(main, 'default');
  for (const run of RUNS) startRun(main, run);
  const trees: Record<string, string> = {};
  const positions: Record<string, string> = {};
  for (const run of RUNS) {
    trees[run] = join(main, '..', `project-${run}`);
    git(main, 'worktree', 'add', '-q', trees[run], '-b', `autopilot/${run}`);
    driveStep(trees[run], run);
    driveStep(trees[run], run);
    positions[run] = position(trees[run], run);
  }
  // Main moves on too, so the merges are real merges.
  driveStep(main, 'default');
  positions.default = position(main, 'default');
  return { main, trees, positions };
}

/** Every run's position on main, and `check` there. */
function onMain(f: Fixture): { positions: Record<string, string>; check: ReturnType<typeof autopilot> } {
  const positions = Object.fromEntries(['default', ...RUNS].map((run) => [run, position(f.main, run)]));
  return { positions, check: autopilot(f.main, 'check', '--json') };
}

type CheckJson = { ok: boolean; problems: { message: string; file?: string }[]; runs: { run: string; proven: number; lost: unknown[]; changed: unknown[] }[] };

const styles: Record<string, (f: Fixture, run: string) => void> = {
  merge: (f, run) => git(f.main, 'merge', '-q', '--no-ff', '-m', `merge ${run}`, `autopilot/${run}`),
  squash: (f, run) => {
    git(f.main, 'merge', '-q', '--squash', `autopilot/${run}`);
    git(f.main, 'commit', '-qm', `${run}, squashed`);
  },
  rebase: (f, run) => {
    git(f.trees[run]!, 'rebase', '-q', 'main');
    git(f.main, 'merge', '-q', '--ff-only', `autopilot/${run}`);
  },
};

describe('two runs in worktrees of their own, merged back into main', () => {
  it.each(Object.keys(styles))(
    '%s × 2 runs: 3 positions kept on main (default, login, search), check clean with every completed step proven',
    (style) => {
      const f = fixture();
      for (const run of RUNS) styles[style]!(f, run);
      const { positions, check } = onMain(f);
      expect(positions).toEqual(f.positions);
      expect(check.code, check.stdout).toBe(0);
      const proven = Object.fromEntries(check.json<CheckJson>().runs.map((r) => [r.run, r.proven]));
      // The default run: Problem and Research; each named run: Problem and Research.
      expect(proven).toEqual({ default: 2, login: 2, search: 2 });
    },
    120_000,
  );

  it('a merge that drops one step file: check exit 2, 1 problem naming run login, step 1 Problem and the file; 1 file rewritten by hand named, not failed', () => {
    const f = fixture();
    git(f.main, 'merge', '-q', '--no-ff', '--no-commit', 'autopilot/login');
    // Resolved by deleting a file the run's Problem step wrote.
    git(f.main, 'rm', '-q', '-f', '_docs/_runs/login/00_problem/problem.md');
    git(f.main, 'commit', '-qm', 'merge login, one file dropped');
    styles.merge!(f, 'search');
    // A person rewrites a file of run search's Problem step afterwards: named, not failed.
    write(f.main, '_docs/_runs/search/00_problem/problem.md', '# Problem\n\nRewritten by hand.\n');
    const { positions, check } = onMain(f);
    // The run whose file went: its pointer no longer stands on the evidence (rule 1), so status shows it back at Problem.
    expect(positions).toEqual({ ...f.positions, login: 'greenfield 1 Problem in_progress' });
    expect(check.code).toBe(2);
    const json = check.json<CheckJson>();
    const lost = json.problems.filter((p) => p.message.includes('lost its evidence'));
    expect(lost).toHaveLength(1);
    expect(lost[0]!.message).toContain('run login: step 1 Problem');
    expect(lost[0]!.message).toContain('_docs/_runs/login/00_problem/problem.md (missing)');
    const search = json.runs.find((r) => r.run === 'search')!;
    expect(search.lost).toEqual([]);
    expect(search.changed).toEqual([{ step: 1, name: 'Problem', cycle: 1, files: [{ path: '_docs/_runs/search/00_problem/problem.md', why: 'changed' }] }]);
    const text = autopilot(f.main, 'check').stdout;
    expect(text).toContain('run login: step 1 Problem is completed on record');
    expect(text).toContain("Note: run search: step 1 Problem's _docs/_runs/search/00_problem/problem.md holds other bytes than the run recorded");
  }, 120_000);
});
