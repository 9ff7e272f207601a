/**
 * Issue 29, points 6 and 11, through the built command line, real git and
 * real child processes: the bytes `done` judged are the bytes its commit
 * holds, whatever happens to the files between the judging and the commit;
 * and nothing a step did drops from history — a step done where git cannot
 * take its commit (a detached HEAD, a leftover `index.lock`, a hook that
 * refuses) stays owed and named until a later commit holds it, and a fresh
 * clone of that commit stands where the run does. A corrupt `.git/index` is
 * bad input naming the file and its fix, never an internal error.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autopilot, journal, read, write } from '../helpers/cli.js';
import { BIN, cli, isStopped, until } from '../helpers/faults.js';
import { git, newRepo, tempDir } from '../helpers/git.js';

const PROBLEM = '_docs/00_problem/problem.md';
const CRITERIA = '_docs/00_problem/acceptance_criteria.md';

/** A repository on `main` with a greenfield run begun and committed; progress commits as by default. */
function project(): string {
  const dir = newRepo();
  write(dir, 'README.md', '# project\n');
  expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'start');
  return dir;
}

/** Step 1 handed out and its files written, as the problem skill says, with some code beside them. */
function problemWritten(dir: string): void {
  expect(autopilot(dir, 'next').code).toBe(0);
  write(dir, PROBLEM);
  write(dir, CRITERIA);
  write(dir, 'src/parse.js', 'export const parse = () => 1;\n');
}

function copyOf(dir: string): string {
  const copy = tempDir();
  cpSync(dir, copy, { recursive: true });
  return copy;
}

/** A fresh clone of the repository's branch, and where `status` says its run stands. */
function cloneStatus(dir: string): { step: unknown; status: unknown } {
  const clone = join(tempDir(), 'clone');
  git(dir, 'clone', '-q', dir, clone);
  const { step, status } = autopilot(clone, 'status', '--json').json<{ step: unknown; status: unknown }>();
  return { step, status };
}

/** The files a commit changed. */
const filesOf = (dir: string, rev = 'HEAD') => git(dir, 'show', '--name-only', '--format=', rev).trim().split('\n').filter(Boolean).sort();

/** A file as HEAD holds it: its text when it is a regular file there, else undefined (absent, a link). */
function committedText(dir: string, file: string): string | undefined {
  const entry = spawnSync('git', ['ls-tree', 'HEAD', '--', file], { cwd: dir, encoding: 'utf8' }).stdout;
  return /^100(644|755) blob /.test(entry) ? git(dir, 'show', `HEAD:${file}`) : undefined;
}

/** The commits carrying an `Autopilot-Event` trailer. */
const progressCommits = (dir: string) =>
  git(dir, 'log', '--format=%(trailers:key=Autopilot-Event,valueonly)')
    .split('\n')
    .filter((l) => l.trim()).length;

