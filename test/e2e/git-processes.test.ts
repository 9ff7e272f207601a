/**
 * What a step command costs in git processes (docs/performance.md, "What a
 * progress commit costs"): counted by a `git` first on PATH that logs each
 * command and hands it to the real one. A count, never a time: the ratios
 * are the bench's. The repository is the bench's: greenfield, `verify: none`,
 * progress commits on, the run begun after the person's own first commit.
 */
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autopilot, autopilotWith, write } from '../helpers/cli.js';
import { git, newRepo, tempDir } from '../helpers/git.js';

/** A folder whose `git` logs its first word to `log`, then runs the real git. */
function countingGit(): { path: string; log: string } {
  const bin = tempDir();
  const log = join(bin, 'git.log');
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$*" >> ${JSON.stringify(log)}\nexec ${JSON.stringify(real)} "$@"\n`);
  chmodSync(join(bin, 'git'), 0o755);
  return { path: `${bin}:${process.env.PATH}`, log };
}

/** The git commands one autopilot command started (their arguments, one a line). */
function gitRunBy(counting: { path: string; log: string }, dir: string, ...args: string[]): string[] {
  rmSync(counting.log, { force: true });
  const run = autopilotWith({ PATH: counting.path }, dir, ...args);
  expect(run.code, run.stderr + run.stdout).toBe(0);
  return existsSync(counting.log) ? readFileSync(counting.log, 'utf8').trim().split('\n') : [];
}

describe('git processes a step command starts', () => {
  it('done with its commit: at most 9 (7 of them the commit), no `git version`; the next that starts a step: at most 4; once a commit vouches for the journal, a next that resumes: 0; status: 0', () => {
    const dir = newRepo();
    write(dir, 'README.md', '# A project\n');
    write(dir, '.autopilot/config.yml', 'verify: none\n');
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'Set up autopilot');
    const counting = countingGit();
    // The run's first step command also checks HEAD's journal and the index once: set up, as in the bench.
    expect(autopilot(dir, 'next').code).toBe(0);
    // Before the run's first progress commit, nothing vouches for the journal but HEAD's copy: the cut check's 2.
    expect(gitRunBy(counting, dir, 'next').length).toBeLessThanOrEqual(2);
    expect(gitRunBy(counting, dir, 'status', '--json')).toEqual([]);
    write(dir, '_docs/00_problem/problem.md');
    write(dir, '_docs/00_problem/acceptance_criteria.md');
    const done = gitRunBy(counting, dir, 'done');
    expect(git(dir, 'log', '-1', '--format=%s').trim()).toBe('autopilot: greenfield 1/10 Problem completed');
    expect(done.length, done.join('\n')).toBeLessThanOrEqual(9);
    expect(done.filter((line) => line.startsWith('version'))).toEqual([]);
    const starts = gitRunBy(counting, dir, 'next');
    expect(starts.length, starts.join('\n')).toBeLessThanOrEqual(4);
    expect(gitRunBy(counting, dir, 'next')).toEqual([]);
  });
});
