/**
 * Git as the third source, progress commits, breadcrumbs and the remote
 * lease, through the built CLI in real repositories made here (each with
 * its own identity: CI has no global git configuration).
 */
import { inDir } from '../helpers/line.js';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autopilot, journal, read, write, type NextJson } from '../helpers/cli.js';
import { ROOT } from '../helpers/engine.js';
import { git, gitFails, identify, newRepo, tempDir } from '../helpers/git.js';

const POINTER = '_docs/_autopilot_state.md';
const BIN = join(ROOT, 'bin', 'autopilot.js');

/** A git repository with a greenfield run started and committed. */
function project(): string {
  const dir = newRepo();
  write(dir, 'README.md', '# project\n');
  expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'start');
  return dir;
}

/** Walks step 1 with progress commits: the pointer ends at step 2. */
function finishProblem(dir: string): void {
  autopilot(dir, 'next', '--commit');
  write(dir, '_docs/00_problem/problem.md');
  write(dir, '_docs/00_problem/acceptance_criteria.md');
  expect(autopilot(dir, 'done', '--commit').code).toBe(0);
}

describe('git as the third source of the position', () => {
  it('an unparsable pointer is recovered from the journal first (1 source said, sub-step kept), and its bytes are kept', () => {
    const dir = project();
    finishProblem(dir);
    // The journal knows more than any commit: step 2 in progress at a sub-step, never committed.
    expect(autopilot(dir, 'next').code).toBe(0);
    expect(autopilot(dir, 'substep', '3 — Sources').code).toBe(0);
    writeFileSync(join(dir, POINTER), 'flow: greenfield\nstep: two\n');
    const status = autopilot(dir, 'status', '--json').json<NextJson>();
    expect(status).toMatchObject({ step: 2, status: 'in_progress', sub_step: '3 — Sources', source: 'state' });
    expect(status.drift).toHaveLength(1);
    expect(status.drift[0]).toMatchObject({ kind: 'from-journal' });
    expect(status.drift[0]!.message).toMatch(
      /the pointer does not parse \(line \d+: .+\); the position comes from the journal \(event \d+: step 2 \(Research\)/,
    );
    // Status never writes: the garbled file is as it was.
    expect(read(dir, POINTER)).toBe('flow: greenfield\nstep: two\n');
    const next = autopilot(dir, 'next');
    expect(next.code).toBe(0);
    expect(next.stdout).toContain('the position comes from the journal');
    expect(next.stdout).toMatch(/the unreadable pointer was kept as _docs\/_autopilot_state\.broken-[\dT.Z-]+\.md/);
    const backup = readdirSync(join(dir, '_docs')).find((n) => n.startsWith('_autopilot_state.broken-'))!;
    expect(read(dir, `_docs/${backup}`)).toBe('flow: greenfield\nstep: two\n');
    expect(read(dir, POINTER)).toContain('step: 2\nname: Research\nstatus: in_progress\nsub_step: 3 — Sources');
    // No git process was needed: the journal decided.
    expect(journal(dir).some((e) => e.event === 'position_repaired' && JSON.stringify(e.drift).includes('comes from the journal'))).toBe(true);
  });

  it('an unparsable pointer with a journal holding no position is recovered from the last committed one, and its bytes are kept', () => {
    const dir = project();
    finishProblem(dir);
    writeFileSync(join(dir, POINTER), 'flow: greenfield\nstep: two\n');
    writeFileSync(join(dir, '_docs/_autopilot/journal.jsonl'), '');
    const status = autopilot(dir, 'status', '--json').json<NextJson>();
    expect(status).toMatchObject({ step: 2, source: 'git' });
    expect(status.drift[0]!.message).toMatch(/the journal holds no position; the position comes from the pointer committed in [0-9a-f]{8}/);
    const next = autopilot(dir, 'next');
    expect(next.code).toBe(0);
    expect(next.stdout).toMatch(/the unreadable pointer was kept as _docs\/_autopilot_state\.broken-[\dT.Z-]+\.md/);
    const backup = readdirSync(join(dir, '_docs')).find((n) => n.startsWith('_autopilot_state.broken-'))!;
    expect(read(dir, `_docs/${backup}`)).toBe('flow: greenfield\nstep: two\n');
    expect(read(dir, POINTER)).toContain('step: 2\nname: Research');
  });

  it('`_docs/` deleted in a fresh clone: the position comes back from the progress-commit trailers alone', () => {
    const dir = newRepo();
    write(dir, 'src/app.ts', 'export {};\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'code');
    const trailers = [
      'Autopilot-Flow: greenfield',
      'Autopilot-Step: 3',
      'Autopilot-Name: Plan',
      'Autopilot-Status: completed',
      'Autopilot-Cycle: 1',
      'Autopilot-Session: a',
    ];
    git(dir, 'commit', '--allow-empty', '-qm', `autopilot: greenfield 3/10 Plan completed\n\n${trailers.join('\n')}`);
    const clone = tempDir();
    git(clone, 'clone', '-q', dir, '.');
    identify(clone);
    expect(existsSync(join(clone, '_docs'))).toBe(false);
    const status = autopilot(clone, 'status', '--json').json<NextJson>();
    expect(status).toMatchObject({ flow: 'greenfield', source: 'git' });
    expect(status.step).toBe(4); // Plan completed: the next step (UI Design, passed over by `next` when its condition fails)
    expect(status.drift[0]!.message).toMatch(/comes from the progress commit [0-9a-f]{8}/);
  });

  it('a pointer with conflict markers after a real merge: the journal’s fork decides; with an older journal, decided by the journal and the folder, or exit 2 naming both sides', () => {
    const dir = project();
    git(dir, 'branch', 'other');
    // main: step 1 done and step 2's draft written.
    finishProblem(dir);
    autopilot(dir, 'next', '--commit');
    write(dir, '_docs/01_solution/solution_draft_01.md');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'draft');
    // other: still on step 1, with a sub-step recorded.
    git(dir, 'checkout', '-q', 'other');
    autopilot(dir, 'next');
    autopilot(dir, 'substep', '2 — Restrictions');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'other side');
    git(dir, 'checkout', '-q', 'main');
    expect(gitFails(dir, 'merge', '-q', 'other')).not.toBe(0);
    expect(read(dir, POINTER)).toContain('<<<<<<<');
    // The journal's chain sees the merge, and its sides agree (other only recorded a sub-step of the step main completed): it decides.
    const forked = autopilot(dir, 'status', '--json').json<NextJson>();
    expect(forked.step).toBe(2);
    expect(forked.drift.map((d) => d.kind)).toEqual(['journal-fork', 'journal-fork']);
    // A journal from before the chain (no `prev`) cannot tell: the pointer's two sides are judged by the journal and the folder.
    const journalFile = join(dir, '_docs/_autopilot/journal.jsonl');
    writeFileSync(journalFile, read(dir, '_docs/_autopilot/journal.jsonl').replace(/^\{"prev":"[0-9a-f]{8}",/gm, '{'));
    // The merged folder has step 1's and step 2's files: both sides come to step 2.
    const status = autopilot(dir, 'status', '--json').json<NextJson>();
    expect(status.step).toBe(2);
    expect(status.drift.map((d) => d.kind)).toContain('merge-resolved');

    // Take away step 2's draft: one side is at step 2, the other still finishing step 1; nothing is picked silently.
    rmSync(join(dir, '_docs/01_solution'), { recursive: true });
    const refused = autopilot(dir, 'next');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('cannot decide between its two sides');
    expect(refused.stderr).toMatch(/ours: step 2 \(Research\).*theirs: step 1 \(Problem\)/s);
    expect(refused.stderr).toContain('git checkout --ours');
  });

  it('with no `git` on PATH, commands still work and `status` and `check` say the fallback is off', () => {
    const dir = project();
    const bin = tempDir();
    symlinkSync(process.execPath, join(bin, 'node'));
    const run = (...args: string[]) => spawnSync(join(bin, 'node'), [BIN, ...inDir(dir, args)], { encoding: 'utf8', env: { PATH: bin, HOME: dir } });
    expect(run('next').status).toBe(0);
    const status = run('status');
    expect(status.status).toBe(0);
    expect(status.stdout).toContain('Git       `git` is not on PATH: steps are not committed');
    expect(JSON.parse(run('check', '--json').stdout)).toMatchObject({ git_fallback: { on: false, reason: '`git` is not on PATH' } });
    const outside = newRepo();
    rmSync(join(outside, '.git'), { recursive: true });
    mkdirSync(join(outside, '_docs'));
    // The line wraps at 80 columns: read it joined.
    expect(autopilot(outside, 'status').stdout.replace(/\n {10}/g, ' ')).toContain(
      'Git       this folder is not a git repository: steps are not committed, and a lost pointer has no git history to be recovered from (`git init` and a first commit turn them on)',
    );
  });
});

describe('progress commits', () => {
  it('commit exactly the pointer, the journal and the step’s files, with the message and trailers, leaving the user’s other changes alone', () => {
    const dir = project();
    write(dir, 'staged.txt', 'the user staged this\n');
    git(dir, 'add', 'staged.txt');
    write(dir, 'README.md', '# project\n\nan unstaged edit\n');
    const before = { cached: git(dir, 'diff', '--cached', '--name-only'), unstaged: git(dir, 'diff', '--name-only') };
    finishProblem(dir);
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort()).toEqual([
      '_docs/00_problem/acceptance_criteria.md',
      '_docs/00_problem/problem.md',
      '_docs/_autopilot/journal.jsonl',
      POINTER,
    ]);
    expect(git(dir, 'log', '-1', '--format=%s')).toBe('autopilot: greenfield 1/10 Problem completed\n');
    // The journal records the commit it owes; the commit names that event, so a retry finds it.
    const owed = journal(dir).find((e) => e.event === 'progress_commit_owed')!;
    expect(git(dir, 'log', '-1', '--format=%(trailers:only,unfold)')).toBe(
      `Autopilot-Flow: greenfield\nAutopilot-Step: 1\nAutopilot-Name: Problem\nAutopilot-Status: completed\nAutopilot-Cycle: 1\nAutopilot-Session: local\nAutopilot-Event: ${String(owed.seq)}\n\n`,
    );
    // Nothing is written after the commit: the journal ends with the event the commit records, and the commit holds it.
    expect(journal(dir).at(-1)).toMatchObject({ event: 'progress_commit_owed', seq: owed.seq });
    expect(journal(dir).some((e) => e.event === 'progress_commit_made')).toBe(false);
    expect(git(dir, 'show', 'HEAD:_docs/_autopilot/journal.jsonl')).toBe(read(dir, '_docs/_autopilot/journal.jsonl'));
    // The person's files are as they were; nothing of autopilot's is left modified.
    expect({ cached: git(dir, 'diff', '--cached', '--name-only'), unstaged: git(dir, 'diff', '--name-only') }).toEqual(before);
    // `next` finishes nothing: no commit.
    const head = git(dir, 'rev-parse', 'HEAD');
    autopilot(dir, 'next', '--commit');
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
  });

  it('are refused, with nothing written, on a detached head and in the middle of a rebase', () => {
    const dir = project();
    autopilot(dir, 'next');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'started');
    git(dir, 'checkout', '-q', '--detach');
    write(dir, '_docs/00_problem/problem.md');
    write(dir, '_docs/00_problem/acceptance_criteria.md');
    const journalBefore = read(dir, '_docs/_autopilot/journal.jsonl');
    const detached = autopilot(dir, 'done', '--commit');
    expect(detached.code).toBe(2);
    expect(detached.stderr).toContain('HEAD is detached');
    expect(read(dir, '_docs/_autopilot/journal.jsonl')).toBe(journalBefore);

    git(dir, 'checkout', '-q', 'main');
    git(dir, 'checkout', '-q', '-b', 'side');
    write(dir, 'README.md', 'side\n');
    git(dir, 'commit', '-qam', 'side');
    git(dir, 'checkout', '-q', 'main');
    write(dir, 'README.md', 'main\n');
    git(dir, 'commit', '-qam', 'main');
    expect(gitFails(dir, 'rebase', '-q', 'side')).not.toBe(0);
    const rebasing = autopilot(dir, 'done', '--commit');
    expect(rebasing.code).toBe(2);
    expect(rebasing.stderr).toContain('a rebase is in progress');
    expect(read(dir, '_docs/_autopilot/journal.jsonl')).toBe(journalBefore);
  });

  it('`commit: true` in .autopilot/config.yml asks for them without the flag; a breadcrumb says what happened and goes on the commit as a note', () => {
    const dir = project();
    write(dir, '.autopilot/config.yml', 'commit: true\n');
    autopilot(dir, 'next');
    write(dir, '_docs/00_problem/problem.md');
    write(dir, '_docs/00_problem/acceptance_criteria.md');
    autopilot(dir, 'done');
    expect(git(dir, 'log', '-1', '--format=%s')).toBe('autopilot: greenfield 1/10 Problem completed\n');
    const crumb = autopilot(dir, 'breadcrumb', '--note');
    expect(crumb.code).toBe(0);
    expect(crumb.stdout).toContain('**autopilot** · greenfield · step 2 of 10 (Research) · not\\_started');
    expect(crumb.stdout).toContain('- step 1 Problem completed');
    expect(git(dir, 'notes', '--ref=refs/notes/autopilot', 'show', 'HEAD')).toContain('step 1 Problem completed');
    // --note marked it: the next one starts from there; printing one changes nothing.
    expect(autopilot(dir, 'breadcrumb').stdout).toContain('Since the last breadcrumb:** nothing new.');
  });
});

