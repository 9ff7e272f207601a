/**
 * Progress commits that cannot lie (docs/git.md), through the built command
 * line and real git: the step's work in its commit and nothing the person had
 * changed before; a commit stopped by a kill or by git itself owed, said,
 * and made exactly once by the next command; signed as `git commit` signs.
 * After every fault: HEAD, the index and the journal agree, and nothing of
 * autopilot's is left in `.git/`.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autopilot, journal, read, write, type Run } from '../helpers/cli.js';
import { ROOT } from '../helpers/engine.js';
import { git, gitFails, newRepo, tempDir } from '../helpers/git.js';

const BIN = join(ROOT, 'bin', 'autopilot.js');

/** A repository on `main` with a greenfield run begun and committed, progress commits on (`commit: true`). */
function project(): string {
  const dir = newRepo();
  write(dir, 'README.md', '# project\n');
  write(dir, '.autopilot/config.yml', 'commit: true\n');
  expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'start');
  return dir;
}

/** The commits carrying an `Autopilot-Event` trailer, newest first, as `event` values. */
const progressEvents = (dir: string) =>
  git(dir, 'log', '--format=%(trailers:key=Autopilot-Event,valueonly)')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/** Anything of autopilot's, or a lock, left in the git folder. */
function leftovers(dir: string): string[] {
  const gitDir = join(dir, '.git');
  const locks = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? locks(join(d, e.name)) : e.name.endsWith('.lock') ? [e.name] : []));
  return [...readdirSync(gitDir).filter((n) => n.startsWith('autopilot-') || n.endsWith('.lock')), ...locks(join(gitDir, 'refs'))];
}

/** HEAD and the index agree on every path HEAD's last commit changed: no path the person's next `git commit` would revert. */
function indexBehindHead(dir: string): string[] {
  const changed = git(dir, 'diff-tree', '--no-commit-id', '--name-only', '-r', 'HEAD').split('\n').filter(Boolean);
  return changed.filter((path) => git(dir, 'diff', '--cached', '--name-only', '--', path).trim() !== '');
}

/** A copy of a repository, made for a trial. */
function copyOf(dir: string): string {
  const copy = tempDir();
  cpSync(dir, copy, { recursive: true });
  return copy;
}

/** Step 1 worked and ready for `done`. */
function problemWritten(dir: string): void {
  expect(autopilot(dir, 'next').code).toBe(0);
  // As the problem skill says: each file from its template, filled.
  write(dir, '_docs/00_problem/problem.md');
  write(dir, '_docs/00_problem/acceptance_criteria.md');
}

describe("a progress commit holds the step's work", () => {
  it('and nothing the person had changed or staged before the step, which stays as it was', () => {
    const dir = project();
    write(dir, 'notes/staged.md', 'the person staged this\n');
    git(dir, 'add', 'notes/staged.md');
    write(dir, 'README.md', '# project\n\nthe person was editing this\n');
    const before = { staged: git(dir, 'diff', '--cached', '--name-only'), modified: git(dir, 'diff', '--name-only') };
    problemWritten(dir);
    // The step's work: the evidence, code, a changed file — even one that drops autopilot's own ignore lines: its lease and lock stay out.
    write(dir, 'src/parse.js', 'export const parse = () => 1;\n');
    write(dir, 'src/store.js', 'export const store = () => 2;\n');
    rmSync(join(dir, '.gitignore'));
    write(dir, '.gitignore', 'build/\n');
    write(dir, 'build/out.js', 'ignored\n');
    expect(autopilot(dir, 'done').code).toBe(0);
    const files = git(dir, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort();
    expect(files).toEqual([
      '.gitignore',
      '_docs/00_problem/acceptance_criteria.md',
      '_docs/00_problem/problem.md',
      '_docs/_autopilot/journal.jsonl',
      '_docs/_autopilot_state.md',
      'src/parse.js',
      'src/store.js',
    ]);
    // The body says the shape of the work, by folder.
    expect(git(dir, 'log', '-1', '--format=%b')).toMatch(/^src\/ \(2\): parse\.js.*, store\.js/m);
    expect({
      staged: git(dir, 'diff', '--cached', '--name-only'),
      modified: git(dir, 'diff', '--name-only').replace('_docs/_autopilot/journal.jsonl\n', ''),
    }).toEqual(before);
  });

  it('with `commit: evidence`, only the state and the step’s files, as before', () => {
    const dir = project();
    write(dir, '.autopilot/config.yml', 'commit: evidence\n');
    problemWritten(dir);
    write(dir, 'src/parse.js', 'export const parse = () => 1;\n');
    expect(autopilot(dir, 'done').code).toBe(0);
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort()).toEqual([
      '_docs/00_problem/acceptance_criteria.md',
      '_docs/00_problem/problem.md',
      '_docs/_autopilot/journal.jsonl',
      '_docs/_autopilot_state.md',
    ]);
  });
});

