/**
 * The README's quick start, walked as a new user would (issue 25, point 7):
 * its one block of commands is read from the README itself, not copied here,
 * and run in a fresh npm project in a real git repository, the package
 * installed from the packed tarball (offline: it bundles every dependency).
 * After `uninstall` the repository is as it was before `init`: the same git
 * status, every file byte for byte, only the run's `_docs/` added (kept, as
 * the README says, unless `--remove-docs`).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/engine.js';
import { identify, tempDir } from '../helpers/git.js';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const env = { ...process.env, AUTOPILOT_SESSION: '', npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };

function run(cmd: string, args: string[], cwd: string) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env });
  return { code: r.status ?? -1, stdout: r.stdout, out: `${r.stdout}\n${r.stderr}` };
}

/** The commands of the README's quick start: its first `sh` block, comments and comment lines dropped. */
function quickStart(): string[][] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Quick start\n'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  return block
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, '').trim())
    .filter((line) => line !== '')
    .map((line) => line.split(/\s+/));
}

/** Every file outside .git and node_modules, with a hash of its bytes. */
function files(dir: string, under = dir): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(under, { withFileTypes: true })) {
    const path = join(under, entry.name);
    if (entry.name === '.git' || entry.name === 'node_modules') continue;
    if (entry.isDirectory()) Object.assign(out, files(dir, path));
    else out[relative(dir, path)] = createHash('sha1').update(readFileSync(path)).digest('hex');
  }
  return out;
}

describe("the README's quick start", () => {
  it('walks in a fresh project from the tarball: 5 commands (install, init, next, status, uninstall), the repository as it was', () => {
    const commands = quickStart();
    expect(commands.map((c) => c.slice(0, 3).join(' '))).toEqual(['npm install --save-dev', 'npx --no --', 'npx --no --', 'npx --no --', 'npx --no --']);
    const tmp = tempDir();
    const packs = join(tmp, 'packs');
    mkdirSync(packs);
    // dist/ is current (the global setup built it).
    const packed = run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', packs], ROOT);
    expect(packed.code, packed.out).toBe(0);
    const tarball = join(packs, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);

    // A new user's project: npm init, git init, a first commit.
    const project = join(tmp, 'my-project');
    mkdirSync(project);
    expect(run(npm, ['init', '-y'], project).code).toBe(0);
    expect(run('git', ['init', '--quiet', '--initial-branch=main'], project).code).toBe(0);
    identify(project);
    run('git', ['add', '-A'], project);
    expect(run('git', ['commit', '--quiet', '-m', 'A new project'], project).code).toBe(0);

    const said: Record<string, string> = {};
    let before: { status: string; files: Record<string, string> } | undefined;
    for (const [cmd, ...args] of commands) {
      // The package, until it is on npm: the tarball `npm pack` made, installed with no network.
      const argv = cmd === 'npm' ? [...args.map((a) => (a === 'md-autopilot' ? tarball : a)), '--offline'] : args;
      const r = run(cmd === 'npm' ? npm : npx, argv, project);
      expect(r.code, `${cmd} ${argv.join(' ')}\n${r.out}`).toBe(0);
      said[argv.find((a) => ['install', 'init', 'next', 'status', 'uninstall'].includes(a))!] = r.stdout;
      if (cmd === 'npm') before = { status: run('git', ['status', '--porcelain'], project).stdout, files: files(project) };
    }
    expect(Object.keys(said)).toEqual(['install', 'init', 'next', 'status', 'uninstall']);
    expect(said.init).toMatch(/^Commit: {2}git add .* && git commit -m "Set up autopilot"$/m);
    expect(said.init).toMatch(/^Ignored: .*node_modules\/ \(\.gitignore\)$/m);
    expect(said.init).not.toMatch(/^! /m);
    expect(said.next).toContain('▶ Start step 1 of 10 · Problem (greenfield)');
    expect(said.status).toContain('Step      1 of 10 · Problem');
    expect(said.uninstall).toContain('Kept _docs/');

    // As it was: the same status but the run's _docs/, every other file byte for byte.
    const after = run('git', ['status', '--porcelain'], project).stdout;
    expect(after.split('\n').filter((l) => l !== '?? _docs/')).toEqual(before!.status.split('\n'));
    const now = files(project);
    expect(Object.fromEntries(Object.entries(now).filter(([path]) => !path.startsWith('_docs/')))).toEqual(before!.files);
    expect(
      Object.keys(now)
        .filter((path) => path.startsWith('_docs/'))
        .sort(),
    ).toEqual([
      '_docs/_autopilot/cache/index-checked',
      '_docs/_autopilot/cache/journal-chain.json',
      '_docs/_autopilot/journal.jsonl',
      '_docs/_autopilot/lease.json',
      '_docs/_autopilot_state.md',
    ]);
  });
});
