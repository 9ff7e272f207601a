/**
 * Each run's progress commits hold its own files only (docs/runs.md,
 * "Commits, worktrees and merging back"): two runs, the default one and a
 * named one, stepping in one work tree with their commits interleaved. Every
 * commit's files belong to its run; a named run's commits carry
 * `Autopilot-Run`, so `git log` follows one run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autopilot, write } from '../helpers/cli.js';
import { git, newRepo, tempDir } from '../helpers/git.js';
import { driveStep, startRun } from '../helpers/run-steps.js';

/** Each progress commit (newest first): its run trailer ('' for the default run's) and the files it holds. */
function progressCommits(dir: string): { run: string; files: string[] }[] {
  const shas = git(dir, 'log', '--format=%H', '--grep=^Autopilot-Flow:').trim().split('\n').filter(Boolean);
  return shas.map((sha) => ({
    run: git(dir, 'log', '-1', '--format=%(trailers:key=Autopilot-Run,valueonly)', sha).trim(),
    files: git(dir, 'show', '--name-only', '--format=', sha).trim().split('\n').filter(Boolean),
  }));
}

/** Whether a committed path belongs to the run: the default run's docs (never `_runs/`), a named run's folder; code belongs to either. */
function belongs(run: string, path: string): boolean {
  if (!path.startsWith('_docs/')) return true;
  return run === '' ? !path.startsWith('_docs/_runs/') : path.startsWith(`_docs/_runs/${run}/`);
}

describe('two runs in one work tree, commits interleaved', () => {
  it("2 runs × 2 steps: 6 progress commits, each holding its own run's files only, `Autopilot-Run` on the named run's", () => {
    const dir = newRepo();
    write(dir, 'README.md', '# project\n');
    startRun(dir, 'default');
    startRun(dir, 'login');
    // Interleaved: each run's step is worked while the other's files lie uncommitted in the same tree.
    for (let round = 0; round < 2; round++) {
      const next = autopilot(dir, 'next', '--json');
      expect(next.code).toBe(0);
      driveStep(dir, 'login');
      // The default run's work was written before the named run's commit was made: it stays out of it.
      driveStep(dir, 'default');
    }
    const commits = progressCommits(dir);
    const strays = commits.flatMap((c) => c.files.filter((f) => !belongs(c.run, f)).map((f) => `${c.run || 'default'}: ${f}`));
    expect(strays).toEqual([]);
    // Each run: Problem completed, Research completed, the decision answered.
    expect(commits.map((c) => c.run).sort()).toEqual(['', '', '', 'login', 'login', 'login']);
    // The named run's commits hold its own folder's files.
    expect(commits.filter((c) => c.run === 'login').every((c) => c.files.some((f) => f.startsWith('_docs/_runs/login/')))).toBe(true);
    // `git log` follows one run by its trailer.
    expect(git(dir, 'log', '--oneline', '--grep=^Autopilot-Run: login$').trim().split('\n')).toHaveLength(3);
    expect(git(dir, 'status', '--porcelain').trim()).toBe('');
  });
});

describe("each run's step snapshot is its own", () => {
  it('2 runs start a step in one work tree, then git gc --prune=now: both commits hold the code of their step, 0 narrower', () => {
    const dir = newRepo();
    write(dir, 'README.md', '# project\n');
    startRun(dir, 'default');
    startRun(dir, 'login');
    // A person's note, uncommitted: each step's snapshot is a tree of its own, held by nothing but its ref.
    write(dir, 'notes/person.md', 'mine\n');
    expect(autopilot(dir, 'next').code).toBe(0);
    expect(autopilot(dir, 'next', '--run', 'login').code).toBe(0);
    write(dir, 'src/default-work.js', 'export const work = 1;\n');
    git(dir, 'gc', '-q', '--prune=now');
    driveStep(dir, 'default');
    const held = git(dir, 'show', '--name-only', '--format=', 'HEAD').split('\n');
    expect(held).toContain('src/default-work.js');
    write(dir, 'src/login-work.js', 'export const login = 1;\n');
    git(dir, 'gc', '-q', '--prune=now');
    driveStep(dir, 'login');
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD').split('\n')).toContain('src/login-work.js');
    // Each snapshot ref released with its commit; the person's note in no commit.
    expect(git(dir, 'for-each-ref', 'refs/autopilot/').trim()).toBe('');
    expect(git(dir, 'log', '--format=', '--name-only').split('\n')).not.toContain('notes/person.md');
  });
});

