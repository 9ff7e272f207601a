/**
 * The bytes judged are the bytes committed, in the git layer (src/git/judged.ts):
 * `commitProgress` given the files a judge read holds each as judged, names
 * the ones that changed since, and costs no git command more while none did.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blobId } from '../../src/hash.js';
import { judgedPins, readJudged, storeJudged, type JudgedFile } from '../../src/git/judged.js';
import { commitProgress } from '../../src/git/progress-commit.js';
import { progressMessage } from '../../src/git/progress-message.js';
import { openGit } from '../../src/git/repository.js';
import { git, handleFor, repoWith, tempDir, write } from '../helpers/git.js';

const REPORT = '_docs/03_implementation/report.md';
const message = progressMessage({ flow: 'greenfield', step: 7, steps: 10, name: 'Implement', status: 'completed', cycle: 1, session: 's-1' });
const judgedOf = (path: string, text: string, keepText = true): JudgedFile => ({ path, blob: blobId(text), ...(keepText ? { text } : {}) });

/** A `git` first on PATH that logs each command's name, then runs the real one: how many git commands a call costs. */
function countingGit(): { env: Record<string, string>; calls: () => string[] } {
  const bin = tempDir();
  const log = join(tempDir(), 'calls');
  const real = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
  writeFileSync(join(bin, 'git'), `#!/bin/sh\nfor a in "$@"; do case "$a" in -*) ;; *) echo "$a" >> '${log}'; break;; esac; done\nexec '${real}' "$@"\n`);
  chmodSync(join(bin, 'git'), 0o755);
  return {
    env: { PATH: `${bin}:${process.env.PATH}` },
    calls: () => {
      try {
        return readFileSync(log, 'utf8').trim().split('\n').filter(Boolean);
      } catch {
        return [];
      }
    },
  };
}

describe('commitProgress with the files a judge read', () => {
  it('unchanged since judging: the commit holds them, with as many git commands as a commit without them, and no hash-object', async () => {
    const counts: number[] = [];
    for (const withJudged of [false, true]) {
      const repo = repoWith({ 'README.md': 'readme\n' });
      write(repo, REPORT, '# Report\n\nAll 3 tests pass.\n');
      const counter = countingGit();
      const handle = (await openGit(repo, { env: { ...process.env, ...counter.env } })).handle!;
      const before = counter.calls().length;
      const made = await commitProgress(handle, {
        files: [REPORT],
        ...message,
        ...(withJudged ? { judged: [judgedOf(REPORT, '# Report\n\nAll 3 tests pass.\n')] } : {}),
      });
      counts.push(counter.calls().length - before);
      expect(made).toMatchObject({ changedAfterJudging: [], leftOut: [] });
      expect(git(repo, 'show', `HEAD:${REPORT}`)).toBe('# Report\n\nAll 3 tests pass.\n');
      expect(counter.calls()).not.toContain('hash-object');
    }
    console.log(`git commands of a progress commit: ${counts[0]} without judged files, ${counts[1]} with one`);
    expect(counts[1]).toBe(counts[0]);
  });

  it('4 files changed after judging (rewritten, deleted, a link, a folder): the commit holds the 4 as judged; the work tree keeps the 4 changes; 4 named', async () => {
    const repo = repoWith({ 'README.md': 'readme\n' });
    const files = ['_docs/a.md', '_docs/b.md', '_docs/c.md', '_docs/d.md'];
    const judged = files.map((f) => judgedOf(f, `judged ${f}\n`));
    write(repo, files[0]!, 'TODO\n');
    write(repo, 'src/app.ts', 'the step’s code\n');
    mkdirSync(join(repo, files[2]!, '..'), { recursive: true });
    spawnSync('ln', ['-s', '/etc/passwd', join(repo, files[2]!)]);
    mkdirSync(join(repo, files[3]!));
    write(repo, `${files[3]}/inner.md`, 'x\n');
    const handle = await handleFor(repo);
    const made = await commitProgress(handle, { files, changed: ['src/app.ts'], judged, ...message });
    for (const f of files) expect(git(repo, 'show', `HEAD:${f}`), f).toBe(`judged ${f}\n`);
    expect(git(repo, 'show', 'HEAD:src/app.ts')).toBe('the step’s code\n');
    expect(made.changedAfterJudging.sort()).toEqual(files);
    expect(made.leftOut).toEqual([]);
    // The changes are the work tree's, not committed: git shows each.
    const status = git(repo, 'status', '--porcelain');
    for (const f of files) expect(status).toContain(f);
  });

  it('a file swapped to its committed version around git’s read is set back to the bytes judged', async () => {
    const repo = repoWith({ [REPORT]: 'old report\n' });
    write(repo, REPORT, 'new report, judged\n');
    const handle = await handleFor(repo);
    // Read as judged, then swapped back to HEAD's version before git read it: the tree holds HEAD's, no change shows.
    const read = readJudged(handle, [judgedOf(REPORT, 'new report, judged\n')]);
    write(repo, REPORT, 'old report\n');
    const pins = await judgedPins(handle, read, []);
    expect(pins.changed).toEqual([REPORT]);
    expect(git(repo, 'cat-file', '-p', pins.entries.get(REPORT)!.sha)).toBe('new report, judged\n');
  });

  it('through the repository’s filters (core.autocrlf, CRLF text): nothing is pinned, the commit holds what `git add` stores, the tree is clean after', async () => {
    const repo = repoWith({ 'README.md': 'readme\n' });
    git(repo, 'config', 'core.autocrlf', 'true');
    const text = '# Report\r\n\r\nAll pass.\r\n';
    write(repo, REPORT, text);
    const handle = await handleFor(repo);
    const made = await commitProgress(handle, { files: [REPORT], judged: [judgedOf(REPORT, text)], ...message });
    expect(made.changedAfterJudging).toEqual([]);
    expect(git(repo, 'show', `HEAD:${REPORT}`)).toBe('# Report\n\nAll pass.\n');
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it('without the text judged (a later command): the version judged kept in git is committed; one gone is left out, named', async () => {
    const repo = repoWith({ 'README.md': 'readme\n' });
    const kept = judgedOf('_docs/kept.md', 'kept as judged\n', false);
    const gone = judgedOf('_docs/gone.md', 'never stored\n', false);
    const handle = await handleFor(repo);
    await storeJudged(handle, ['kept as judged\n']);
    write(repo, '_docs/kept.md', 'swapped\n');
    write(repo, '_docs/gone.md', 'swapped too\n');
    const made = await commitProgress(handle, { files: ['_docs/kept.md', '_docs/gone.md'], judged: [kept, gone], ...message });
    expect(git(repo, 'show', 'HEAD:_docs/kept.md')).toBe('kept as judged\n');
    expect(git(repo, 'ls-tree', 'HEAD', '_docs/gone.md')).toBe('');
    expect(made).toMatchObject({ changedAfterJudging: ['_docs/kept.md'], leftOut: ['_docs/gone.md'] });
    rmSync(join(repo, '_docs/gone.md'));
  });
});
