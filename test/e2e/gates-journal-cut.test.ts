/**
 * Issue 29, the gap its cheating twin found: cutting the journal back to an
 * older copy revives a failed step. Through the built command line on real
 * git repositories: a journal that lost events holds every writing command
 * (exit 2, naming the cut and the way back) until the committed journal is
 * restored or a person adopts the position; the failed step stays failed and
 * nothing the shortcut asked for is journaled.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autopilot, editPointer, journal, namingCriteria, read, write, type NextJson } from '../helpers/cli.js';
import { committedRepo, git, newRepo } from '../helpers/git.js';
import { hasResult, stepEvidence, testProject } from '../helpers/templates.js';

const POINTER = '_docs/_autopilot_state.md';
const JOURNAL = '_docs/_autopilot/journal.jsonl';

const repo = committedRepo;

const status = (dir: string) => autopilot(dir, 'status', '--json').json<NextJson>();
const completed = (dir: string) => journal(dir).filter((e) => e.event === 'step_completed' && e.step === 1).length;

/** `next` starts Problem and its files are written as its skill says; the journal is copied aside; three `fail`s leave it failed. */
function failedWithCopy(dir: string): string {
  const next = autopilot(dir, 'next', '--json');
  expect(next.code, next.stdout + next.stderr).toBe(0);
  const json = next.json<NextJson>();
  const files = stepEvidence(json.done_when!);
  for (const [file, text] of Object.entries(files)) write(dir, file, namingCriteria(dir, file, text));
  if (Object.values(files).some(hasResult)) testProject(dir);
  const copy = read(dir, JOURNAL);
  for (const n of [1, 2, 3]) {
    if (n > 1) expect(autopilot(dir, 'next').code).toBe(0);
    expect(autopilot(dir, 'fail', '--reason', `attempt ${n} failed`).code).toBe(n === 3 ? 3 : 0);
  }
  expect(status(dir)).toMatchObject({ step: 1, status: 'failed', retry_count: 3 });
  return copy;
}

/** The three ways to revive the failed step once the old journal is put back. */
const attacks: [string, (dir: string) => void][] = [
  ['4a the pointer edited back to in_progress, retry 0', (dir) => editPointer(dir, { status: 'in_progress', retry_count: '0' })],
  ['4b the pointer deleted', (dir) => rmSync(join(dir, POINTER))],
  ['4c the pointer left as the engine wrote it', () => {}],
];

describe('3 ways to revive a failed step by cutting the journal: 3 held, 0 completed', () => {
  for (const [how, shortcut] of attacks) {
    it(`${how}: done, next, substep and fail held (exit 2, naming the cut), the step still failed, 0 events journaled`, () => {
      const dir = repo();
      const copy = failedWithCopy(dir);
      writeFileSync(join(dir, JOURNAL), copy);
      shortcut(dir);
      const lines = read(dir, JOURNAL);

      for (const args of [['done'], ['next'], ['substep', '2 — Restrictions'], ['fail', '--reason', 'x']]) {
        const run = autopilot(dir, ...args);
        expect(run.code, `${args[0]}: ${run.stdout}${run.stderr}`).toBe(2);
        expect(run.stderr).toMatch(/the journal lost events: event \d+ expected, \d+ found/);
        expect(run.stderr).toContain('autopilot adopt');
      }
      expect(read(dir, JOURNAL)).toBe(lines);
      expect(completed(dir)).toBe(0);

      const check = autopilot(dir, 'check');
      expect(check.code).toBe(2);
      expect(check.stdout).toContain('the journal lost events');
      expect(autopilot(dir, 'status').stdout).not.toContain('Problems  none');
    });
  }
});

describe('the ways back from a cut journal', () => {
  it('`git checkout HEAD -- <journal>` (HEAD holds event 8): the refusal names it, and the run goes on as the failed step it is', () => {
    const dir = repo();
    const copy = failedWithCopy(dir);
    writeFileSync(join(dir, JOURNAL), copy);
    const done = autopilot(dir, 'done');
    expect(done.code).toBe(2);
    expect(done.stderr).toContain(`git checkout HEAD -- ${JOURNAL}\` (HEAD holds the journal up to event`);
    git(dir, 'checkout', 'HEAD', '--', JOURNAL);
    expect(status(dir)).toMatchObject({ step: 1, status: 'failed', retry_count: 3, drift: [] });
    expect(autopilot(dir, 'done').code).toBe(3);
    expect(completed(dir)).toBe(0);
    expect(autopilot(dir, 'check').code).toBe(0);
  });

  it("pointer, progress-commit note and checkpoints removed with the cut: HEAD's journal still says so, 4 commands held, 0 completed", () => {
    const dir = repo();
    const copy = failedWithCopy(dir);
    writeFileSync(join(dir, JOURNAL), copy);
    for (const gone of [POINTER, '_docs/_autopilot/cache', '_docs/_autopilot/checkpoints']) rmSync(join(dir, gone), { recursive: true, force: true });
    for (const args of [['done'], ['next'], ['substep', '2 — Restrictions'], ['fail', '--reason', 'x']]) {
      const run = autopilot(dir, ...args);
      expect(run.code, `${args[0]}: ${run.stdout}${run.stderr}`).toBe(2);
      expect(run.stderr).toContain('the journal HEAD holds reaches it');
    }
    expect(read(dir, JOURNAL)).toBe(copy);
    expect(completed(dir)).toBe(0);
    expect(autopilot(dir, 'check').stdout).toContain('the journal lost events');
  });

  it("a person's `adopt` goes on from the position shown, journaled as theirs, numbered past the lost events", () => {
    const dir = repo();
    const copy = failedWithCopy(dir);
    writeFileSync(join(dir, JOURNAL), copy);
    editPointer(dir, { status: 'in_progress', retry_count: '0' });
    const adopt = autopilot(dir, 'adopt', '--json');
    expect(adopt.code, adopt.stdout + adopt.stderr).toBe(0);
    const adopted = journal(dir).filter((e) => e.event === 'edit_adopted');
    expect(adopted).toEqual([expect.objectContaining({ what: 'journal', actor: 'person', status: 'in_progress', retry_count: 0 })]);
    expect(adopted[0]!.seq as number).toBeGreaterThan(8);
    expect(status(dir)).toMatchObject({ step: 1, status: 'in_progress', retry_count: 0, drift: [] });
    expect(autopilot(dir, 'check').code).toBe(0);
    // The attempt goes on from there as any does: `next` records its start.
    expect(autopilot(dir, 'next').code).toBe(0);
    expect(status(dir)).toMatchObject({ step: 1, status: 'in_progress', retry_count: 0 });
  });

  it('a journal never committed (ignored) and gone on a fresh clone: held, the message says a person adopts, and after adopt the run goes on', () => {
    const dir = repo();
    writeFileSync(join(dir, '.gitignore'), '/_docs/_autopilot/journal.jsonl\n');
    git(dir, 'add', '.gitignore');
    git(dir, 'commit', '-q', '-m', 'ignore the journal');
    expect(autopilot(dir, 'next').code).toBe(0);
    expect(autopilot(dir, 'substep', '2 — Restrictions').code).toBe(0);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'work');
    const clone = newRepo();
    git(clone, 'pull', '-q', dir, 'main');
    const next = autopilot(clone, 'next');
    expect(next.code).toBe(2);
    expect(next.stderr).toContain('0 found');
    expect(next.stderr).toContain('a journal never committed');
    expect(autopilot(clone, 'adopt').code).toBe(0);
    expect(autopilot(clone, 'next', '--json').json<NextJson>()).toMatchObject({ step: 1, sub_step: '2 — Restrictions' });
  });
});
