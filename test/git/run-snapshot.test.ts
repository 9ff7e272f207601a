/**
 * The work tree as a test run begins, and what changed outside the docs
 * folder since (`git/run-snapshot.ts`), in real repositories: named file by
 * file, ignored files and the docs folder left out, and the git folder only
 * read, so `autopilot exec` works where an agent client's sandbox keeps
 * `.git` read-only (Codex's workspace-write).
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changedSinceRun, snapshotRun, SnapshotGone } from '../../src/git/run-snapshot.js';
import { git, handleFor, newRepo, commit, repoWith, userView, write } from '../helpers/git.js';

/**
 * Every file under a folder with its size: what a command added or rewrote
 * there shows. (Not the times: git freshens the time of an object it finds
 * in an alternate, where it may; under a read-only git folder it cannot, and
 * writes the object to the store instead.)
 */
function listing(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel))) {
      const path = rel ? `${rel}/${name}` : name;
      const stat = statSync(join(dir, path));
      if (stat.isDirectory()) walk(path);
      else out[path] = `${stat.size}`;
    }
  };
  walk('');
  return out;
}

const STORE = (repo: string) => join(repo, '_docs/_autopilot/cache/run-trees');

describe('snapshotRun and changedSinceRun', () => {
  it('name the 3 files changed, added and deleted outside the docs folder; an ignored file and the docs folder are not named; nothing is added to or rewritten in the git folder, the index as it was', async () => {
    const repo = repoWith({ 'src/a.js': 'a\n', 'src/b.js': 'b\n', '.gitignore': 'coverage/\n', '_docs/report.md': 'r\n' });
    write(repo, 'src/staged.js', 'work in progress\n');
    git(repo, 'add', 'src/staged.js');
    const handle = await handleFor(repo);
    const gitBefore = listing(join(repo, '.git'));
    const userBefore = userView(repo);
    const tree = await snapshotRun(handle, STORE(repo), '_docs');
    write(repo, 'src/a.js', 'a, changed\n');
    write(repo, 'src/new.js', 'new\n');
    rmSync(join(repo, 'src/b.js'));
    write(repo, 'coverage/lcov.info', 'TN:\n');
    write(repo, '_docs/report.md', 'r, rewritten after the run\n');
    expect(await changedSinceRun(handle, STORE(repo), tree, '_docs')).toEqual(['src/a.js', 'src/b.js', 'src/new.js']);
    expect(listing(join(repo, '.git'))).toEqual(gitBefore);
    // The user's staged work is as it was: the index is only read.
    expect(userView(repo).staged).toBe(userBefore.staged);
  });

  it('name nothing where nothing changed, in a repository with no first commit too (0 of 0)', async () => {
    const repo = newRepo();
    write(repo, 'src/a.js', 'a\n');
    const handle = await handleFor(repo);
    const tree = await snapshotRun(handle, STORE(repo), '_docs');
    expect(await changedSinceRun(handle, STORE(repo), tree, '_docs')).toEqual([]);
    commit(repo, 'first', {});
  });

  it('a tree the store no longer holds is SnapshotGone, not a clean bill', async () => {
    const repo = repoWith({ 'src/a.js': 'a\n' });
    // A file git does not hold yet: the snapshot's tree is one only the store has.
    write(repo, 'src/new.js', 'new\n');
    const handle = await handleFor(repo);
    const tree = await snapshotRun(handle, STORE(repo), '_docs');
    write(repo, 'src/a.js', 'changed\n');
    rmSync(STORE(repo), { recursive: true, force: true });
    await expect(changedSinceRun(handle, STORE(repo), tree, '_docs')).rejects.toBeInstanceOf(SnapshotGone);
  });
});
