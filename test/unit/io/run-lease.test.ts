/**
 * A named run's lease lives in the repository's common git folder, found from
 * the `.git` files (io/git-folders.ts): the same file from every linked work
 * tree, and the path gate lets autopilot write in exactly that run's folder
 * there. Real git repositories and a real `git worktree add`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.js';
import { gatePath, openRepo } from '../../../src/io/repo.js';
import { runLeaseFile } from '../../../src/io/run.js';
import { localLeasePlace } from '../../../src/io/lease-sightings.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folder(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ap-run-lease-')));
  made.push(dir);
  return dir;
}

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });

function repository(): { main: string; linked: string } {
  const main = folder();
  git(main, 'init', '-q', '-b', 'main');
  git(main, 'config', 'user.name', 'Lease Test');
  git(main, 'config', 'user.email', 'lease@example.com');
  writeFileSync(join(main, 'README.md'), 'x\n');
  git(main, 'add', '-A');
  git(main, 'commit', '-q', '-m', 'first');
  const linked = join(folder(), 'linked');
  git(main, 'worktree', 'add', '-q', '-b', 'other', linked);
  return { main, linked };
}

const refused = (f: () => void) => {
  try {
    f();
    return false;
  } catch (error) {
    return error instanceof InputError;
  }
};

describe('a named run’s lease', () => {
  it('2 work trees, 1 lease file a run: <common>/autopilot/runs/<name>/lease.json; the default run’s stays in _docs/_autopilot/', () => {
    const { main, linked } = repository();
    const fromMain = openRepo({ run: 'login' }, main);
    const fromLinked = openRepo({ run: 'login' }, linked);
    const lease = join(main, '.git', 'autopilot', 'runs', 'login', 'lease.json');
    expect(fromMain.leaseFile).toBe(lease);
    expect(fromLinked.leaseFile).toBe(lease);
    expect(runLeaseFile(linked, 'login')).toBe(lease);
    expect(openRepo({}, linked).leaseFile).toBe(join(linked, '_docs', '_autopilot', 'lease.json'));
    expect(runLeaseFile(linked, 'default')).toBeUndefined();
    // Outside git: the run's own folder.
    const plain = folder();
    expect(openRepo({ run: 'login' }, plain).leaseFile).toBe(join(plain, '_docs', '_runs', 'login', '_autopilot', 'lease.json'));
  });

  it('the path gate from a linked work tree: its run’s shared folder allowed (2 paths), 3 other places of the common folder refused', () => {
    const { main, linked } = repository();
    const repo = openRepo({ run: 'login' }, linked);
    expect(refused(() => gatePath(repo, repo.leaseFile))).toBe(false);
    expect(refused(() => gatePath(repo, join(repo.sharedDir!, 'lease.json.tmp')))).toBe(false);
    for (const elsewhere of [join(main, '.git', 'config'), join(main, '.git', 'autopilot', 'runs', 'other', 'lease.json'), join(main, 'README.md')])
      expect(
        refused(() => gatePath(repo, elsewhere)),
        elsewhere,
      ).toBe(true);
  });

  it('the notes of leases seen: the default run’s place as ever, a named run’s its own', () => {
    expect(localLeasePlace({ run: 'default' })).toBe('lease.json');
    expect(localLeasePlace({ run: 'login' })).toBe('run:login');
  });
});
