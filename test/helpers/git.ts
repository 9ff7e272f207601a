/**
 * Real git repositories for the git layer's tests, in temporary folders
 * removed after each test. Every repository gets its own identity: CI is a
 * bare machine with no global git configuration.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';
import { openGit, type GitHandle } from '../../src/git/repository.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh empty folder (its real path: macOS puts tmpdir behind a symlink), removed after the test. */
export function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'autopilot-git-')));
  made.push(dir);
  return dir;
}

/** `git <args>` in `dir`; its stdout. Throws with git's stderr on failure. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
}

/** `git <args>` that is expected to fail (a conflicting merge): its exit code. */
export function gitFails(dir: string, ...args: string[]): number {
  try {
    git(dir, ...args);
    return 0;
  } catch (error) {
    return (error as { status?: number }).status ?? -1;
  }
}

export function identify(dir: string, name = 'Test Person'): void {
  git(dir, 'config', 'user.name', name);
  git(dir, 'config', 'user.email', `${name.toLowerCase().replace(/\W+/g, '.')}@example.invalid`);
  git(dir, 'config', 'commit.gpgSign', 'false');
}

/** A new repository on branch `main` with an identity, no commit yet. */
export function newRepo(dir = tempDir()): string {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '--quiet', '--initial-branch=main');
  identify(dir);
  return dir;
}

export function write(dir: string, rel: string, text = `written for ${rel}\n`): void {
  const file = join(dir, rel);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** Writes the files and commits them with whatever else is staged; the new commit's sha. */
export function commit(dir: string, message: string, files: Record<string, string> = {}): string {
  for (const [rel, text] of Object.entries(files)) write(dir, rel, text);
  if (Object.keys(files).length > 0) git(dir, '--literal-pathspecs', 'add', '--', ...Object.keys(files));
  git(dir, 'commit', '--quiet', '--allow-empty', '--message', message);
  return git(dir, 'rev-parse', 'HEAD').trim();
}

/** A git repository with a first commit (a README): progress commits are on. */
export function committedRepo(): string {
  const dir = newRepo();
  commit(dir, 'initial', { 'README.md': 'a project\n' });
  return dir;
}

/** A repository with one commit holding the files. */
export function repoWith(files: Record<string, string>): string {
  const dir = newRepo();
  commit(dir, 'initial', files);
  return dir;
}

export async function handleFor(root: string): Promise<GitHandle> {
  const { handle, reason } = await openGit(root);
  if (!handle) throw new Error(`openGit(${root}): ${reason}`);
  return handle;
}

/** What a person sees of their own work: staged, unstaged and untracked, file by file and line by line. */
export function userView(repo: string) {
  return {
    staged: git(repo, 'diff', '--cached'),
    unstaged: git(repo, 'diff'),
    // --no-optional-locks: the status does not write the refreshed index, so the index file can be compared byte for byte.
    status: git(repo, '--no-optional-locks', 'status', '--porcelain=v1', '--untracked-files=all'),
  };
}

/** Everything a failed progress commit must leave as it was: the branch, the index, the work tree, the git folder. */
export function gitState(repo: string) {
  return {
    head: git(repo, 'rev-parse', 'HEAD'),
    reflog: git(repo, 'reflog', '--format=%H %gs', 'main'),
    index: git(repo, 'ls-files', '--stage'),
    indexFile: createHash('sha1')
      .update(readFileSync(join(repo, '.git/index')))
      .digest('hex'),
    ...userView(repo),
    gitDir: readdirSync(join(repo, '.git')).sort(),
  };
}

/** The paths a commit changed, with git's letter for each (A, M, D). */
export const changedPaths = (repo: string, rev = 'HEAD') => git(repo, 'show', '--name-status', '--format=', rev).trim().split('\n').sort();