describe('the bytes judged are the bytes committed', () => {
  /** Swaps, run by a child process of its own while `done` is stopped between its judging and its commit. */
  const SWAPS: { name: string; script: string; swapped: string[] }[] = [
    { name: 'the problem rewritten', script: `printf 'TODO\\n' > ${PROBLEM}`, swapped: [PROBLEM] },
    { name: 'the problem deleted', script: `rm ${PROBLEM}`, swapped: [PROBLEM] },
    { name: 'the problem made a link to /etc/passwd', script: `rm ${PROBLEM} && ln -s /etc/passwd ${PROBLEM}`, swapped: [PROBLEM] },
    { name: 'the problem made a folder', script: `rm ${PROBLEM} && mkdir ${PROBLEM} && printf 'x\\n' > ${PROBLEM}/x.md`, swapped: [PROBLEM] },
    { name: 'the criteria rewritten', script: `printf '# Acceptance Criteria\\n' > ${CRITERIA}`, swapped: [CRITERIA] },
    { name: 'both rewritten', script: `printf 'lorem\\n' > ${PROBLEM} && printf 'ipsum\\n' > ${CRITERIA}`, swapped: [PROBLEM, CRITERIA] },
  ];

  it(`${SWAPS.length} tries, each file swapped between \`done\`'s judging and its commit: ${SWAPS.length} commits hold the bytes judged, 0 the swapped ones; each swap stays in the work tree, named`, async () => {
    const template = project();
    problemWritten(template);
    const judged: Record<string, string> = { [PROBLEM]: read(template, PROBLEM), [CRITERIA]: read(template, CRITERIA) };
    const tries: { files: string[]; name: string; asJudged: boolean; porcelain: string; notices: string; swapped: string[] }[] = [];
    for (const swap of SWAPS) {
      const dir = copyOf(template);
      let pid = 0;
      const done = cli(dir, ['done', '--json'], { env: { AUTOPILOT_STOP_AT: 'before-progress-commit' }, onSpawn: (child) => (pid = child.pid!) });
      // Stopped after the state is written (the step judged and recorded), before its commit: the worst moment.
      await until(() => isStopped(pid), 20_000, 'done to stop before its commit');
      expect(spawnSync('sh', ['-c', swap.script], { cwd: dir }).status, swap.name).toBe(0);
      process.kill(pid, 'SIGCONT');
      const answer = await done;
      expect(answer.code, `${swap.name}: ${answer.stdout}${answer.stderr}`).toBe(0);
      tries.push({
        files: filesOf(dir),
        name: swap.name,
        asJudged: [PROBLEM, CRITERIA].every((file) => committedText(dir, file) === judged[file]),
        porcelain: git(dir, 'status', '--porcelain', '--', ...swap.swapped),
        notices: ((answer.json as { notices?: string[] }).notices ?? []).join('\n'),
        swapped: swap.swapped,
      });
    }
    const heldJudged = tries.filter((t) => t.asJudged).length;
    console.log(`${SWAPS.length} swaps between judging and commit: ${heldJudged} commits held the bytes judged, ${SWAPS.length - heldJudged} the swapped ones`);
    expect({ heldJudged, heldSwapped: SWAPS.length - heldJudged }).toEqual({ heldJudged: SWAPS.length, heldSwapped: 0 });
    // Each swap is the work tree's, uncommitted, and the answer names each swapped file.
    for (const t of tries) {
      expect(t.files, t.name).toEqual(expect.arrayContaining([PROBLEM, CRITERIA, 'src/parse.js']));
      for (const file of t.swapped) expect(t.porcelain, t.name).toContain(file);
      for (const file of t.swapped) expect(t.notices, t.name).toContain(`\`${file}\``);
      expect(t.notices, t.name).toContain('the commit holds the version judged');
    }
  }, 120_000);

  it('killed between its judging and its commit, then swapped: the next command commits 0 swapped bytes, and names the file it left out', () => {
    const dir = project();
    problemWritten(dir);
    const run = spawnSync(process.execPath, [BIN, '-C', dir, 'done'], {
      env: { ...process.env, AUTOPILOT_SESSION: '', AUTOPILOT_CRASH_AT: 'before-progress-commit' },
    });
    expect(run.signal).toBe('SIGKILL');
    writeFileSync(join(dir, PROBLEM), 'TODO\n');
    const next = autopilot(dir, 'next', '--json');
    expect(next.code, next.stdout).toBe(0);
    expect(next.json<{ notices?: string[] }>().notices?.join('\n')).toContain(
      `\`${PROBLEM}\` changed after \`done\` judged it, and the version judged is gone`,
    );
    // The commit was made, without the file swapped after the judging: it stays as it is, uncommitted.
    expect(progressCommits(dir)).toBe(1);
    expect(filesOf(dir)).toEqual(expect.arrayContaining([CRITERIA, 'src/parse.js']));
    expect(filesOf(dir)).not.toContain(PROBLEM);
    expect(git(dir, 'status', '--porcelain', '--', PROBLEM)).toBe(`?? ${PROBLEM}\n`);
  });
});

/** What keeps git from taking a commit, and how a person clears it. */
const OBSTACLES: { name: string; set: (dir: string) => void; clear: (dir: string) => void; says: string }[] = [
  {
    name: 'a detached HEAD',
    set: (dir) => git(dir, 'checkout', '-q', '--detach'),
    clear: (dir) => git(dir, 'checkout', '-q', 'main'),
    says: 'HEAD is detached',
  },
  {
    name: 'a leftover .git/index.lock',
    set: (dir) => writeFileSync(join(dir, '.git', 'index.lock'), ''),
    clear: (dir) => rmSync(join(dir, '.git', 'index.lock')),
    says: 'index.lock',
  },
  {
    name: 'a hook that refuses',
    set: (dir) => {
      mkdirSync(join(dir, '.git', 'hooks'), { recursive: true });
      writeFileSync(
        join(dir, '.git', 'hooks', 'reference-transaction'),
        '#!/bin/sh\n[ "$1" = prepared ] && { echo "refs are frozen today" >&2; exit 1; }\nexit 0\n',
      );
      chmodSync(join(dir, '.git', 'hooks', 'reference-transaction'), 0o755);
    },
    clear: (dir) => rmSync(join(dir, '.git', 'hooks', 'reference-transaction')),
    says: 'refs are frozen today',
  },
];