describe('a progress commit stopped after the state was written is owed, said, and made once by the next command', () => {
  for (const at of ['before-progress-commit', 'after-progress-commit'] as const) {
    it(`killed at ${at}`, () => {
      const dir = project();
      problemWritten(dir);
      const killed = spawnSync(process.execPath, [BIN, '-C', dir, 'done'], { env: { ...process.env, AUTOPILOT_SESSION: '', AUTOPILOT_CRASH_AT: at } });
      expect(killed.signal).toBe('SIGKILL');
      const status = autopilot(dir, 'status', '--json').json<{ progress_commit_owed?: { event: number } }>();
      const owed = journal(dir).findLast((e) => e.event === 'progress_commit_owed')!;
      if (at === 'before-progress-commit') {
        expect(status.progress_commit_owed).toMatchObject({ event: owed.seq, files: expect.arrayContaining(['_docs/00_problem/problem.md']) });
        expect(autopilot(dir, 'check').code).toBe(2);
      } else {
        // Made before the kill: HEAD holds the journal as it is, so nothing is owed.
        expect(status).not.toHaveProperty('progress_commit_owed');
        expect(progressEvents(dir)).toEqual([String(owed.seq)]);
      }
      // The retry of the very command: the commit first (found, or made), then the duplicate answer.
      const retry = autopilot(dir, 'done', '--json');
      expect(retry.code, retry.stdout).toBe(0);
      expect(progressEvents(dir)).toEqual([String(owed.seq)]);
      // Recognised by what HEAD holds: nothing is appended after the commit, and nothing of autopilot's is left modified.
      expect(journal(dir).filter((e) => e.event === 'progress_commit_made')).toEqual([]);
      expect(git(dir, 'status', '--porcelain')).toBe('');
      expect(autopilot(dir, 'status', '--json').json()).not.toHaveProperty('progress_commit_owed');
      expect(autopilot(dir, 'check').code).toBe(0);
      expect(indexBehindHead(dir)).toEqual([]);
      expect(leftovers(dir)).toEqual([]);
    });
  }

  it('git refusing (a reference-transaction hook): exit 1 with git’s words, the step recorded, the commit owed until git lets it, then made once', () => {
    const dir = project();
    problemWritten(dir);
    const hook = join(dir, '.git', 'hooks', 'reference-transaction');
    mkdirSync(join(dir, '.git', 'hooks'), { recursive: true });
    writeFileSync(hook, '#!/bin/sh\n[ "$1" = prepared ] && { echo "refs are frozen today" >&2; exit 1; }\nexit 0\n');
    chmodSync(hook, 0o755);
    const head = git(dir, 'rev-parse', 'HEAD');
    const done = autopilot(dir, 'done', '--json');
    expect(done.code).toBe(1);
    expect(done.json<{ error: { code: string; message: string } }>().error).toMatchObject({
      code: 'git_failed',
      message: expect.stringContaining('refs are frozen today'),
    });
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
    expect(journal(dir).some((e) => e.event === 'step_completed' && e.step === 1)).toBe(true);
    expect(autopilot(dir, 'status').stdout).toMatch(/Commit {4}the progress commit of event \d+ \(step 1 Problem completed\) is owed/);
    // Still refusing: the next command says so, and does nothing else.
    const blocked = autopilot(dir, 'next', '--json');
    expect(blocked.code).toBe(1);
    expect(journal(dir).filter((e) => e.event === 'step_started' && e.step === 2)).toHaveLength(0);
    // The message names the way out; `commit: false` takes it: the commands go on, and the commit is never made.
    expect(blocked.json<{ error: { hint: string } }>().error.hint).toContain('commit: false');
    const offDir = copyOf(dir);
    write(offDir, '.autopilot/config.yml', 'commit: false\n');
    expect(autopilot(offDir, 'next', '--json').json()).toMatchObject({ step: 2, outcome: 'work' });
    expect(autopilot(offDir, 'status', '--json').json()).toMatchObject({ progress_commits: { on: false } });
    rmSync(hook);
    expect(autopilot(dir, 'next', '--json').json()).toMatchObject({ step: 2, outcome: 'work' });
    expect(progressEvents(dir)).toHaveLength(1);
    expect(indexBehindHead(dir)).toEqual([]);
    expect(leftovers(dir)).toEqual([]);
  });

  it('a leftover ref lock from a killed git: exit 1 naming it, then made once when it is gone', () => {
    const dir = project();
    problemWritten(dir);
    writeFileSync(join(dir, '.git', 'refs', 'heads', 'main.lock'), '');
    const done = autopilot(dir, 'done', '--json');
    expect(done.code).toBe(1);
    expect(done.stdout).toContain('main.lock');
    rmSync(join(dir, '.git', 'refs', 'heads', 'main.lock'));
    expect(autopilot(dir, 'status', '--json').code).toBe(0);
    expect(autopilot(dir, 'next', '--json').code).toBe(0);
    expect(progressEvents(dir)).toHaveLength(1);
    expect(leftovers(dir)).toEqual([]);
  });
});

