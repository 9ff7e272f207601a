/**
 * Rule 11 through the built CLI in real git repositories: two branches
 * advance one run from a common commit, `git merge` joins them (the journal
 * with the union driver `init` sets in .gitattributes), and the engine sees
 * the fork in the journal's chain: sides that agree are merged and said once
 * (`journal_merged`), sides that disagree stop every step command (exit 3)
 * until a person keeps one. Each repository has its own identity.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autopilot, journal, read, tempRepo, write, type NextJson } from '../helpers/cli.js';
import { git, gitFails, newRepo } from '../helpers/git.js';

const POINTER = '_docs/_autopilot_state.md';
/** Each test runs a few dozen CLI calls and git commands: minutes on a loaded machine. */
const SLOW = { timeout: 180_000 };
const JOURNAL = '_docs/_autopilot/journal.jsonl';

interface ForkJson extends NextJson {
  fork?: { reasons: string[]; sides: Record<'A' | 'B', { position: { step: number; retry_count: number }; did: string[] }> };
}

/** A repository with a greenfield run begun, step 1 started and committed, and a branch `other` at that commit. */
function project(): string {
  const dir = newRepo(tempRepo());
  write(dir, 'README.md', '# project\n');
  // The branches are committed by hand, as a session's end would, and the journals' lines counted: progress commits
  // (on by default) would add their own commits and `progress_commit_owed` lines. They are tested in progress-commits.test.ts.
  write(dir, '.autopilot/config.yml', 'commit: false\n');
  expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
  expect(read(dir, '.gitattributes')).toContain('journal.jsonl merge=union');
  expect(autopilot(dir, 'next').code).toBe(0);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'step 1 started');
  git(dir, 'branch', 'other');
  return dir;
}

/** On `branch`: the commands, then a commit of everything (as an agent's session ends). */
function onBranch(dir: string, branch: string, commands: string[][], files: string[] = []): void {
  git(dir, 'checkout', '-q', branch);
  for (const rel of files) write(dir, rel);
  for (const args of commands) expect(autopilot(dir, ...args).code, args.join(' ')).toBe(0);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', `${branch}: ${commands.map((c) => c[0]).join(', ')}`);
}

const PROBLEM = ['_docs/00_problem/problem.md', '_docs/00_problem/acceptance_criteria.md'];

/** `main` and `other` advanced by the two command lists (main's first), then the branch named `into` takes the other in. */
function merged(a: string[][], b: string[][], into: 'main' | 'other', files: { a?: string[]; b?: string[] } = {}): string {
  const dir = project();
  onBranch(dir, 'main', a, files.a);
  onBranch(dir, 'other', b, files.b);
  git(dir, 'checkout', '-q', into);
  const code = gitFails(dir, 'merge', '--no-edit', '-q', into === 'main' ? 'other' : 'main');
  if (code !== 0) {
    // The pointer files conflict (the journal never does: union). A person finishing the merge keeps their own pointer.
    expect(git(dir, 'diff', '--name-only', '--diff-filter=U').trim()).toBe(POINTER);
    git(dir, 'checkout', '--ours', '--', POINTER);
    git(dir, 'add', POINTER);
    git(dir, 'commit', '-q', '--no-edit');
  }
  return dir;
}

const seqs = (dir: string) => journal(dir).map((e) => e.seq as number);
/** The journal index the end carries was derived after the merge was settled (from both sides), not one side's copy. */
const carriedAfterMerge = (dir: string) => {
  const entries = journal(dir);
  const merged = entries.findIndex((e) => e.event === 'journal_merged');
  return merged >= 0 && entries.findLastIndex((e) => e.journal_index !== undefined) >= merged;
};
const status = (dir: string) => autopilot(dir, 'status', '--json').json<ForkJson>();

