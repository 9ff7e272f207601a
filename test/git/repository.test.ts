import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { gitState, openGit } from '../../src/git/repository.js';
import { ROOT } from '../helpers/engine.js';
import { commit, git, gitFails, handleFor, newRepo, repoWith, tempDir } from '../helpers/git.js';

/** A folder holding nothing but a `node` link: a PATH on which git cannot be found. */
function pathWithOnlyNode(): string {
  const bin = join(tempDir(), 'bin');
  mkdirSync(bin);
  symlinkSync(process.execPath, join(bin, 'node'));
  return bin;
}

describe('openGit', () => {
  it('opens a work tree from its top or from a folder inside it, knowing where root sits', async () => {
    const top = repoWith({ 'packages/app/README.md': 'x\n' });
    const fromTop = await handleFor(top);
    expect(fromTop).toMatchObject({ root: top, top, prefix: '', gitDir: join(top, '.git') });
    expect(fromTop.objectFormat).toBe('sha1');
    expect(await handleFor(join(top, 'packages/app'))).toMatchObject({ root: join(top, 'packages/app'), top, prefix: 'packages/app/' });
  });

  it('is off, with the reason, outside a work tree: a plain folder, a bare repository, the .git folder', async () => {
    const plain = tempDir();
    expect(await openGit(plain)).toEqual({ handle: undefined, reason: expect.stringMatching(/is not inside a git work tree/) });
    const bare = tempDir();
    git(bare, 'init', '--quiet', '--bare');
    expect((await openGit(bare)).reason).toMatch(/is not inside a git work tree/);
    expect((await openGit(join(newRepo(), '.git'))).reason).toMatch(/is not inside a git work tree/);
    expect((await openGit(join(plain, 'missing'))).reason).toMatch(/is not a folder/);
    writeFileSync(join(plain, 'file'), 'x');
    expect((await openGit(join(plain, 'file'))).reason).toMatch(/is not a folder/);
  });

  it('asks no `git version` of a git that knows --show-object-format; asks it of an older one: 2.28 opened, 2.26 off with its version', async () => {
    const repo = newRepo();
    const bin = join(tempDir(), 'bin');
    mkdirSync(bin);
    const log = join(bin, 'calls.log');
    // A git that logs each command; with OLD set it says that version and echoes --show-object-format as rev-parse echoes an option it does not know.
    writeFileSync(
      join(bin, 'git'),
      `#!/bin/sh\necho "$1" >> ${JSON.stringify(log)}\n` +
        'if [ -n "$OLD" ] && [ "$1" = version ]; then echo "git version $OLD"; exit 0; fi\n' +
        'if [ -n "$OLD" ]; then for a; do shift; [ "$a" = --show-object-format ] && a=--no-such-option; set -- "$@" "$a"; done; fi\n' +
        `exec ${JSON.stringify(spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim())} "$@"\n`,
      { mode: 0o755 },
    );
    const env = (old?: string) => ({ ...process.env, PATH: `${bin}:${process.env.PATH}`, ...(old ? { OLD: old } : {}) });
    const calls = () =>
      spawnSync('sh', ['-c', `cat ${JSON.stringify(log)}; rm -f ${JSON.stringify(log)}`], { encoding: 'utf8' })
        .stdout.trim()
        .split('\n');
    expect((await openGit(repo, { env: env() })).handle?.objectFormat).toBe('sha1');
    expect(calls()).toEqual(['rev-parse']);
    expect((await openGit(repo, { env: env('2.28.0') })).handle).toMatchObject({ top: repo, objectFormat: 'sha1' });
    expect(calls()).toEqual(['rev-parse', 'version']);
    expect(await openGit(repo, { env: env('2.26.2') })).toEqual({
      handle: undefined,
      reason: "git version 2.26.2 is older than git 2.27, which autopilot's git features need",
    });
  });

  it('is off when git is not on PATH (given environment)', async () => {
    const repo = newRepo();
    expect(await openGit(repo, { env: { ...process.env, PATH: pathWithOnlyNode() } })).toEqual({
      handle: undefined,
      reason: 'git is not installed or not on PATH',
    });
  });

  it('is off when git is not on PATH (a bundled CLI in a process whose PATH holds only node)', async () => {
    // Bundled as scripts/build.mjs bundles the CLI, so this also proves the spawn of git survives the bundle.
    const dir = tempDir();
    writeFileSync(
      join(dir, 'entry.ts'),
      `import { openGit } from ${JSON.stringify(join(ROOT, 'src/git/repository.ts'))};\n` +
        'const { handle, reason } = await openGit(process.argv[2]);\n' +
        'console.log(JSON.stringify({ opened: handle !== undefined, reason }));\n',
    );
    await build({
      entryPoints: [join(dir, 'entry.ts')],
      outfile: join(dir, 'entry.mjs'),
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      banner: { js: "import{createRequire as __apRequire}from'node:module';const require=__apRequire(import.meta.url);" },
      logLevel: 'silent',
    });
    const repo = newRepo();
    const run = (PATH: string) => spawnSync(process.execPath, [join(dir, 'entry.mjs'), repo], { encoding: 'utf8', env: { PATH } });
    const without = run(pathWithOnlyNode());
    expect(without.stderr).toBe('');
    expect(JSON.parse(without.stdout)).toEqual({ opened: false, reason: 'git is not installed or not on PATH' });
    expect(JSON.parse(run(process.env.PATH ?? '').stdout)).toEqual({ opened: true });
  });
});

describe('gitState', () => {
  it('names the branch and its commit, or only the branch before the first commit', async () => {
    const repo = newRepo();
    expect(await gitState(await handleFor(repo))).toEqual({ branch: 'main', detached: false });
    const sha = commit(repo, 'first', { 'a.txt': 'a\n' });
    expect(await gitState(await handleFor(repo))).toEqual({ branch: 'main', detached: false, head: sha, tree: git(repo, 'rev-parse', 'HEAD^{tree}').trim() });
  });

  it('sees a detached HEAD', async () => {
    const repo = repoWith({ 'a.txt': 'a\n' });
    git(repo, 'switch', '--quiet', '--detach');
    expect(await gitState(await handleFor(repo))).toEqual({
      detached: true,
      head: git(repo, 'rev-parse', 'HEAD').trim(),
      tree: git(repo, 'rev-parse', 'HEAD^{tree}').trim(),
    });
  });

  it('sees a merge stopped on a conflict, also in a linked work tree', async () => {
    const repo = repoWith({ 'a.txt': 'base\n' });
    const tree = join(tempDir(), 'linked');
    git(repo, 'worktree', 'add', '--quiet', '-b', 'side', tree);
    commit(repo, 'main edit', { 'a.txt': 'main\n' });
    commit(tree, 'side edit', { 'a.txt': 'side\n' });
    expect(gitFails(tree, 'merge', '--quiet', 'main')).not.toBe(0);
    expect(await gitState(await handleFor(tree))).toMatchObject({ branch: 'side', operation: 'merge' });
    // The main work tree is not merging.
    expect((await gitState(await handleFor(repo))).operation).toBeUndefined();
  });

  it('sees a bisect', async () => {
    const repo = repoWith({ 'a.txt': 'a\n' });
    git(repo, 'bisect', 'start');
    expect(await gitState(await handleFor(repo))).toMatchObject({ branch: 'main', operation: 'bisect' });
  });
});