describe('kills at every git call of a progress commit, through the command line', () => {
  it('after each, the next command makes the commit exactly once, HEAD and the index agree, nothing left in .git', () => {
    // One repository made ready for `done`, copied for each kill.
    const template = project();
    problemWritten(template);
    // A `git` first on PATH that kills the autopilot process calling it at the Nth git command, after running it.
    const bin = tempDir();
    const real = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
    writeFileSync(
      join(bin, 'git'),
      `#!/bin/sh\nn=$(cat "$KILL_COUNT" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$KILL_COUNT"\n'${real}' "$@"; rc=$?\n[ "$n" = "$KILL_AT" ] && kill -9 $PPID\nexit $rc\n`,
    );
    chmodSync(join(bin, 'git'), 0o755);
    const env = (count: string, killAt: number) => ({
      ...process.env,
      AUTOPILOT_SESSION: '',
      PATH: `${bin}:${process.env.PATH}`,
      KILL_COUNT: count,
      KILL_AT: String(killAt),
    });
    // How many git commands one `done` with its commit runs, counted through the wrapper.
    const probe = copyOf(template);
    const count = join(tempDir(), 'count');
    spawnSync(process.execPath, [BIN, '-C', probe, 'done'], { env: env(count, 0) });
    const calls = Number(spawnSync('cat', [count], { encoding: 'utf8' }).stdout);
    expect(calls).toBeGreaterThan(5);

    let killed = 0;
    for (let n = 1; n <= calls; n++) {
      const dir = copyOf(template);
      const counter = join(tempDir(), 'count');
      const run = spawnSync(process.execPath, [BIN, '-C', dir, 'done'], { env: env(counter, n) });
      if (run.signal === 'SIGKILL') killed++;
      // Not killed: this run made fewer git calls than the probe (a leftover to clean, say), never reaching the Nth.
      else expect(Number(spawnSync('cat', [counter], { encoding: 'utf8' }).stdout), `git call ${n}`).toBeLessThan(n);
      const next = autopilot(dir, 'next', '--json');
      expect(next.code, `killed at git call ${n}: ${next.stdout}`).toBe(0);
      const owed = journal(dir).findLast((e) => e.event === 'progress_commit_owed');
      if (owed) expect(progressEvents(dir), `git call ${n}`).toEqual([String(owed.seq)]);
      expect(indexBehindHead(dir), `git call ${n}`).toEqual([]);
      expect(leftovers(dir), `git call ${n}`).toEqual([]);
    }
    console.log(`progress commit: ${killed} kills at ${calls} git calls of one \`done\`, each followed by a next that made the commit exactly once`);
    expect(killed).toBeGreaterThan(calls / 2);
  }, 240_000);
});

