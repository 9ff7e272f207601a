/**
 * The git runner's two limits (src/limits.ts, docs/git.md "Costs"): how many
 * git processes run at once, and how much of one command's output it
 * collects. Real git in real repositories; the processes counted by
 * themselves, in a folder they all write to.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitCommandError, GitOutputTooLarge } from '../../src/git/errors.js';
import { converseWithGit, runGit } from '../../src/git/run.js';
import { slotsInUse } from '../../src/git/slots.js';
import { GIT_OUTPUT_MAX_CHARS, GIT_PROCESSES_MAX } from '../../src/limits.js';
import { commit, handleFor, newRepo } from '../helpers/git.js';

/** A git alias that notes how many of its kind run beside it (itself included), then stays 300 ms. */
const PROBE = 'alias.probe=!mkdir -p running && touch running/$$ && ls running | wc -l >> counts && sleep 0.3 && rm running/$$';

describe('the git runner', () => {
  it(`12 git commands started at once: at most ${GIT_PROCESSES_MAX} run together, all 12 answer, every slot given back`, async () => {
    const repo = newRepo();
    commit(repo, 'first');
    const handle = await handleFor(repo);
    await Promise.all(Array.from({ length: 12 }, () => runGit(handle, ['-c', PROBE, 'probe'])));
    const counts = readFileSync(join(repo, 'counts'), 'utf8').trim().split('\n').map(Number);
    expect(counts).toHaveLength(12);
    expect(Math.max(...counts)).toBeLessThanOrEqual(GIT_PROCESSES_MAX);
    expect(Math.max(...counts)).toBeGreaterThan(1);
    expect(slotsInUse()).toEqual({ running: 0, waiting: 0 });
  });

  it('a command that prints past its limit is stopped and fails naming it (5,000 characters against 1,000); one under the default limit answers whole', async () => {
    const repo = newRepo();
    commit(repo, 'first', { 'big.txt': 'x'.repeat(5000) });
    const handle = await handleFor(repo);
    const error = await runGit(handle, ['cat-file', '-p', 'HEAD:big.txt'], { maxOutputChars: 1000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GitOutputTooLarge);
    expect(error).toBeInstanceOf(GitCommandError);
    expect((error as Error).message).toMatch(/^git cat-file printed more than 1,000 characters, more than autopilot reads from one git command/);
    expect(await runGit(handle, ['cat-file', '-p', 'HEAD:big.txt'])).toHaveLength(5000);
    expect(GIT_OUTPUT_MAX_CHARS).toBeGreaterThanOrEqual(64 * 1024 * 1024);
    expect(slotsInUse()).toEqual({ running: 0, waiting: 0 });
  });

  it(`git that cannot start (not on PATH), 10 times over: each fails, and gives its slot back (then git runs)`, async () => {
    const repo = newRepo();
    const handle = await handleFor(repo);
    const nowhere = { top: handle.top, env: { ...handle.env, PATH: join(repo, 'no-bin') } };
    const failures = await Promise.all(Array.from({ length: 10 }, () => runGit(nowhere, ['status']).catch((e: unknown) => e)));
    expect(failures.filter((e) => e instanceof GitCommandError && e.exitCode < 0)).toHaveLength(10);
    expect(slotsInUse()).toEqual({ running: 0, waiting: 0 });
    expect(await runGit(handle, ['rev-parse', '--is-inside-work-tree'])).toBe('true\n');
  });

  it(`${GIT_PROCESSES_MAX + 2} branches locked side by side (update-ref --stdin open), each then running a command: all ${GIT_PROCESSES_MAX + 2} commands answer, no lock waits on another`, async () => {
    const repo = newRepo();
    commit(repo, 'first');
    const handle = await handleFor(repo);
    const open = GIT_PROCESSES_MAX + 2;
    const held = await Promise.all(
      Array.from({ length: open }, async (_, k) => {
        const git = converseWithGit(handle, ['update-ref', '--stdin']);
        await git.say(`start\nupdate refs/heads/lock-${k} HEAD\nprepare\n`, 2);
        // The branch locked: what a progress commit does next (its index written) needs a command.
        const answer = await runGit(handle, ['rev-parse', '--is-inside-work-tree']);
        await git.end('commit\n');
        return answer;
      }),
    );
    expect(held).toEqual(Array.from({ length: open }, () => 'true\n'));
    expect(slotsInUse()).toEqual({ running: 0, waiting: 0 });
  });
});