describe('the lease on a shared remote', () => {
  function machines(): { a: string; b: string } {
    const remote = tempDir();
    git(remote, 'init', '-q', '--bare');
    const a = project();
    git(a, 'remote', 'add', 'origin', remote);
    git(a, 'push', '-q', 'origin', 'HEAD:main');
    const b = tempDir();
    git(b, 'clone', '-q', remote, '.');
    identify(b);
    return { a, b };
  }
  const run = (dir: string, machine: string, ...args: string[]) =>
    new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [BIN, ...inDir(dir, args)], { env: { ...process.env, AUTOPILOT_MACHINE_ID: machine, AUTOPILOT_SESSION: machine } });
      child.on('close', resolve);
    });

  // Five rounds of two clones and two CLI calls: a minute on a loaded machine.
  it('two machines race for it: exactly one wins, 5 of 5 rounds; the loser exits 4 naming the holder', { timeout: 120_000 }, async () => {
    for (let round = 0; round < 5; round++) {
      const { a, b } = machines();
      const codes = await Promise.all([run(a, 'machine-a', 'lease', '--remote', 'origin'), run(b, 'machine-b', 'lease', '--remote', 'origin')]);
      expect(codes.sort()).toEqual([0, 4]);
    }
  });

  it('never taken for its age by default (only --take-over); a fleet that sets remote_stale_after_minutes has a quiet one taken over (journaled)', async () => {
    const { a, b } = machines();
    expect(await run(a, 'machine-a', 'lease', '--remote', 'origin')).toBe(0);
    expect(await run(b, 'machine-b', 'lease', '--remote', 'origin')).toBe(4);
    const env = { ...process.env, AUTOPILOT_MACHINE_ID: 'machine-b', AUTOPILOT_SESSION: 'machine-b', AUTOPILOT_LEASE_STALE_MINUTES: '0.00001' };
    // The local lease's threshold says nothing about another machine's lease on the remote.
    const old = spawnSync(process.execPath, [BIN, '-C', b, 'lease', '--remote', 'origin', '--json'], { encoding: 'utf8', env });
    expect(old.status, old.stdout).toBe(4);
    expect(JSON.parse(old.stdout).error.hint).toMatch(/never taken for its age/);
    // B's refusals above noted the commit the ref names; it has been unchanged since, by B's own clock.
    write(b, '.autopilot/config.yml', 'lease:\n  remote_stale_after_minutes: 0.00001\n');
    const stale = spawnSync(process.execPath, [BIN, '-C', b, 'lease', '--remote', 'origin', '--json'], { encoding: 'utf8', env });
    expect(stale.status).toBe(0);
    expect(JSON.parse(stale.stdout)).toMatchObject({ taken: 'stale' });
    expect(journal(b).at(-1)).toMatchObject({ event: 'lease_taken_over', remote: 'origin', reason: 'stale' });
    expect(await run(a, 'machine-a', 'lease', '--take-over', '--remote', 'origin')).toBe(0);
  });

  it('moved under each of its 3 reads (another machine renewing it just then): exit 4, `lease_moved`, run it again; nothing written, never `internal`', async () => {
    const { a, b } = machines();
    expect(await run(a, 'machine-a', 'lease', '--remote', 'origin')).toBe(0);
    // B's remote serves every read after moving the lease to a commit of its own: each ls-remote and fetch sees another.
    const mover = join(tempDir(), 'moving-upload-pack');
    writeFileSync(
      mover,
      [
        '#!/bin/sh',
        'for repo; do :; done',
        'export GIT_AUTHOR_NAME=other GIT_AUTHOR_EMAIL=other@example.com GIT_COMMITTER_NAME=other GIT_COMMITTER_EMAIL=other@example.com',
        'tree=$(git --git-dir="$repo" mktree </dev/null)',
        'moved=$(echo "renewed $$" | git --git-dir="$repo" commit-tree "$tree")',
        'git --git-dir="$repo" update-ref refs/autopilot/lease "$moved"',
        'exec git upload-pack "$@"',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    git(b, 'config', 'remote.origin.uploadpack', mover);
    const before = git(b, 'status', '--porcelain');
    const env = { ...process.env, AUTOPILOT_MACHINE_ID: 'machine-b', AUTOPILOT_SESSION: 'machine-b' };
    const moved = spawnSync(process.execPath, [BIN, '-C', b, 'lease', '--remote', 'origin', '--json'], { encoding: 'utf8', env });
    expect(moved.status, moved.stdout + moved.stderr).toBe(4);
    expect(JSON.parse(moved.stdout).error).toEqual({
      code: 'lease_moved',
      message: 'the lease on origin kept changing while autopilot read it: another session is taking or renewing it',
      hint: expect.stringContaining('Run the command again'),
    });
    const said = spawnSync(process.execPath, [BIN, '-C', b, 'lease', '--remote', 'origin'], { encoding: 'utf8', env });
    expect(said.status).toBe(4);
    expect(said.stderr).not.toContain('internal error');
    expect(git(b, 'status', '--porcelain')).toBe(before);
  });
});
