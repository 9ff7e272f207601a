/**
 * A step's commit: the work tree snapshot taken when the step starts, what
 * changed since, the commit that holds exactly that (plus the pointer and
 * the journal), and what is left for the next command after a failure: no
 * temporary file, no index behind HEAD, a commit findable by its trailers.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitCommandError } from '../../src/git/errors.js';
import { findProgressCommit } from '../../src/git/history.js';
import {
  changedSince,
  cleanLeftovers,
  commitHolding,
  keepSnapshot,
  progressCommit,
  releaseSnapshot,
  repairIndex,
  SnapshotGone,
  snapshotRef,
  snapshotWorkTree,
} from '../../src/git/progress-commit.js';
import { progressMessage } from '../../src/git/progress-message.js';
import { changedPaths, commit, git, gitState, handleFor, repoWith, tempDir, write } from '../helpers/git.js';

const POINTER = '_docs/_autopilot_state.md';
const JOURNAL = '_docs/_autopilot/journal.jsonl';
const facts = { flow: 'greenfield', step: 3, steps: 10, name: 'Plan', status: 'completed', cycle: 1, session: 's-1', event: 7 } as const;
const message = progressMessage(facts);

const leftovers = (repo: string) => readdirSync(join(repo, '.git')).filter((name) => name.startsWith('autopilot-'));

/** A project with a person's work in progress: a modified file, a staged one, an untracked one, an ignored one. */
function projectWithPersonsWork(): string {
  const repo = repoWith({
    [POINTER]: 'step: 2\n',
    [JOURNAL]: '{"seq":1}\n',
    '.gitignore': 'build/\n*.log\n',
    'src/app.ts': 'app\n',
    'src/lib.ts': 'lib\n',
    'src/old.ts': 'old\n',
    'README.md': 'readme\n',
  });
  write(repo, 'src/app.ts', 'app, modified by the person, not staged\n');
  write(repo, 'README.md', 'readme, staged by the person\n');
  git(repo, 'add', 'README.md');
  write(repo, 'notes.txt', "the person's untracked notes\n");
  write(repo, 'build/out.js', 'ignored\n');
  return repo;
}

