/**
 * Where a ref points, read from the git folder's files (refs-on-disk.ts), must
 * be what git says, or no answer at all: a wrong answer would drop a step's
 * snapshot ref while it is still needed, or keep one forever.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { refsOnDisk } from '../../src/git/refs-on-disk.js';
import { keepOwedSnapshot, keepSnapshot, owedSnapshotRef, releaseSnapshot, snapshotRef, snapshotWorkTree } from '../../src/git/progress-commit.js';
import { commit, git, handleFor, newRepo, tempDir, write } from '../helpers/git.js';

/** What git says of each ref: its object, or null. */
const gitSays = (dir: string, names: string[]) => new Map(names.map((name) => [name, git(dir, 'for-each-ref', '--format=%(objectname)', name).trim() || null]));

describe('refs read from the git folder', () => {
  it('4 refs (loose, packed, absent, a branch) read as git reads them, before and after pack-refs; a linked work tree reads the shared folder', async () => {
    const dir = newRepo();
    write(dir, 'a.md');
    commit(dir, 'first');
    const handle = await handleFor(dir);
    const tree = await snapshotWorkTree(handle);
    await keepSnapshot(handle, tree);
    const names = [snapshotRef(handle), owedSnapshotRef(handle), 'refs/heads/main', 'refs/autopilot/none/x'];
    expect(refsOnDisk(handle, names)).toEqual(gitSays(dir, names));
    git(dir, 'pack-refs', '--all');
    expect(refsOnDisk(handle, names)).toEqual(gitSays(dir, names));
    expect(refsOnDisk(handle, names)?.get(snapshotRef(handle))).toBe(tree);
    const linked = join(tempDir(), 'linked');
    git(dir, 'worktree', 'add', '--quiet', '-b', 'side', linked);
    const other = await handleFor(linked);
    expect(other.commonDir).toBe(join(dir, '.git'));
    expect(refsOnDisk(other, names)).toEqual(gitSays(linked, names));
  });

  it('no answer where the files cannot tell for certain: a symbolic ref, another ref storage, a handle not made by openGit', async () => {
    const dir = newRepo();
    write(dir, 'a.md');
    commit(dir, 'first');
    const handle = await handleFor(dir);
    git(dir, 'symbolic-ref', 'refs/autopilot/start/linked', 'refs/heads/main');
    expect(refsOnDisk(handle, ['refs/autopilot/start/linked'])).toBeUndefined();
    expect(refsOnDisk({ ...handle, commonDir: undefined }, ['refs/heads/main'])).toBeUndefined();
    writeFileSync(join(dir, '.git', 'reftable'), '');
    expect(refsOnDisk(handle, ['refs/heads/main'])).toBeUndefined();
  });

  it('releaseSnapshot drops a packed snapshot ref that names the tree and keeps the owed one naming another: 1 dropped, 1 kept', async () => {
    const dir = newRepo();
    write(dir, 'a.md');
    commit(dir, 'first');
    const handle = await handleFor(dir);
    const tree = await snapshotWorkTree(handle);
    write(dir, 'b.md');
    const later = await snapshotWorkTree(handle);
    await keepSnapshot(handle, tree);
    await keepOwedSnapshot(handle, later);
    git(dir, 'pack-refs', '--all');
    await releaseSnapshot(handle, tree);
    expect(gitSays(dir, [snapshotRef(handle), owedSnapshotRef(handle)])).toEqual(
      new Map([
        [snapshotRef(handle), null],
        [owedSnapshotRef(handle), later],
      ]),
    );
  });
});