describe('a merge of two branches that agree', () => {
  for (const into of ['main', 'other'] as const) {
    it(`both completed step 1 (merged into ${into}): merged at step 2, said once with a journal_merged line, numbers unique from then on`, SLOW, () => {
      const done = [['done']];
      const dir = merged(done, done, into, { a: PROBLEM, b: PROBLEM });
      const before = status(dir);
      expect(before).toMatchObject({ step: 2, status: 'not_started', retry_count: 0 });
      expect(before.drift.map((d) => d.kind)).toEqual(['journal-fork']);
      expect(before.drift[0]!.message).toContain('both sides recorded the same outcomes');

      const next = autopilot(dir, 'next', '--json');
      expect(next.code).toBe(0);
      expect(next.json<NextJson>()).toMatchObject({ step: 2, status: 'in_progress', outcome: 'work' });
      const merges = journal(dir).filter((e) => e.event === 'journal_merged');
      expect(merges).toEqual([expect.objectContaining({ settled: 'agreed', step: 2, sides: { A: { from: 3, to: 3 }, B: { from: 3, to: 3 } } })]);
      // 1 2 3 3 (the two sides), then on from the highest.
      expect(seqs(dir)).toEqual([1, 2, 3, 3, 4, 5]);
      expect(carriedAfterMerge(dir)).toBe(true);
      expect(status(dir).drift).toEqual([]);
      const check = autopilot(dir, 'check');
      expect(check.code, check.stdout).toBe(0);
      expect(autopilot(dir, 'substep', '1 — Sources').code).toBe(0);
      expect(journal(dir).filter((e) => e.event === 'journal_merged')).toHaveLength(1);
    });
  }

  it('one side recorded only sub-steps, the other completed the step: the completing side’s position, either order', SLOW, () => {
    for (const into of ['main', 'other'] as const) {
      const dir = merged([['substep', '1 — Interview']], [['done']], into, { b: PROBLEM });
      expect(status(dir)).toMatchObject({ step: 2, status: 'not_started', retry_count: 0 });
      expect(autopilot(dir, 'next').code).toBe(0);
      expect(journal(dir).filter((e) => e.event === 'journal_merged')).toEqual([expect.objectContaining({ settled: 'agreed' })]);
      expect(autopilot(dir, 'check').code).toBe(0);
    }
  });

  it('a fast-forward merge is no fork: nothing said, nothing journaled', SLOW, () => {
    const dir = project();
    onBranch(dir, 'other', [['done'], ['next']], PROBLEM);
    git(dir, 'checkout', '-q', 'main');
    git(dir, 'merge', '-q', '--ff-only', 'other');
    expect(status(dir)).toMatchObject({ step: 2, status: 'in_progress', drift: [] });
    expect(autopilot(dir, 'check').code).toBe(0);
    expect(autopilot(dir, 'substep', '1 — Sources').code).toBe(0);
    expect(journal(dir).some((e) => e.event === 'journal_merged')).toBe(false);
    expect(seqs(dir)).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('a merge of two branches that disagree', () => {
  for (const [into, keep] of [
    ['main', 'A'],
    ['other', 'B'],
  ] as const) {
    it(`step 1 completed on main, failed on other (merged into ${into}, side ${keep} kept): every step command stops until a person keeps a side`, SLOW, () => {
      const dir = merged([['done']], [['fail', '--reason', 'tests red']], into, { a: PROBLEM });
      // Side A is the branch merged into (its lines first), side B the one merged in.
      const mainSide = into === 'main' ? 'A' : 'B';
      const otherSide = mainSide === 'A' ? 'B' : 'A';

      const shown = status(dir);
      expect(shown).toMatchObject({ step: 1, status: 'in_progress', retry_count: 0 });
      expect(shown.drift.map((d) => d.kind)).toEqual(['journal-fork']);
      expect(shown.drift[0]!.message).toContain('autopilot decide A|B');
      expect(autopilot(dir, 'status').stdout).toContain('the journal forked');

      const journalBefore = read(dir, JOURNAL);
      for (const args of [['next'], ['done'], ['fail', '--reason', 'x'], ['skip', '--reason', 'x'], ['substep', '2 — Write'], ['ack']]) {
        const run = autopilot(dir, ...args, '--json');
        expect(run.code, args.join(' ')).toBe(3);
        const answer = run.json<ForkJson>();
        expect(answer.outcome).toBe('fork');
        expect(answer.fork!.sides[mainSide]).toMatchObject({ position: { step: 2, retry_count: 0 }, did: ['completed step 1 (Problem)'] });
        expect(answer.fork!.sides[otherSide]).toMatchObject({ position: { step: 1, retry_count: 1 } });
        expect(answer.fork!.sides[otherSide].did[0]).toContain('tests red');
        expect(answer.decision!.options.map((o) => o.option)).toEqual(['A', 'B']);
      }
      const text = autopilot(dir, 'next');
      expect(text.stdout).toContain(`${mainSide}: step 2 (Research)`);
      expect(text.stdout).toContain(`${otherSide}: step 1 (Problem), not_started, retry 1`);
      // A stop writes nothing.
      expect(read(dir, JOURNAL)).toBe(journalBefore);

      const check = autopilot(dir, 'check', '--json');
      expect(check.code).toBe(2);
      expect(check.stdout).toContain('no `journal_merged` settles them');
      expect(autopilot(dir, 'log').stdout).toMatch(/another branch's events follow, forked after line 2 \(not settled\)/);
      expect(autopilot(dir, 'log', '--json').json<{ seams: unknown }>().seams).toEqual([{ line: 4, forked_after: 2 }]);

      expect(autopilot(dir, 'decide', 'C').code).toBe(2);
      const decided = autopilot(dir, 'decide', keep);
      expect(decided.code, decided.stdout + decided.stderr).toBe(0);
      const merges = journal(dir).filter((e) => e.event === 'journal_merged');
      expect(merges).toEqual([expect.objectContaining({ settled: 'kept', kept: keep, seq: 4 })]);
      expect(carriedAfterMerge(dir)).toBe(true);
      // Keeping main's side: step 2, no retry. Keeping other's: step 1, the failure it had.
      const kept = keep === mainSide ? { step: 2, retry_count: 0 } : { step: 1, retry_count: 1 };
      expect(status(dir)).toMatchObject({ ...kept, drift: [] });
      expect(read(dir, POINTER)).toContain(`step: ${kept.step}\n`);
      expect(autopilot(dir, 'check').code).toBe(0);
      expect(autopilot(dir, 'log').stdout).toMatch(/forked after line 2 \(settled at line 5\)/);
      expect(autopilot(dir, 'log', '--json').json<{ seams: unknown }>().seams).toEqual([{ line: 4, forked_after: 2, settled_at: 5 }]);
      const next = autopilot(dir, 'next', '--json');
      expect(next.code).toBe(0);
      expect(next.json<NextJson>()).toMatchObject({ step: kept.step, status: 'in_progress', retry_count: kept.retry_count });
      expect(seqs(dir).slice(-2)).toEqual([4, 5]);
    });
  }

  it('the pointer left in conflict markers: set aside, the fork decides, and the markers are kept in a backup when it is rewritten', SLOW, () => {
    const dir = project();
    onBranch(dir, 'main', [['done']], PROBLEM);
    onBranch(dir, 'other', [['fail', '--reason', 'tests red']]);
    git(dir, 'checkout', '-q', 'main');
    expect(gitFails(dir, 'merge', '--no-edit', '-q', 'other')).not.toBe(0);
    expect(read(dir, POINTER)).toContain('<<<<<<<');
    const next = autopilot(dir, 'next', '--json');
    expect(next.code).toBe(3);
    expect(next.json<NextJson>().outcome).toBe('fork');
    const decided = autopilot(dir, 'decide', 'B');
    expect(decided.code).toBe(0);
    expect(decided.stdout).toMatch(/the unreadable pointer was kept as _docs\/_autopilot_state\.broken-/);
    expect(status(dir)).toMatchObject({ step: 1, retry_count: 1, drift: [] });
  });
});

describe('a journal from an older autopilot (no `prev`)', () => {
  it('still reads: status, next, log and check work, its merge is named by check, and new lines chain on', SLOW, () => {
    const dir = project();
    const strip = () => {
      const lines = read(dir, JOURNAL).replace(/^\{"prev":"[0-9a-f]{8}",/gm, '{');
      writeFileSync(join(dir, JOURNAL), lines);
    };
    strip();
    expect(read(dir, JOURNAL)).not.toContain('"prev"');
    expect(status(dir)).toMatchObject({ step: 1, status: 'in_progress', drift: [] });
    expect(autopilot(dir, 'check').code).toBe(0);
    expect(autopilot(dir, 'log').code).toBe(0);
    write(dir, PROBLEM[0]!);
    write(dir, PROBLEM[1]!);
    expect(autopilot(dir, 'done').code).toBe(0);
    const [, , third] = read(dir, JOURNAL).trimEnd().split('\n');
    expect(third).toMatch(/^\{"prev":"[0-9a-f]{8}","seq":3,/);
    expect(status(dir)).toMatchObject({ step: 2, drift: [] });
    expect(autopilot(dir, 'check').code).toBe(0);
    expect(autopilot(dir, 'log').stdout).toContain('step_completed');

    // Two older autopilots' branches merged: no chain to see the fork by; check names the repeated numbers.
    const old = project();
    onBranch(old, 'main', [['substep', '1 — Interview']]);
    onBranch(old, 'other', [['substep', '2 — Write']]);
    for (const branch of ['main', 'other']) {
      git(old, 'checkout', '-q', branch);
      writeFileSync(join(old, JOURNAL), read(old, JOURNAL).replace(/^\{"prev":"[0-9a-f]{8}",/gm, '{'));
      git(old, 'commit', '-qam', 'as an older autopilot wrote it');
    }
    git(old, 'checkout', '-q', 'main');
    gitFails(old, 'merge', '--no-edit', '-q', 'other');
    git(old, 'checkout', '--ours', '--', POINTER);
    git(old, 'add', '-A');
    git(old, 'commit', '-q', '--no-edit');
    expect(seqs(old)).toEqual([1, 2, 3, 3]);
    expect(autopilot(old, 'status').code).toBe(0);
    const check = autopilot(old, 'check');
    expect(check.code).toBe(2);
    expect(check.stdout).toContain('sequence numbers repeat or go back');
  });
});
