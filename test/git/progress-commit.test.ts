import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitCommandError, ProgressCommitRefused } from '../../src/git/errors.js';
import { progressCommit } from '../../src/git/progress-commit.js';
import { progressMessage } from '../../src/git/progress-message.js';
import { InputError } from '../../src/errors.js';
import { changedPaths, commit, git, gitFails, gitState, handleFor, newRepo, repoWith, userView, write } from '../helpers/git.js';

const POINTER = '_docs/_autopilot_state.md';
const JOURNAL = '_docs/_autopilot/journal.jsonl';
const facts = { flow: 'greenfield', step: 3, steps: 10, name: 'Plan', status: 'completed', cycle: 1, session: 's-1' } as const;
const message = progressMessage(facts);

describe('progressCommit', () => {
  it("commits exactly the named files and leaves the user's staged, unstaged and untracked work as it was", async () => {
    const repo = repoWith({
      [POINTER]: 'step: 2\n',
      [JOURNAL]: '{"event":"a"}\n',
      '_docs/01_solution/draft.md': 'draft\n',
      'src/app.ts': 'one\n',
      'src/lib.ts': 'lib\n',
      'README.md': 'readme\n',
    });
    const before = git(repo, 'rev-parse', 'HEAD').trim();
    // The user's own work in progress, of every kind.
    write(repo, 'src/app.ts', 'one\ntwo (staged)\n');
    git(repo, 'add', 'src/app.ts');
    write(repo, 'src/app.ts', 'one\ntwo (staged)\nthree (not staged)\n');
    write(repo, 'src/new.ts', 'new, staged\n');
    git(repo, 'add', 'src/new.ts');
    write(repo, 'src/lib.ts', 'lib, changed, not staged\n');
    git(repo, 'rm', '--quiet', '--cached', 'README.md');
    write(repo, 'notes.txt', 'untracked\n');
    const theirs = userView(repo);
    // autopilot's work: a changed pointer, a longer journal, a new file, a removed one.
    write(repo, POINTER, 'step: 3\n');
    write(repo, JOURNAL, '{"event":"a"}\n{"event":"b"}\n');
    write(repo, '_docs/02_tasks/_index.md', 'tasks\n');
    rmSync(join(repo, '_docs/01_solution/draft.md'));

    const handle = await handleFor(repo);
    const sha = await progressCommit(handle, { files: [POINTER, JOURNAL, '_docs/02_tasks/_index.md', '_docs/01_solution/draft.md'], ...message });

    expect(sha).toBe(git(repo, 'rev-parse', 'main').trim());
    expect(git(repo, 'rev-parse', `${sha}^`).trim()).toBe(before);
    expect(changedPaths(repo)).toEqual(['A\t_docs/02_tasks/_index.md', 'D\t_docs/01_solution/draft.md', `M\t${JOURNAL}`, `M\t${POINTER}`].sort());
    expect(git(repo, 'show', `HEAD:${JOURNAL}`)).toBe('{"event":"a"}\n{"event":"b"}\n');
    expect(userView(repo)).toEqual(theirs);
    expect(readdirSync(join(repo, '.git')).filter((name) => name.startsWith('autopilot-index'))).toEqual([]);
  });

  it('writes the subject, the trailers git reads back, and a reflog line', async () => {
    const repo = repoWith({ [POINTER]: 'step: 2\n' });
    write(repo, POINTER, 'step: 3\n');
    const handle = await handleFor(repo);
    await progressCommit(handle, { files: [POINTER], ...progressMessage({ ...facts, body: 'Decided: A' }) });
    expect(git(repo, 'log', '-1', '--format=%s')).toBe('autopilot: greenfield 3/10 Plan completed\n');
    expect(git(repo, 'log', '-1', '--format=%b')).toMatch(/^Decided: A\n\n_docs\/ \(1\): _autopilot_state\.md\n\nAutopilot-Flow: greenfield\n/);
    expect(git(repo, 'log', '-1', '--format=%(trailers:only,unfold)')).toBe(
      [
        'Autopilot-Flow: greenfield',
        'Autopilot-Step: 3',
        'Autopilot-Name: Plan',
        'Autopilot-Status: completed',
        'Autopilot-Cycle: 1',
        'Autopilot-Session: s-1',
        '',
        '',
      ].join('\n'),
    );
    expect(git(repo, 'log', '-1', '--format=%an <%ae>')).toBe('Test Person <test.person@example.invalid>\n');
    expect(git(repo, 'reflog', '-1', '--format=%gs', 'main')).toBe('autopilot progress commit: autopilot: greenfield 3/10 Plan completed\n');
  });

  it('makes the first commit of a repository, keeping what the user staged', async () => {
    const repo = newRepo();
    write(repo, 'app.ts', 'staged\n');
    git(repo, 'add', 'app.ts');
    write(repo, POINTER, 'step: 1\n');
    const sha = await progressCommit(await handleFor(repo), { files: [POINTER], ...message });
    expect(git(repo, 'rev-list', '--parents', '-1', 'HEAD').trim()).toBe(sha);
    expect(changedPaths(repo)).toEqual([`A\t${POINTER}`]);
    expect(git(repo, 'status', '--porcelain=v1')).toBe('A  app.ts\n');
  });

  it('makes no commit when the files are already committed as they are', async () => {
    const repo = repoWith({ [POINTER]: 'step: 2\n' });
    const head = git(repo, 'rev-parse', 'HEAD');
    expect(await progressCommit(await handleFor(repo), { files: [POINTER], ...message })).toBeUndefined();
    expect(await progressCommit(await handleFor(repo), { files: [], ...message })).toBeUndefined();
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(head);
  });

  it('names files relative to the repository root, below the top of the work tree', async () => {
    const top = repoWith({ 'packages/app/_docs/_autopilot_state.md': 'step: 2\n', 'packages/app/other.md': 'x\n' });
    write(top, 'packages/app/_docs/_autopilot_state.md', 'step: 3\n');
    write(top, 'packages/app/other.md', 'changed\n');
    await progressCommit(await handleFor(join(top, 'packages/app')), { files: [POINTER], ...message });
    expect(changedPaths(top)).toEqual(['M\tpackages/app/_docs/_autopilot_state.md']);
    for (const outside of ['../other.md', '/etc/passwd', 'a/../../x', '']) {
      await expect(progressCommit(await handleFor(join(top, 'packages/app')), { files: [outside], ...message })).rejects.toThrow(InputError);
    }
  });

  it("fails with git's words, committing nothing, when another git command holds the index", async () => {
    const repo = repoWith({ [POINTER]: 'step: 2\n' });
    write(repo, POINTER, 'step: 3\n');
    const before = gitState(repo);
    writeFileSync(join(repo, '.git/index.lock'), '');
    const attempt = progressCommit(await handleFor(repo), { files: [POINTER], ...message });
    await expect(attempt).rejects.toBeInstanceOf(GitCommandError);
    await expect(attempt).rejects.toThrow(/index\.lock': File exists/);
    rmSync(join(repo, '.git/index.lock'));
    expect(gitState(repo)).toEqual(before);
  });

  it('leaves no temporary index behind when git fails half-way', async () => {
    const repo = repoWith({ [POINTER]: 'step: 2\n' });
    write(repo, '_docs/folder/file.md', 'x\n');
    const handle = await handleFor(repo);
    await expect(progressCommit(handle, { files: ['_docs/folder'], ...message })).rejects.toThrow(/is a directory/);
    expect(readdirSync(join(repo, '.git')).filter((name) => name.startsWith('autopilot-index'))).toEqual([]);
  });
});

describe('progressCommit refuses, writing nothing', () => {
  /** A repository whose `a.txt` was changed on `main` and on `side`, so bringing them together stops on a conflict. */
  function conflicting(): string {
    const repo = repoWith({ 'a.txt': 'base\n', [POINTER]: 'step: 2\n' });
    git(repo, 'switch', '--quiet', '-c', 'side');
    commit(repo, 'side edit', { 'a.txt': 'side\n' });
    git(repo, 'switch', '--quiet', 'main');
    commit(repo, 'main edit', { 'a.txt': 'main\n' });
    return repo;
  }

  async function expectRefusal(repo: string, reason: string, received: RegExp) {
    write(repo, POINTER, 'step: 3\n');
    const before = { head: git(repo, 'rev-parse', 'HEAD'), ...userView(repo), index: git(repo, 'ls-files', '--stage') };
    const attempt = progressCommit(await handleFor(repo), { files: [POINTER], ...message });
    await expect(attempt).rejects.toBeInstanceOf(ProgressCommitRefused);
    await expect(attempt).rejects.toMatchObject({ reason, problems: [{ received: expect.stringMatching(received) }] });
    expect({ head: git(repo, 'rev-parse', 'HEAD'), ...userView(repo), index: git(repo, 'ls-files', '--stage') }).toEqual(before);
  }

  it('on a detached HEAD', async () => {
    const repo = repoWith({ [POINTER]: 'step: 2\n' });
    git(repo, 'switch', '--quiet', '--detach');
    await expectRefusal(repo, 'detached', /^detached HEAD at [0-9a-f]{12}$/);
    await expect(progressCommit(await handleFor(repo), { files: [POINTER], ...message })).rejects.toThrow(/no progress commit: HEAD is detached/);
  });

  it('in the middle of a merge', async () => {
    const repo = conflicting();
    expect(gitFails(repo, 'merge', 'side')).toBe(1);
    await expectRefusal(repo, 'merge', /merge in progress on main/);
  });

  it('in the middle of a rebase', async () => {
    const repo = conflicting();
    git(repo, 'switch', '--quiet', 'side');
    expect(gitFails(repo, 'rebase', 'main')).toBe(1);
    await expectRefusal(repo, 'rebase', /rebase in progress/);
  });

  it('in the middle of a cherry-pick, and of a revert', async () => {
    const picking = conflicting();
    expect(gitFails(picking, 'cherry-pick', 'side')).toBe(1);
    await expectRefusal(picking, 'cherry-pick', /cherry-pick in progress/);

    const reverting = repoWith({ 'a.txt': '1\n' });
    const first = commit(reverting, 'two', { 'a.txt': '2\n' });
    commit(reverting, 'three', { 'a.txt': '3\n' });
    expect(gitFails(reverting, 'revert', '--no-edit', first)).toBe(1);
    await expectRefusal(reverting, 'revert', /revert in progress/);
  });
});