describe('signed as git commit signs', () => {
  it('with an ssh key and commit.gpgSign, verified by git verify-commit; a key that cannot sign fails the commit, nothing half-done', () => {
    const dir = project();
    const keys = tempDir();
    const key = join(keys, 'id_ed25519');
    expect(spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'test@example.invalid', '-f', key]).status).toBe(0);
    writeFileSync(join(keys, 'allowed'), `test@example.invalid ${spawnSync('cat', [`${key}.pub`], { encoding: 'utf8' }).stdout}`);
    git(dir, 'config', 'gpg.format', 'ssh');
    git(dir, 'config', 'user.signingKey', key);
    git(dir, 'config', 'gpg.ssh.allowedSignersFile', join(keys, 'allowed'));
    git(dir, 'config', 'commit.gpgSign', 'true');
    problemWritten(dir);
    expect(autopilot(dir, 'done').code).toBe(0);
    expect(spawnSync('git', ['verify-commit', 'HEAD'], { cwd: dir, encoding: 'utf8' }).status).toBe(0);

    git(dir, 'config', 'user.signingKey', join(keys, 'no-such-key'));
    expect(autopilot(dir, 'next').code).toBe(0);
    write(dir, '_docs/01_solution/solution_draft_01.md');
    const head = git(dir, 'rev-parse', 'HEAD');
    const done = autopilot(dir, 'done', '--json');
    expect(done.code).toBe(1);
    expect(done.stdout).toContain('could not be signed');
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
    expect(leftovers(dir)).toEqual([]);
    expect(existsSync(join(dir, '.git', 'index.lock'))).toBe(false);
  });
});

/** A repository on `main` with a greenfield run begun and committed, and no `commit:` setting: the default. */
function defaultProject(): string {
  const dir = newRepo();
  write(dir, 'README.md', '# project\n');
  const init = autopilot(dir, 'init', '--flow', 'greenfield');
  expect(init.code).toBe(0);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'start');
  return dir;
}

/** The refs autopilot keeps for a running step's snapshot. */
const snapshotRefs = (dir: string) => git(dir, 'for-each-ref', '--format=%(refname) %(objecttype)', 'refs/autopilot/start/').trim();