describe('snapshotWorkTree and changedSince', () => {
  it('record the work tree (staged or not, untracked, .gitignore respected) and tell what changed since, never touching the index', async () => {
    const repo = projectWithPersonsWork();
    const handle = await handleFor(repo);
    const before = gitState(repo);
    const snapshot = await snapshotWorkTree(handle);
    expect(gitState(repo)).toEqual(before);
    expect(git(repo, 'cat-file', '-t', snapshot).trim()).toBe('tree');
    expect(git(repo, 'show', `${snapshot}:src/app.ts`)).toBe('app, modified by the person, not staged\n');
    expect(git(repo, 'show', `${snapshot}:notes.txt`)).toBe("the person's untracked notes\n");
    expect(git(repo, 'ls-tree', '-r', '--name-only', snapshot)).not.toMatch(/build\//);
    expect(await changedSince(handle, snapshot)).toEqual([]);

    // The step's work: a new file, a changed one, a deleted one, an ignored one, one changed and changed back.
    write(repo, 'src/new.ts', 'new\n');
    write(repo, 'src/lib.ts', 'lib, changed by the step\n');
    rmSync(join(repo, 'src/old.ts'));
    write(repo, 'build/more.js', 'ignored\n');
    write(repo, 'error.log', 'ignored\n');
    write(repo, 'notes.txt', 'changed\n');
    write(repo, 'notes.txt', "the person's untracked notes\n");
    const after = gitState(repo);
    expect(await changedSince(handle, snapshot)).toEqual([
      { path: 'src/lib.ts', change: 'modified' },
      { path: 'src/new.ts', change: 'added' },
      { path: 'src/old.ts', change: 'deleted' },
    ]);
    expect(gitState(repo)).toEqual(after);
    expect(leftovers(repo)).toEqual([]);
  });

  it('work on a repository with no commit yet, and name paths relative to a root below the top', async () => {
    const top = repoWith({ 'packages/app/a.md': 'a\n', 'other/b.md': 'b\n' });
    const handle = await handleFor(join(top, 'packages/app'));
    const snapshot = await snapshotWorkTree(handle);
    write(top, 'packages/app/c.md', 'c\n');
    write(top, 'other/b.md', 'changed outside the root\n');
    expect(await changedSince(handle, snapshot)).toEqual([{ path: 'c.md', change: 'added' }]);

    const fresh = tempRepo();
    const freshHandle = await handleFor(fresh);
    const empty = await snapshotWorkTree(freshHandle);
    write(fresh, 'x.md', 'x\n');
    expect(await changedSince(freshHandle, empty)).toEqual([{ path: 'x.md', change: 'added' }]);
    await expect(changedSince(freshHandle, '--output=x')).rejects.toThrow(/not a snapshot/);
    await expect(changedSince(freshHandle, '1'.repeat(40))).rejects.toThrow(/no longer in the repository/);
  });

  const FILES = 3000;
  it(`are fast on a repository of ${FILES} files`, async () => {
    const repo = repoWith({ 'README.md': 'x\n' });
    for (let i = 0; i < FILES; i++) {
      const dir = join(repo, `src/m${i % 60}`);
      if (i < 60) mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `f${i}.ts`), `export const v${i} = ${i};\n`);
    }
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'many files');
    write(repo, 'src/m1/f1.ts', 'changed\n');
    const handle = await handleFor(repo);
    const times: number[] = [];
    let snapshot = '';
    for (let round = 0; round < 3; round++) {
      const start = performance.now();
      snapshot = await snapshotWorkTree(handle);
      times.push(Math.round(performance.now() - start));
    }
    write(repo, 'src/m2/new.ts', 'new\n');
    const start = performance.now();
    const changes = await changedSince(handle, snapshot);
    const since = Math.round(performance.now() - start);
    expect(changes).toEqual([{ path: 'src/m2/new.ts', change: 'added' }]);
    console.log(`snapshotWorkTree on ${FILES + 1} files: ${times.join(', ')} ms; changedSince: ${since} ms`);
    // Generous: a loaded two-core machine; an idle one takes a small fraction of this.
    expect(Math.min(...times)).toBeLessThan(3_000);
  });
});

/** A repository with an identity and no commit. */
function tempRepo(): string {
  const repo = repoWith({});
  git(repo, 'update-ref', '-d', 'HEAD');
  return repo;
}

