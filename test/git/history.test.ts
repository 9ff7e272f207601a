import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blobText, committedVersions, heldAtHead, lastCommittedText, progressTrailers } from '../../src/git/history.js';
import { rmSync } from 'node:fs';
import { progressCommit } from '../../src/git/progress-commit.js';
import { progressMessage, type ProgressFacts } from '../../src/git/progress-message.js';
import { commit, git, gitFails, handleFor, newRepo, write } from '../helpers/git.js';

const POINTER = '_docs/_autopilot_state.md';

describe('heldAtHead', () => {
  const JOURNAL = '_docs/_autopilot/journal.jsonl';

  it('names the files HEAD holds though the work tree lost them (2 of 3 asked; a folder is no file), 0 on an unborn branch', async () => {
    const unborn = newRepo();
    expect(await heldAtHead(await handleFor(unborn), [POINTER, JOURNAL])).toEqual([]);
    const repo = newRepo();
    commit(repo, 'state', { [POINTER]: 'step: 1\n', [JOURNAL]: '{"event":"run_started"}\n', 'docs/notes.md': 'x\n' });
    rmSync(join(repo, POINTER));
    rmSync(join(repo, JOURNAL));
    const handle = await handleFor(repo);
    const held = await heldAtHead(handle, [POINTER, JOURNAL, 'docs', 'never.md']);
    expect(held.map((h) => [h.path, h.size])).toEqual([
      [JOURNAL, 24],
      [POINTER, 8],
    ]);
    expect(await blobText(handle, held[1]!.sha)).toBe('step: 1\n');
  });
});

describe('lastCommittedText and committedVersions', () => {
  it('give the committed texts of a file, newest first, not the work tree, and pass over a deletion', async () => {
    const repo = newRepo();
    const v1 = commit(repo, 'v1', { [POINTER]: 'step: 1\n', 'other.md': 'x\n' });
    const v2 = commit(repo, 'v2', { [POINTER]: 'step: 2 ✓ ünïcödé\n' });
    commit(repo, 'unrelated', { 'other.md': 'y\n' });
    const v3 = commit(repo, 'v3', { [POINTER]: 'step: 3 (broken\n' });
    write(repo, POINTER, 'not committed\n');
    const handle = await handleFor(repo);

    expect(await lastCommittedText(handle, POINTER)).toBe('step: 3 (broken\n');
    expect(await committedVersions(handle, POINTER, 2)).toEqual([
      { sha: v3, text: 'step: 3 (broken\n' },
      { sha: v2, text: 'step: 2 ✓ ünïcödé\n' },
    ]);
    expect((await committedVersions(handle, POINTER, 10)).map((v) => v.sha)).toEqual([v3, v2, v1]);

    git(repo, 'rm', '--quiet', '--force', POINTER);
    git(repo, 'commit', '--quiet', '-m', 'removed');
    expect(await lastCommittedText(handle, POINTER)).toBe('step: 3 (broken\n');
  });

  it('give the text a merge settled on, when two branches both moved the file', async () => {
    const repo = newRepo();
    commit(repo, 'base', { [POINTER]: 'step: 1\n' });
    git(repo, 'switch', '--quiet', '-c', 'side');
    commit(repo, 'side', { [POINTER]: 'step: 2 (side)\n' });
    git(repo, 'switch', '--quiet', 'main');
    commit(repo, 'main', { [POINTER]: 'step: 2 (main)\n' });
    expect(gitFails(repo, 'merge', '--quiet', 'side')).toBe(1);
    const merge = commit(repo, 'merge', { [POINTER]: 'step: 3 (resolved)\n' });
    const handle = await handleFor(repo);
    expect(await lastCommittedText(handle, POINTER)).toBe('step: 3 (resolved)\n');
    expect((await committedVersions(handle, POINTER, 2)).map((v) => v.sha)).toEqual([merge, git(repo, 'rev-parse', 'HEAD^1').trim()]);
  });

  it('give nothing for a file never committed, and on a branch with no commit yet', async () => {
    const repo = newRepo();
    write(repo, POINTER, 'step: 1\n');
    expect(await lastCommittedText(await handleFor(repo), POINTER)).toBeUndefined();
    expect(await committedVersions(await handleFor(repo), POINTER, 5)).toEqual([]);
    commit(repo, 'something else', { 'a.md': 'a\n' });
    expect(await lastCommittedText(await handleFor(repo), POINTER)).toBeUndefined();
  });

  it('read a path with glob characters literally, relative to the repository root', async () => {
    const top = newRepo();
    const literal = commit(top, 'literal', { 'app/_docs/[x]*.md': 'literal\n' });
    // `[x]*.md` as a glob would match this file, and its commit would count.
    commit(top, 'glob match', { 'app/_docs/x1.md': 'glob match\n' });
    expect(await committedVersions(await handleFor(join(top, 'app')), '_docs/[x]*.md', 5)).toEqual([{ sha: literal, text: 'literal\n' }]);
  });
});

describe('progressTrailers', () => {
  const facts = (step: number, status: ProgressFacts['status']): ProgressFacts => ({
    flow: 'greenfield',
    step,
    steps: 10,
    name: `Step ${step}`,
    status,
    cycle: 1,
    session: 'agent-7',
  });

  it("reads autopilot's progress commits newest first, and passes over other commits and odd trailers", async () => {
    const repo = newRepo();
    commit(repo, 'start', { 'README.md': 'x\n' });
    const handle = await handleFor(repo);
    const shas: string[] = [];
    for (const [step, status] of [
      [1, 'completed'],
      [2, 'in_progress'],
    ] as const) {
      write(repo, POINTER, `step: ${step}\n`);
      shas.push((await progressCommit(handle, { files: [POINTER], ...progressMessage({ ...facts(step, status), ...(step === 2 ? { event: 12 } : {}) }) }))!);
    }
    commit(repo, 'a person, mentioning\n\nAutopilot-Flow: in the body\n\nnot a trailer block');
    commit(repo, 'odd values\n\nAutopilot-Flow: greenfield\nAutopilot-Step: three\nAutopilot-Status: completed');
    commit(repo, 'hand-written but fine\n\nautopilot-flow: existing-code\nAutopilot-Step: done\nAutopilot-Status: completed');
    const latest = git(repo, 'rev-parse', 'HEAD').trim();

    expect(await progressTrailers(handle, 10)).toEqual([
      { sha: latest, flow: 'existing-code', step: 'done', name: '', status: 'completed', cycle: 1, session: '' },
      { sha: shas[1], flow: 'greenfield', step: 2, name: 'Step 2', status: 'in_progress', cycle: 1, session: 'agent-7', event: 12 },
      { sha: shas[0], flow: 'greenfield', step: 1, name: 'Step 1', status: 'completed', cycle: 1, session: 'agent-7' },
    ]);
    // The limit counts commits read, the odd one included.
    expect((await progressTrailers(handle, 2)).map((c) => c.sha)).toEqual([latest]);
  });

  it('finds nothing on a branch with no commit yet', async () => {
    expect(await progressTrailers(await handleFor(newRepo()), 5)).toEqual([]);
  });
});