describe('a code step needs a work tree of its own', () => {
  it('Implement starting beside another run mid-step with uncommitted code: exit 2, 0 bytes written, the worktree line works; a document step beside it goes on', () => {
    const dir = newRepo(join(tempDir(), 'project'));
    write(dir, 'README.md', '# project\n');
    startRun(dir, 'default');
    startRun(dir, 'search');
    startRun(dir, 'login');
    // Problem, Research (and its decision), Plan, Decompose (and its boundary): the next step is Implement.
    for (let step = 0; step < 4; step++) driveStep(dir, 'search');
    // The default run is mid-step, its code not committed yet.
    expect(autopilot(dir, 'next').code).toBe(0);
    write(dir, 'src/default-work.js', 'export const work = 1;\n');
    const files = ['_docs/_runs/search/_autopilot/journal.jsonl', '_docs/_runs/search/_autopilot_state.md'];
    const before = files.map((f) => readFileSync(join(dir, f), 'utf8'));
    const refused = autopilot(dir, 'next', '--run', 'search');
    expect(refused.code, refused.stdout + refused.stderr).toBe(2);
    const said = refused.stdout + refused.stderr;
    expect(said).toContain('the default run (step 1 Problem)');
    expect(said).toContain('src/default-work.js');
    expect(said).toContain('git worktree add ../project-search -b autopilot/search');
    expect(said).toContain('cd ../project-search && autopilot --run search next');
    expect(files.map((f) => readFileSync(join(dir, f), 'utf8'))).toEqual(before);
    // A document step may share the work tree.
    expect(autopilot(dir, 'next', '--run', 'login').code).toBe(0);
    // The line given works: the run goes on in its own work tree.
    git(dir, 'worktree', 'add', '-q', '../project-search', '-b', 'autopilot/search');
    const there = autopilot(join(dir, '..', 'project-search'), 'next', '--run', 'search', '--json');
    expect(there.code, there.stdout).toBe(0);
    expect(there.json<{ step: number; name: string; status: string }>()).toMatchObject({ step: 6, name: 'Implement', status: 'in_progress' });
  });

  it('a document step starting beside another run mid-Implement with uncommitted code: exit 2, its journal 0 bytes longer', () => {
    const dir = newRepo(join(tempDir(), 'project'));
    write(dir, 'README.md', '# project\n');
    startRun(dir, 'search');
    startRun(dir, 'login');
    for (let step = 0; step < 4; step++) driveStep(dir, 'search');
    // Implement starts: no other run is mid-step.
    expect(autopilot(dir, 'next', '--run', 'search').code).toBe(0);
    write(dir, 'src/search.js', 'export const search = 1;\n');
    const journal = join(dir, '_docs/_runs/login/_autopilot/journal.jsonl');
    const before = readFileSync(journal, 'utf8');
    const refused = autopilot(dir, 'next', '--run', 'login');
    expect(refused.code, refused.stdout + refused.stderr).toBe(2);
    expect(refused.stdout + refused.stderr).toContain("step 1 Problem shares the work tree with another run's code step");
    expect(refused.stdout + refused.stderr).toContain('run search (step 6 Implement)');
    expect(refused.stdout + refused.stderr).toContain('git worktree add ../project-login -b autopilot/login');
    expect(readFileSync(journal, 'utf8')).toBe(before);
  });
});