describe('by default, every step is committed in a repository with a first commit', () => {
  it('init says so and writes the one line that turns it off, commented out; each step is committed and leaves the tree clean', () => {
    const dir = newRepo();
    write(dir, 'README.md', '# project\n');
    const init = autopilot(dir, 'init', '--flow', 'greenfield');
    expect(init.stdout).toContain("Steps will be committed from the repository's first commit on");
    expect(init.stdout).toContain('`commit: false` in .autopilot/config.yml turns them off');
    expect(read(dir, '.autopilot/config.yml')).toMatch(/^# commit: false$/m);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'start');
    expect(autopilot(dir, 'init', '--json').json()).toMatchObject({ commits: expect.stringMatching(/^Steps are committed: /) });
    expect(autopilot(dir, 'status', '--json').json()).toMatchObject({ progress_commits: { on: true } });

    problemWritten(dir);
    // While the step runs, its start snapshot is kept by a ref of autopilot's own (a tree: `git log --all` passes it over).
    expect(snapshotRefs(dir)).toMatch(/^refs\/autopilot\/start\/[0-9a-f]{16} tree$/);
    write(dir, 'src/parse.js', 'export const parse = () => 1;\n');
    const done = autopilot(dir, 'done');
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/✓ Progress commit [0-9a-f]{8}/);
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n')).toContain('src/parse.js');
    // Nothing of autopilot's left modified: `git revert`, a branch switch go at once; the snapshot's ref is gone.
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(snapshotRefs(dir)).toBe('');
    expect(autopilot(dir, 'status').stdout).not.toContain('owed');
    expect(autopilot(dir, 'check').code).toBe(0);
    // A second step, the same, stopping at its decision (exit 3).
    expect(autopilot(dir, 'next').code).toBe(0);
    write(dir, '_docs/01_solution/solution_draft_01.md');
    expect(autopilot(dir, 'done').code).toBe(3);
    expect(progressEvents(dir)).toHaveLength(2);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('no first commit, or `commit: false`: no commit and no error; status says so', () => {
    const fresh = newRepo();
    write(fresh, 'README.md', '# project\n');
    expect(autopilot(fresh, 'init', '--flow', 'greenfield').code).toBe(0);
    problemWritten(fresh);
    const done = autopilot(fresh, 'done');
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).not.toMatch(/Progress commit|no progress commit/);
    expect(gitFails(fresh, 'rev-parse', '--verify', 'HEAD')).not.toBe(0);
    expect(autopilot(fresh, 'status', '--json').json()).toMatchObject({ progress_commits: { on: false, reason: expect.stringContaining('no first commit') } });
    expect(autopilot(fresh, 'status').stdout).toMatch(/^Commits {3}no progress commits: the branch has no first commit yet/m);

    const off = defaultProject();
    write(off, '.autopilot/config.yml', 'commit: false\n');
    git(off, 'commit', '-qam', 'commits off');
    const head = git(off, 'rev-parse', 'HEAD');
    problemWritten(off);
    expect(autopilot(off, 'done').code).toBe(0);
    expect(git(off, 'rev-parse', 'HEAD')).toBe(head);
    expect(snapshotRefs(off)).toBe('');
    expect(autopilot(off, 'status', '--json').json()).toMatchObject({ progress_commits: { on: false, reason: expect.stringContaining('commit: false') } });
  });

  it('where git cannot take a commit (a detached HEAD, a hook that says no), the step is recorded, its commit owed and said, exit 0, and the next command goes on', () => {
    const dir = defaultProject();
    problemWritten(dir);
    git(dir, 'checkout', '-q', '--detach');
    const head = git(dir, 'rev-parse', 'HEAD');
    const detached = autopilot(dir, 'done', '--json');
    expect(detached.code, detached.stdout).toBe(0);
    expect(detached.json<{ notices: string[] }>().notices).toEqual([
      expect.stringContaining('no progress commit now for step 1 Problem (completed): HEAD is detached. The step is recorded and its commit is owed'),
    ]);
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
    expect(journal(dir).some((e) => e.event === 'step_completed' && e.step === 1)).toBe(true);
    git(dir, 'checkout', '-q', 'main');

    const hooked = defaultProject();
    problemWritten(hooked);
    const hook = join(hooked, '.git', 'hooks', 'reference-transaction');
    mkdirSync(join(hooked, '.git', 'hooks'), { recursive: true });
    writeFileSync(hook, '#!/bin/sh\n[ "$1" = prepared ] && { echo "refs are frozen today" >&2; exit 1; }\nexit 0\n');
    chmodSync(hook, 0o755);
    const refused = autopilot(hooked, 'done', '--json');
    expect(refused.code, refused.stdout).toBe(0);
    expect(refused.json<{ notices: string[] }>().notices).toEqual([expect.stringContaining('refs are frozen today')]);
    // Owed, not dropped (rule 11): no line says otherwise, and every command after carries it on.
    expect(journal(hooked).at(-1)).toMatchObject({ event: 'progress_commit_owed' });
    expect(autopilot(hooked, 'next', '--json').json()).toMatchObject({ step: 2, outcome: 'work' });
    expect(autopilot(hooked, 'status', '--json').json()).toHaveProperty('progress_commit_owed');
  });
});

describe('a commit is recognised by what its tree holds, never by its trailers alone', () => {
  /** The same step 1 done again: `next`, the evidence, `done`. */
  function redo(dir: string): Run {
    expect(autopilot(dir, 'next').code).toBe(0);
    write(dir, '_docs/00_problem/problem.md');
    write(dir, '_docs/00_problem/acceptance_criteria.md');
    return autopilot(dir, 'done');
  }

  it('after a `git revert` of the step and a redo, and after a start-over, `done` commits the step again', () => {
    const dir = defaultProject();
    expect(redo(dir).code).toBe(0);
    const first = git(dir, 'rev-parse', 'HEAD').trim();
    git(dir, 'revert', '--no-edit', 'HEAD');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    const again = redo(dir);
    expect(again.code, again.stderr).toBe(0);
    const second = git(dir, 'rev-parse', 'HEAD').trim();
    expect(again.stdout).toContain(`✓ Progress commit ${second.slice(0, 8)}`);
    expect(second).not.toBe(first);
    // The same event number and trailers as the reverted commit: the tree tells them apart.
    expect(progressEvents(dir)).toEqual([progressEvents(dir)[0], progressEvents(dir)[0]]);
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n')).toContain('_docs/00_problem/problem.md');
    expect(git(dir, 'status', '--porcelain')).toBe('');

    // Start over (docs/guarantees.md): the pointer and the journal moved aside, the run begun again.
    git(dir, 'rm', '-q', '-r', '_docs');
    git(dir, 'commit', '-qm', 'start over');
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    const over = redo(dir);
    expect(over.code, over.stderr).toBe(0);
    expect(over.stdout).toContain(`✓ Progress commit ${git(dir, 'rev-parse', 'HEAD').slice(0, 8)}`);
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n')).toEqual(
      expect.arrayContaining(['_docs/00_problem/problem.md', '_docs/_autopilot/journal.jsonl', '_docs/_autopilot_state.md']),
    );
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });
});