describe("a step's progress commit", () => {
  it("holds exactly the step's work, the pointer and the journal; the person's files stay exactly as they were", async () => {
    const repo = projectWithPersonsWork();
    const handle = await handleFor(repo);
    const base = git(repo, 'rev-parse', 'HEAD').trim();
    const snapshot = await snapshotWorkTree(handle);
    const theirs = { app: git(repo, 'diff', '--', 'src/app.ts'), readme: git(repo, 'diff', '--cached', '--', 'README.md') };

    write(repo, 'src/lib.ts', 'lib, changed by the step\n');
    write(repo, 'src/new.ts', 'new\n');
    rmSync(join(repo, 'src/old.ts'));
    write(repo, 'build/x.js', 'ignored\n');
    write(repo, POINTER, 'step: 3\n');
    write(repo, JOURNAL, '{"seq":1}\n{"seq":7}\n');

    const sha = await progressCommit(handle, { files: [POINTER, JOURNAL], changed: await changedSince(handle, snapshot), ...message });
    expect(sha).toBe(git(repo, 'rev-parse', 'HEAD').trim());
    expect(git(repo, 'rev-parse', 'HEAD^').trim()).toBe(base);
    expect(changedPaths(repo)).toEqual([`M\t${JOURNAL}`, `M\t${POINTER}`, 'A\tsrc/new.ts', 'M\tsrc/lib.ts', 'D\tsrc/old.ts'].sort());
    // The person's: modified stays modified, staged stays staged, untracked stays untracked.
    expect(git(repo, 'diff', '--', 'src/app.ts')).toBe(theirs.app);
    expect(git(repo, 'diff', '--cached', '--', 'README.md')).toBe(theirs.readme);
    expect(git(repo, '--no-optional-locks', 'status', '--porcelain=v1')).toBe('M  README.md\n M src/app.ts\n?? notes.txt\n');
    expect(git(repo, 'log', '-1', '--format=%B')).toBe(
      [
        'autopilot: greenfield 3/10 Plan completed',
        '',
        '_docs/ (1): _autopilot_state.md',
        '_docs/_autopilot/ (1): journal.jsonl',
        'src/ (3): lib.ts, new.ts (new), old.ts (deleted)',
        '',
        'Autopilot-Flow: greenfield',
        'Autopilot-Step: 3',
        'Autopilot-Name: Plan',
        'Autopilot-Status: completed',
        'Autopilot-Cycle: 1',
        'Autopilot-Session: s-1',
        'Autopilot-Event: 7',
        '',
        '',
      ].join('\n'),
    );
    expect(leftovers(repo)).toEqual([]);
  });

  it('is found again by its trailers, so a retry commits once; other commits and other events are not it', async () => {
    const repo = repoWith({ [POINTER]: 'step: 2\n' });
    const handle = await handleFor(repo);
    expect(await findProgressCommit(handle, message.trailers)).toBeUndefined();
    write(repo, POINTER, 'step: 3\n');
    const sha = await progressCommit(handle, { files: [POINTER], ...message });
    commit(repo, 'the person commits on top', { 'other.md': 'x\n' });
    expect(await findProgressCommit(handle, message.trailers)).toBe(sha);
    expect(await findProgressCommit(handle, { ...message.trailers, 'autopilot-event': '7', 'Autopilot-Session': ' s-1 ' })).toBe(sha);
    expect(await findProgressCommit(handle, progressMessage({ ...facts, event: 8 }).trailers)).toBeUndefined();
    expect(await findProgressCommit(handle, progressMessage({ ...facts, session: 's-2' }).trailers)).toBeUndefined();
    expect(await findProgressCommit(handle, message.trailers, { limit: 1 })).toBeUndefined();
    await expect(findProgressCommit(handle, progressMessage({ ...facts, event: undefined }).trailers)).rejects.toThrow(TypeError);
    // On a side branch merged in, it is not on the first-parent line.
    git(repo, 'switch', '-q', '-c', 'side', 'HEAD~2');
    write(repo, POINTER, 'step: 4\n');
    const onSide = await progressCommit(handle, { files: [POINTER], ...progressMessage({ ...facts, event: 9 }) });
    git(repo, 'switch', '-q', 'main');
    git(repo, 'merge', '-q', '--no-ff', '-X', 'theirs', '-m', 'merge', 'side');
    expect(git(repo, 'rev-list', 'HEAD')).toContain(onSide!);
    expect(await findProgressCommit(handle, progressMessage({ ...facts, event: 9 }).trailers)).toBeUndefined();
  });
});

describe('in a linked work tree', () => {
  it('commits on its own branch, keeps its temporary indexes in its own git folder, and cleans them there', async () => {
    const main = repoWith({ [POINTER]: 'step: 2\n' });
    const linked = join(tempDir(), 'linked');
    git(main, 'worktree', 'add', '-q', '-b', 'feature', linked);
    const handle = await handleFor(linked);
    expect(handle.gitDir).toBe(join(main, '.git/worktrees/linked'));
    const snapshot = await snapshotWorkTree(handle);
    write(linked, 'src/x.ts', 'x\n');
    write(linked, POINTER, 'step: 3\n');
    const sha = await progressCommit(handle, { files: [POINTER], changed: await changedSince(handle, snapshot), ...message });
    expect(git(main, 'rev-parse', 'feature').trim()).toBe(sha);
    expect(git(main, 'rev-parse', 'main').trim()).toBe(git(main, 'rev-parse', 'feature^').trim());
    expect(git(linked, '--no-optional-locks', 'status', '--porcelain=v1')).toBe('');
    const left = `autopilot-index-999999999-0123abcd`;
    writeFileSync(join(handle.gitDir, left), '');
    expect(await cleanLeftovers(handle)).toEqual([left]);
    expect(leftovers(main)).toEqual([]);
  });
});

