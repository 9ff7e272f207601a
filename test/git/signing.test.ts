/**
 * Progress commits signed as `git commit` signs them: `commit.gpgSign`,
 * `user.signingKey`, `gpg.format` (ssh and openpgp), with throwaway keys made
 * here; and a key that cannot sign fails the commit loudly, with nothing
 * half-done.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitCommandError, SigningFailed } from '../../src/git/errors.js';
import { progressCommit } from '../../src/git/progress-commit.js';
import { progressMessage } from '../../src/git/progress-message.js';
import { openGit } from '../../src/git/repository.js';
import { git, handleFor, repoWith, tempDir, write } from '../helpers/git.js';

const POINTER = '_docs/_autopilot_state.md';
const message = progressMessage({ flow: 'greenfield', step: 3, steps: 10, name: 'Plan', status: 'completed', cycle: 1, session: 's-1', event: 3 });
const EMAIL = 'test.person@example.invalid';

/** Whether a program is installed (a missing one fails to start: ENOENT). */
const installed = (command: string) => spawnSync(command, ['--version'], { stdio: 'ignore' }).error === undefined;

/** The branch, the index, the work tree and the git folder: what a failed commit must leave as it was. */
function everything(repo: string) {
  return {
    head: git(repo, 'rev-parse', 'HEAD'),
    reflog: git(repo, 'reflog', '--format=%H %gs', 'main'),
    index: createHash('sha1')
      .update(readFileSync(join(repo, '.git/index')))
      .digest('hex'),
    status: git(repo, '--no-optional-locks', 'status', '--porcelain=v1', '--untracked-files=all'),
    gitDir: readdirSync(join(repo, '.git')).sort(),
  };
}

/** A repository whose pointer changed, with `commit.gpgSign` on. */
function signingRepo(): string {
  const repo = repoWith({ [POINTER]: 'step: 2\n', 'staged.md': 'x\n' });
  git(repo, 'config', 'commit.gpgSign', 'true');
  write(repo, 'staged.md', 'staged by the person\n');
  git(repo, 'add', 'staged.md');
  write(repo, POINTER, 'step: 3\n');
  return repo;
}

describe('signed progress commits, ssh', () => {
  /** A fresh ed25519 key, no passphrase, and a file of allowed signers that trusts it. */
  function sshKey(): { key: string; allowed: string } {
    const dir = tempDir();
    const key = join(dir, 'key');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', EMAIL, '-f', key]);
    const allowed = join(dir, 'allowed_signers');
    writeFileSync(allowed, `${EMAIL} ${readFileSync(`${key}.pub`, 'utf8')}`);
    return { key, allowed };
  }

  it.skipIf(!installed('ssh-keygen'))(
    'signs with the configured key when commit.gpgSign is set, and git verify-commit accepts it; not when it is not',
    async () => {
      const repo = signingRepo();
      const { key, allowed } = sshKey();
      git(repo, 'config', 'gpg.format', 'ssh');
      git(repo, 'config', 'user.signingKey', `${key}.pub`);
      git(repo, 'config', 'gpg.ssh.allowedSignersFile', allowed);
      const sha = await progressCommit(await handleFor(repo), { files: [POINTER], ...message });
      expect(git(repo, 'cat-file', 'commit', sha!)).toMatch(/^gpgsig -----BEGIN SSH SIGNATURE-----$/m);
      const verified = spawnSync('git', ['verify-commit', '--raw', sha!], { cwd: repo, encoding: 'utf8' });
      expect(verified.status, verified.stderr).toBe(0);
      expect(verified.stderr).toMatch(/Good "git" signature for test\.person@example\.invalid/);
      expect(git(repo, 'log', '-1', '--format=%G?', sha!)).toBe('G\n');
      // The person's staging is untouched by a signed commit too.
      expect(git(repo, '--no-optional-locks', 'status', '--porcelain=v1')).toBe('M  staged.md\n');

      write(repo, POINTER, 'step: 4\n');
      const unsigned = await progressCommit(await handleFor(repo), { files: [POINTER], ...message, sign: false });
      expect(git(repo, 'cat-file', 'commit', unsigned!)).not.toMatch(/^gpgsig/m);
      git(repo, 'config', 'commit.gpgSign', 'false');
      write(repo, POINTER, 'step: 5\n');
      const off = await progressCommit(await handleFor(repo), { files: [POINTER], ...message });
      expect(git(repo, 'cat-file', 'commit', off!)).not.toMatch(/^gpgsig/m);
    },
  );

  it("a signing key that does not exist fails the commit with git's words, and nothing is half-done", async () => {
    const repo = signingRepo();
    git(repo, 'config', 'gpg.format', 'ssh');
    git(repo, 'config', 'user.signingKey', join(tempDir(), 'no-such-key.pub'));
    const before = everything(repo);
    const attempt = progressCommit(await handleFor(repo), { files: [POINTER], ...message });
    await expect(attempt).rejects.toBeInstanceOf(SigningFailed);
    await expect(attempt).rejects.toBeInstanceOf(GitCommandError);
    await expect(attempt).rejects.toThrow(/could not be signed, so nothing was committed.*no-such-key\.pub/s);
    expect(everything(repo)).toEqual(before);
  });
});

describe.skipIf(!installed('gpg'))('signed progress commits, openpgp (gpg)', () => {
  // A short path: gpg-agent's socket lives in it.
  const home = mkdtempSync('/tmp/ap-gpg-');
  const env = { ...process.env, GNUPGHOME: home };
  afterAll(() => {
    spawnSync('gpgconf', ['--kill', 'all'], { env, stdio: 'ignore' });
    rmSync(home, { recursive: true, force: true });
  });

  it('signs with the key user.signingKey names; git verify-commit accepts it; a key gpg lacks fails loudly with nothing half-done', async () => {
    execFileSync('gpg', ['--batch', '--passphrase', '', '--quick-gen-key', `Test Person <${EMAIL}>`, 'ed25519', 'sign', 'never'], { env, stdio: 'ignore' });
    const repo = signingRepo();
    git(repo, 'config', 'gpg.format', 'openpgp');
    git(repo, 'config', 'user.signingKey', EMAIL);
    const { handle } = await openGit(repo, { env });
    const sha = await progressCommit(handle!, { files: [POINTER], ...message });
    expect(git(repo, 'cat-file', 'commit', sha!)).toMatch(/^gpgsig -----BEGIN PGP SIGNATURE-----$/m);
    const verified = spawnSync('git', ['verify-commit', sha!], { cwd: repo, encoding: 'utf8', env });
    expect(verified.status, verified.stderr).toBe(0);
    expect(verified.stderr).toMatch(/Good signature from "Test Person <test\.person@example\.invalid>"/);

    write(repo, POINTER, 'step: 4\n');
    git(repo, 'config', 'user.signingKey', 'nobody@example.invalid');
    const before = everything(repo);
    const attempt = progressCommit(handle!, { files: [POINTER], ...message });
    await expect(attempt).rejects.toBeInstanceOf(SigningFailed);
    await expect(attempt).rejects.toThrow(/gpg failed to sign the data/);
    expect(everything(repo)).toEqual(before);
  });
});