describe('the committed pointer is the one the command leaves, at every kill point', () => {
  const POINTS = [
    'after-lock',
    'mid-journal',
    'after-journal',
    'after-pointer-temp',
    'after-pointer',
    'before-progress-commit',
    'after-progress-commit',
    'before-release',
  ];
  it(`killed at each of the ${POINTS.length} crash points of \`done --commit\`, the retry commits the pointer it leaves, once, and leaves the tree clean`, () => {
    const template = project();
    problemWritten(template);
    git(template, 'add', '-A');
    git(template, 'commit', '-qm', 'step 1 under way');
    let killed = 0;
    for (const at of POINTS) {
      const dir = copyOf(template);
      const run = spawnSync(process.execPath, [BIN, '-C', dir, 'done', '--commit'], { env: { ...process.env, AUTOPILOT_SESSION: '', AUTOPILOT_CRASH_AT: at } });
      if (run.signal === 'SIGKILL') killed++;
      const retry = autopilot(dir, 'done', '--commit', '--json');
      expect(retry.code, `${at}: ${retry.stdout}`).toBe(0);
      expect(git(dir, 'show', 'HEAD:_docs/_autopilot_state.md'), at).toBe(read(dir, '_docs/_autopilot_state.md'));
      expect(read(dir, '_docs/_autopilot_state.md'), at).toMatch(/step: 2\nname: Research\nstatus: not_started/);
      expect(git(dir, 'status', '--porcelain'), at).toBe('');
      expect(progressEvents(dir), at).toHaveLength(1);
      expect(leftovers(dir), at).toEqual([]);
    }
    expect(killed).toBe(POINTS.length);
  }, 120_000);
});