describe('a progress commit git refuses leaves nothing half-done', () => {
  async function refused(repo: string, error: RegExp): Promise<void> {
    write(repo, POINTER, 'step: 3\n');
    write(repo, 'src/step.ts', 'new\n');
    const before = gitState(repo);
    const start = Date.now();
    const attempt = progressCommit(await handleFor(repo), { files: [POINTER], changed: ['src/step.ts'], ...message });
    await expect(attempt).rejects.toBeInstanceOf(GitCommandError);
    await expect(attempt).rejects.toThrow(error);
    expect(Date.now() - start).toBeLessThan(10_000);
    expect(gitState(repo)).toEqual(before);
  }

  it('a reference-transaction hook that refuses: git says so, the branch and the index are as they were', async () => {
    const repo = projectWithPersonsWork();
    const hook = join(repo, '.git/hooks/reference-transaction');
    writeFileSync(hook, '#!/bin/sh\nif [ "$1" = prepared ]; then echo "refused by the test hook" >&2; exit 1; fi\n');
    chmodSync(hook, 0o755);
    await refused(repo, /ref updates aborted by hook|refused by the test hook/);
  });

  it('a refs/heads/main.lock left by a killed git: git says so at once, nothing hangs', async () => {
    const repo = projectWithPersonsWork();
    writeFileSync(join(repo, '.git/refs/heads/main.lock'), '');
    await refused(repo, /main\.lock': File exists/);
  });
});

describe('after a kill: cleanLeftovers and repairIndex', () => {
  it('cleanLeftovers removes the temporary indexes of processes that are gone, and nothing else', async () => {
    const repo = repoWith({ 'a.md': 'a\n' });
    const handle = await handleFor(repo);
    const dead = 'autopilot-index-999999999-0123abcd';
    const alive = `autopilot-index-${process.pid}-89abcdef`;
    for (const name of [dead, `${dead}.lock`, alive, 'autopilot-index-notes', 'index.lock']) writeFileSync(join(repo, '.git', name), '');
    expect(await cleanLeftovers(handle)).toEqual([dead, `${dead}.lock`]);
    expect(
      readdirSync(join(repo, '.git'))
        .filter((n) => n.includes('index'))
        .sort(),
    ).toEqual([alive, 'autopilot-index-notes', 'index', 'index.lock'].sort());
    // A file of a live pid, a day old: that pid was reused.
    expect(await cleanLeftovers(handle, { now: Date.now() + 25 * 60 * 60 * 1000 })).toEqual([alive]);
  });

  it("repairIndex brings the index up to a progress commit it fell behind, and leaves the person's staging alone", async () => {
    const repo = repoWith({ [POINTER]: 'step: 2\n', 'a.md': 'a\n', 'b.md': 'b\n', 'gone.md': 'gone\n', 'theirs.md': 'theirs\n' });
    const handle = await handleFor(repo);
    expect(await repairIndex(handle)).toEqual([]);
    // What a kill between the branch move and the index write (the old order) leaves: HEAD on the commit, the index on its parent.
    const index = readFileSync(join(repo, '.git/index'));
    write(repo, POINTER, 'step: 3\n');
    write(repo, 'a.md', 'a, by the step\n');
    write(repo, 'new.md', 'new, by the step\n');
    write(repo, 'b.md', 'b, by the step\n');
    rmSync(join(repo, 'gone.md'));
    await progressCommit(handle, { files: [POINTER, 'a.md', 'new.md', 'gone.md', 'b.md'], ...message });
    writeFileSync(join(repo, '.git/index'), index);
    // The person, meanwhile: stages a file of their own, and puts b.md back as it was (their choice, kept).
    write(repo, 'theirs.md', 'theirs, staged\n');
    git(repo, 'add', 'theirs.md');
    write(repo, 'b.md', 'b\n');
    // Staged reversals of the step's files: the person's next `git commit` would undo the step.
    expect(git(repo, 'diff', '--cached', '--name-only').split('\n').filter(Boolean).sort()).toEqual(
      [POINTER, 'a.md', 'b.md', 'gone.md', 'new.md', 'theirs.md'].sort(),
    );

    expect((await repairIndex(handle)).sort()).toEqual([POINTER, 'a.md', 'gone.md', 'new.md'].sort());
    // b.md: the work tree holds the parent's version, as the index does: the person's doing, left alone.
    expect(git(repo, '--no-optional-locks', 'status', '--porcelain=v1')).toBe('M  b.md\nM  theirs.md\n');
    expect(git(repo, 'diff', '--cached', '--', 'theirs.md')).toMatch(/\+theirs, staged/);
    expect(await repairIndex(handle)).toEqual([]);
  });
});

describe("the step's snapshot kept by a ref of autopilot's own, and a commit recognised by what its tree holds", () => {
  it('keepSnapshot survives `git gc --prune=now`; releaseSnapshot removes only the ref that still names it; a pruned one is SnapshotGone', async () => {
    const repo = repoWith({ 'a.md': 'a\n' });
    const handle = await handleFor(repo);
    write(repo, 'untracked.md', 'only in the snapshot\n');
    const kept = await snapshotWorkTree(handle);
    await keepSnapshot(handle, kept);
    expect(git(repo, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/autopilot/')).toBe(`${snapshotRef(handle)} ${kept}\n`);
    git(repo, 'gc', '--prune=now', '--quiet');
    write(repo, 'b.md', 'b\n');
    expect(await changedSince(handle, kept)).toEqual([{ path: 'b.md', change: 'added' }]);
    // Another step's snapshot took the ref: releasing the old one leaves it.
    const later = await snapshotWorkTree(handle);
    await keepSnapshot(handle, later);
    await releaseSnapshot(handle, kept);
    expect(git(repo, 'rev-parse', snapshotRef(handle)).trim()).toBe(later);
    await releaseSnapshot(handle, later);
    expect(git(repo, 'for-each-ref', 'refs/autopilot/')).toBe('');
    // Unreferenced, pruned: what changed since cannot be told, and says why.
    write(repo, 'c.md', 'only in a snapshot nothing keeps\n');
    const loose = await snapshotWorkTree(handle);
    git(repo, 'gc', '--prune=now', '--quiet');
    // (Written again as it was, the tree would be back: the step changed something.)
    write(repo, 'd.md', 'd\n');
    await expect(changedSince(handle, loose)).rejects.toBeInstanceOf(SnapshotGone);
    // A root below the top has a ref of its own.
    write(repo, 'packages/app/x.md', 'x\n');
    expect(snapshotRef(await handleFor(join(repo, 'packages/app')))).not.toBe(snapshotRef(handle));
  });

  it('commitHolding: the commit that left the file as the work tree has it, only while HEAD holds it so', async () => {
    const fresh = tempRepo();
    write(fresh, JOURNAL, '{"seq":1}\n');
    expect(await commitHolding(await handleFor(fresh), JOURNAL)).toBeUndefined();

    const repo = repoWith({ [JOURNAL]: '{"seq":1}\n' });
    const handle = await handleFor(repo);
    const first = git(repo, 'rev-parse', 'HEAD').trim();
    expect(await commitHolding(handle, JOURNAL)).toBe(first);
    // A person's commit on top that leaves the journal alone: still the one that wrote it.
    commit(repo, 'the person commits on top', { 'other.md': 'x\n' });
    expect(await commitHolding(handle, JOURNAL)).toBe(first);
    write(repo, JOURNAL, '{"seq":1}\n{"seq":2}\n');
    expect(await commitHolding(handle, JOURNAL)).toBeUndefined();
    const second = commit(repo, 'step 2', { [JOURNAL]: '{"seq":1}\n{"seq":2}\n' });
    expect(await commitHolding(handle, JOURNAL)).toBe(second);
    // Reverted and redone with the same event number but another line: not held.
    git(repo, 'revert', '--no-edit', 'HEAD');
    write(repo, JOURNAL, '{"seq":1}\n{"seq":2,"at":"later"}\n');
    expect(await commitHolding(handle, JOURNAL)).toBeUndefined();
    rmSync(join(repo, JOURNAL));
    expect(await commitHolding(handle, JOURNAL)).toBeUndefined();
  });
});