interface StatusJson {
  step: unknown;
  progress_commit_owed?: { event: number; about?: string; files?: string[] };
}

describe('nothing a step did drops from history', () => {
  it(`${OBSTACLES.length} obstacles (${OBSTACLES.map((o) => o.name).join(', ')}): ${OBSTACLES.length} steps recorded and owed, named by status and check; each made by the next command once the obstacle goes; ${OBSTACLES.length} fresh clones at step 2, 0 at step 1`, () => {
    const atStep: unknown[] = [];
    for (const obstacle of OBSTACLES) {
      const dir = project();
      problemWritten(dir);
      obstacle.set(dir);
      const head = git(dir, 'rev-parse', 'HEAD');
      const done = autopilot(dir, 'done', '--json');
      expect(done.code, `${obstacle.name}: ${done.stdout}`).toBe(0);
      expect(done.json<{ notices: string[] }>().notices.join('\n'), obstacle.name).toMatch(
        new RegExp(`no progress commit now for step 1 Problem \\(completed\\): .*${obstacle.says.replace(/\./g, '\\.')}[^]*its commit is owed`),
      );
      expect(git(dir, 'rev-parse', 'HEAD'), obstacle.name).toBe(head);
      // Recorded, owed, and named: the files status names are the step's, and check reports it.
      const status = autopilot(dir, 'status', '--json').json<StatusJson>();
      expect(status.progress_commit_owed, obstacle.name).toMatchObject({ about: expect.stringContaining('step 1 Problem completed') });
      expect(status.progress_commit_owed?.files, obstacle.name).toEqual(expect.arrayContaining([PROBLEM, CRITERIA, '_docs/_autopilot_state.md']));
      expect(autopilot(dir, 'status').stdout, obstacle.name).toMatch(/Commit {4}the progress commit of event \d+ \(step 1 Problem completed/);
      const check = autopilot(dir, 'check');
      expect(check.code, obstacle.name).toBe(2);
      expect(check.stdout, obstacle.name).toContain(PROBLEM);
      // Still in the way: the next command goes on, and carries the commit on.
      const next = autopilot(dir, 'next', '--json');
      expect(next.json(), obstacle.name).toMatchObject({ step: 2, outcome: 'work' });
      expect(autopilot(dir, 'status', '--json').json<StatusJson>().progress_commit_owed?.files, obstacle.name).toContain(PROBLEM);
      expect(git(dir, 'rev-parse', 'HEAD'), obstacle.name).toBe(head);
      // Cleared: the next command makes it, once, holding the step's files and its code.
      obstacle.clear(dir);
      expect(autopilot(dir, 'next', '--json').code, obstacle.name).toBe(0);
      expect(progressCommits(dir), obstacle.name).toBe(1);
      expect(filesOf(dir), obstacle.name).toEqual(expect.arrayContaining([PROBLEM, CRITERIA, 'src/parse.js', '_docs/_autopilot_state.md']));
      expect(autopilot(dir, 'status', '--json').json(), obstacle.name).not.toHaveProperty('progress_commit_owed');
      expect(autopilot(dir, 'check').code, obstacle.name).toBe(0);
      expect(git(dir, 'status', '--porcelain'), obstacle.name).toBe('');
      atStep.push(cloneStatus(dir).step);
    }
    console.log(`fresh clones after the obstacle went: at steps ${atStep.join(', ')}`);
    expect(atStep).toEqual(OBSTACLES.map(() => 2));
  }, 120_000);

  it('2 steps done on a detached HEAD, `git gc --prune=now` between: 1 commit on the branch holds both steps and their code; a fresh clone stands at step 3', () => {
    const dir = project();
    problemWritten(dir);
    git(dir, 'checkout', '-q', '--detach');
    expect(autopilot(dir, 'done').code).toBe(0);
    expect(autopilot(dir, 'next').code).toBe(0);
    write(dir, '_docs/01_solution/solution_draft_01.md');
    write(dir, 'src/store.js', 'export const store = () => 2;\n');
    // Housekeeping while the commits wait: the first step's start snapshot is kept by autopilot's own ref.
    git(dir, 'gc', '--prune=now', '--quiet');
    const second = autopilot(dir, 'done', '--json');
    expect(second.code).toBe(3);
    expect(second.json<{ notices: string[] }>().notices.join('\n')).toContain('holding step 1 Problem completed');
    expect(autopilot(dir, 'status', '--json').json<StatusJson>().progress_commit_owed?.files).toEqual(
      expect.arrayContaining([PROBLEM, CRITERIA, '_docs/01_solution/solution_draft_01.md']),
    );
    git(dir, 'checkout', '-q', 'main');
    // A person's answer is the next command: it makes the owed commit first, then its own.
    expect(autopilot(dir, 'decide', 'B').code).toBe(0);
    expect(progressCommits(dir)).toBe(2);
    expect(filesOf(dir, 'HEAD~1')).toEqual(
      expect.arrayContaining([PROBLEM, CRITERIA, '_docs/01_solution/solution_draft_01.md', 'src/parse.js', 'src/store.js']),
    );
    expect(git(dir, 'log', '-1', '--format=%b', 'HEAD~1')).toContain('Also holds the work of step 1 Problem completed');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(git(dir, 'for-each-ref', 'refs/autopilot/owed/')).toBe('');
    expect(cloneStatus(dir)).toEqual({ step: 3, status: 'not_started' });
  }, 60_000);

  it('`commit: true` keeps its promise: a detached HEAD refuses the step, exit 2, nothing written', () => {
    const dir = project();
    write(dir, '.autopilot/config.yml', 'commit: true\n');
    problemWritten(dir);
    git(dir, 'checkout', '-q', '--detach');
    const events = journal(dir).length;
    expect(autopilot(dir, 'done').code).toBe(2);
    expect(journal(dir)).toHaveLength(events);
  });
});

describe('a corrupt .git/index', () => {
  it('5 commands: 0 internal errors; those that need the index exit 2 naming `.git/index` and `rm .git/index && git reset`; the step is recorded, and committed once it is rebuilt', () => {
    const dir = project();
    const corrupt = () => writeFileSync(join(dir, '.git', 'index'), 'not an index at all\n');
    corrupt();
    const codes: number[] = [];
    const next = autopilot(dir, 'next', '--json');
    codes.push(next.code);
    expect(next.code).toBe(2);
    expect(next.json<{ error: { code: string; file?: string; message: string; hint: string } }>().error).toMatchObject({
      code: 'bad_input',
      message: expect.stringMatching(/^\.git\/index: git cannot read its index \(.+\): rebuild it from HEAD with `rm \.git\/index && git reset`/),
      hint: expect.stringContaining('`rm .git/index && git reset`'),
    });
    expect(next.stdout).not.toContain('autopilot-index-');
    expect(journal(dir).some((e) => e.event === 'step_started')).toBe(false);
    codes.push(autopilot(dir, 'status').code);
    spawnSync('sh', ['-c', 'rm .git/index && git reset -q'], { cwd: dir });
    problemWritten(dir);
    // Broken again while the step runs: `done` records the step, and its commit waits, named.
    corrupt();
    const done = autopilot(dir, 'done', '--json');
    codes.push(done.code);
    expect(done.code, done.stdout).toBe(0);
    expect(done.json<{ notices: string[] }>().notices.join('\n')).toContain('rm .git/index && git reset');
    const again = autopilot(dir, 'next', '--json');
    codes.push(again.code);
    expect(again.code).toBe(2);
    codes.push(autopilot(dir, 'check').code);
    console.log(`exit codes with a corrupt index: ${codes.join(', ')}`);
    expect(codes.filter((c) => c === 1)).toEqual([]);
    spawnSync('sh', ['-c', 'rm .git/index && git reset -q'], { cwd: dir });
    expect(autopilot(dir, 'next', '--json').json()).toMatchObject({ step: 2, outcome: 'work' });
    expect(filesOf(dir)).toEqual(expect.arrayContaining([PROBLEM, CRITERIA, 'src/parse.js']));
    expect(existsSync(join(dir, '.git', 'index.lock'))).toBe(false);
  });
});