describe('git housekeeping cannot wedge a run', () => {
  it("`git gc --prune=now` during a step: the start snapshot is kept by autopilot's ref, and the commit holds the step's work, not the person's", () => {
    const dir = defaultProject();
    // The person's changes when `next` runs: the snapshot is what keeps them out of the step's commit.
    write(dir, 'README.md', '# project\n\nthe person was editing this\n');
    problemWritten(dir);
    git(dir, 'gc', '--prune=now', '--quiet');
    write(dir, 'src/parse.js', 'export const parse = () => 1;\n');
    const done = autopilot(dir, 'done', '--json');
    expect(done.code, done.stdout).toBe(0);
    expect(done.json()).not.toHaveProperty('notices');
    const files = git(dir, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n');
    expect(files).toContain('src/parse.js');
    expect(files).not.toContain('README.md');
    expect(git(dir, 'status', '--porcelain')).toBe(' M README.md\n');
  });

  it('a snapshot gone all the same (its ref deleted, then gc): a narrower commit with a notice, exit 0, and every command after goes on', () => {
    const dir = defaultProject();
    write(dir, 'README.md', '# project\n\nthe person was editing this\n');
    problemWritten(dir);
    const [ref] = snapshotRefs(dir).split(' ');
    git(dir, 'update-ref', '-d', ref!);
    git(dir, 'gc', '--prune=now', '--quiet');
    write(dir, 'src/parse.js', 'export const parse = () => 1;\n');
    const done = autopilot(dir, 'done', '--json');
    expect(done.code, done.stdout).toBe(0);
    expect(done.json<{ notices: string[] }>().notices).toEqual([expect.stringContaining('is gone from git (pruned by `git gc`)')]);
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort()).toEqual([
      '_docs/00_problem/acceptance_criteria.md',
      '_docs/00_problem/problem.md',
      '_docs/_autopilot/journal.jsonl',
      '_docs/_autopilot_state.md',
    ]);
    expect(autopilot(dir, 'next', '--json').code).toBe(0);
    expect(autopilot(dir, 'status', '--json').json()).not.toHaveProperty('progress_commit_owed');
  });
});

describe('an older journal, with `progress_commit_made` lines after its commits', () => {
  it('still reads: nothing is owed, and the next step’s commit takes the old line in and leaves the tree clean', () => {
    const dir = defaultProject();
    problemWritten(dir);
    expect(autopilot(dir, 'done').code).toBe(0);
    // What an older autopilot appended after each commit: a line of its own, chained to the line before.
    const file = join(dir, '_docs/_autopilot/journal.jsonl');
    const text = read(dir, '_docs/_autopilot/journal.jsonl');
    const last = text.trimEnd().split('\n').at(-1)!;
    const owed = JSON.parse(last) as Record<string, unknown>;
    const made = {
      prev: createHash('sha1').update(last).digest('hex').slice(0, 8),
      seq: (owed.seq as number) + 1,
      at: owed.at,
      session: owed.session,
      event: 'progress_commit_made',
      flow: owed.flow,
      cycle: owed.cycle,
      step: 2,
      name: 'Research',
      status: 'not_started',
      retry_count: 0,
      owed: owed.seq,
      sha: git(dir, 'rev-parse', 'HEAD').trim(),
    };
    writeFileSync(file, `${text}${JSON.stringify(made)}\n`);
    git(dir, 'commit', '-qam', 'the older autopilot’s line, committed by hand');
    expect(autopilot(dir, 'status', '--json').json()).not.toHaveProperty('progress_commit_owed');
    expect(autopilot(dir, 'check').code).toBe(0);
    expect(autopilot(dir, 'next').code).toBe(0);
    write(dir, '_docs/01_solution/solution_draft_01.md');
    expect(autopilot(dir, 'done').code).toBe(3);
    expect(progressEvents(dir)).toHaveLength(2);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });
});
