/**
 * Named runs driven (issue 32, docs/runs.md "Driving a run"): the real built
 * CLI in real git repositories. Two runs side by side never wait on each
 * other and leave the default run's files as they were; one run has one lease
 * whatever the work tree (it lives in the common git folder); `init --run`
 * starts a run, an existing-code one at New Task where the repository's
 * Document output is already there; the SessionStart hook names the run.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cli, freshDir, type Spawned } from '../helpers/faults.js';
import { stepEvidence } from '../helpers/templates.js';

const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** A git repository with a first commit (and a source file, so existing-code's detection matches where asked). */
function gitRepo(options: { code?: boolean } = {}): string {
  const dir = freshDir();
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Runs Test');
  git(dir, 'config', 'user.email', 'runs@example.com');
  writeFileSync(join(dir, 'README.md'), '# a project\n');
  if (options.code) put(dir, 'src/app.js', 'export const app = 1;\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'first');
  return dir;
}

function put(dir: string, rel: string, text: string): void {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), text);
}

/** One command of a session (`AUTOPILOT_SESSION`), `--json`. */
const as = (dir: string, session: string, ...args: string[]): Promise<Spawned> => cli(dir, [...args, '--json'], { env: { AUTOPILOT_SESSION: session } });

/** The files a step's `done_when` names (under a named run's docs folder too), written as their skills say. */
function writeStep(dir: string, doneWhen: string[]): void {
  for (const path of doneWhen) {
    const at = path.lastIndexOf('/_runs/');
    const prefix = at < 0 ? '' : path.slice(0, path.indexOf('/', at + '/_runs/'.length) + 1);
    const rel = at < 0 ? path : `_docs/${path.slice(prefix.length)}`;
    for (const [file, text] of Object.entries(stepEvidence([rel]))) put(dir, at < 0 ? file : prefix + file.slice('_docs/'.length), text);
  }
}

/** Every file under `rel` (a run's files), by path, with its bytes; `skip`: folders left out. */
function filesUnder(dir: string, rel: string, skip: string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string) => {
    for (const name of readdirSync(join(dir, at))) {
      const path = `${at}/${name}`;
      if (skip.includes(path)) continue;
      if (statSync(join(dir, path)).isDirectory()) walk(path);
      else out[path] = readFileSync(join(dir, path), 'utf8');
    }
  };
  if (existsSync(join(dir, rel))) walk(rel);
  return out;
}

const events = (dir: string, docs: string) =>
  readFileSync(join(dir, docs, '_autopilot/journal.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** A session driving its run: next, substep, the step's files, done, for `steps` steps; every exit code it got. */
async function drive(dir: string, session: string, run: string, steps: number): Promise<number[]> {
  const codes: number[] = [];
  for (let i = 0; i < steps; i++) {
    const next = await as(dir, session, '--run', run, 'next');
    codes.push(next.code ?? -1);
    const json = next.json as { step: number; done_when?: string[] };
    codes.push((await as(dir, session, '--run', run, 'substep', `1 — step ${json.step} of ${run}`)).code ?? -1);
    writeStep(dir, json.done_when ?? []);
    codes.push((await as(dir, session, '--run', run, 'done', '--step', String(json.step))).code ?? -1);
  }
  return codes;
}

describe('two runs side by side', () => {
  it('2 sessions drive runs a and b at once, 12 commands interleaved: 0 exit 4, each journal its run’s only, the default run byte-identical', async () => {
    const dir = gitRepo();
    expect((await cli(dir, ['init', '--flow', 'greenfield', '--json'])).code).toBe(0);
    expect((await as(dir, 'person', 'next')).code).toBe(0);
    for (const run of ['a', 'b']) expect((await cli(dir, ['--run', run, 'init', '--flow', 'greenfield', '--json'])).code).toBe(0);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'three runs');
    const defaultRun = filesUnder(dir, '_docs', ['_docs/_runs']);

    const [a, b] = await Promise.all([drive(dir, 'conversation-a', 'a', 2), drive(dir, 'conversation-b', 'b', 2)]);
    const all = [...a, ...b];
    console.log(`runs side by side: ${all.length} commands, exit codes ${[...new Set(all)].join(',')}, ${all.filter((c) => c === 4).length} waits`);
    expect(all.filter((c) => c === 4)).toEqual([]);
    expect(all.every((c) => c === 0 || c === 3)).toBe(true);

    for (const [run, session] of [
      ['a', 'conversation-a'],
      ['b', 'conversation-b'],
    ] as const) {
      const journal = events(dir, `_docs/_runs/${run}`);
      expect(new Set(journal.filter((e) => e.event !== 'run_started').map((e) => e.session)), run).toEqual(new Set([session]));
      const completed = journal.filter((e) => e.event === 'step_completed').map((e) => e.step);
      expect(completed[0], run).toBe(1);
      expect(
        completed.every((step) => step === 1 || step === 2),
        run,
      ).toBe(true);
      const pointer = readFileSync(join(dir, `_docs/_runs/${run}/_autopilot_state.md`), 'utf8');
      expect(pointer).toMatch(/^flow: greenfield$/m);
      expect(pointer).not.toMatch(/^step: 1$/m);
      // Each run's lease, one file each, in the common git folder.
      expect(JSON.parse(readFileSync(join(dir, `.git/autopilot/runs/${run}/lease.json`), 'utf8'))).toMatchObject({ session });
    }
    expect(filesUnder(dir, '_docs', ['_docs/_runs'])).toEqual(defaultRun);
  });

  it('a second session on the same named run: exit 4 (held), 1 lease, nothing of the run written', async () => {
    const dir = gitRepo();
    expect((await cli(dir, ['init', '--run', 'a', '--flow', 'greenfield', '--json'])).code).toBe(0);
    expect((await as(dir, 'conversation-a', '--run', 'a', 'next')).code).toBe(0);
    const before = filesUnder(dir, '_docs');
    const refused = await as(dir, 'conversation-b', '--run', 'a', 'next');
    expect(refused.code).toBe(4);
    expect((refused.json?.error as { code?: string }).code).toBe('held');
    expect(filesUnder(dir, '_docs')).toEqual(before);
    expect(existsSync(join(dir, '_docs/_runs/a/_autopilot/lease.json')), 'the lease is not in the work tree').toBe(false);
  });
});

describe('one run, two worktrees', () => {
  /** A repository with runs x and y committed, and a linked worktree of it on its own branch. */
  async function twoWorktrees(): Promise<{ main: string; linked: string }> {
    const main = gitRepo();
    for (const run of ['x', 'y']) expect((await cli(main, ['--run', run, 'init', '--flow', 'greenfield', '--json'])).code).toBe(0);
    git(main, 'add', '-A');
    git(main, 'commit', '-q', '-m', 'runs x and y');
    const linked = join(freshDir(), 'linked');
    git(main, 'worktree', 'add', '-q', '-b', 'feature', linked);
    return { main, linked };
  }

  it('the same run from 2 worktrees: the second session gets exit 4 (the lease is one, in the common git folder)', async () => {
    const { main, linked } = await twoWorktrees();
    expect((await as(main, 'conversation-1', '--run', 'x', 'next')).code).toBe(0);
    const refused = await as(linked, 'conversation-2', '--run', 'x', 'next');
    expect(refused.code).toBe(4);
    expect((refused.json?.error as { code?: string }).code).toBe('held');
    expect(existsSync(join(main, '.git/autopilot/runs/x/lease.json'))).toBe(true);
    expect(readdirSync(join(main, '.git/autopilot/runs'))).toEqual(['x']);
    // The linked work tree's run is where it was: its pointer not started.
    expect(readFileSync(join(linked, '_docs/_runs/x/_autopilot_state.md'), 'utf8')).toMatch(/^status: not_started$/m);
  });

  it('2 runs from 2 worktrees: both go on (0 exit 4), 2 leases in the common git folder', async () => {
    const { main, linked } = await twoWorktrees();
    const [one, two] = await Promise.all([drive(main, 'conversation-1', 'x', 1), drive(linked, 'conversation-2', 'y', 1)]);
    expect([...one, ...two].filter((c) => c === 4)).toEqual([]);
    expect(readdirSync(join(main, '.git/autopilot/runs')).sort()).toEqual(['x', 'y']);
    expect(events(main, '_docs/_runs/x').some((e) => e.event === 'step_completed')).toBe(true);
    expect(events(linked, '_docs/_runs/y').some((e) => e.event === 'step_completed')).toBe(true);
  });
});

describe('init --run', () => {
  it('two runs started by init --run on two branches merge without a conflict: 1 block of lines for every named run, 0 conflicts, both runs on main and uninstall takes out all 4 blocks', async () => {
    const dir = gitRepo();
    expect((await cli(dir, ['init', '--flow', 'greenfield'])).code).toBe(0);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'set up autopilot');
    for (const run of ['login', 'search']) {
      git(dir, 'checkout', '-q', '-b', run, 'main');
      expect((await cli(dir, ['init', '--run', run, '--flow', 'greenfield'])).code).toBe(0);
      git(dir, 'add', '-A');
      git(dir, 'commit', '-q', '-m', `start ${run}`);
    }
    git(dir, 'checkout', '-q', 'main');
    git(dir, 'merge', '-q', '--no-edit', 'login');
    // A conflict makes git merge exit 1 (execFileSync throws): both branches added the same lines.
    git(dir, 'merge', '-q', '--no-edit', 'search');
    expect(readFileSync(join(dir, '.gitattributes'), 'utf8').match(/_runs\/\*\/_autopilot\/journal\.jsonl merge=union/g)).toHaveLength(1);
    expect(git(dir, 'check-attr', 'merge', '_docs/_runs/search/_autopilot/journal.jsonl')).toContain('merge: union');
    expect(JSON.parse((await cli(dir, ['runs', '--json'])).stdout).runs.map((r: { run: string }) => r.run)).toEqual(['default', 'login', 'search']);
    expect((await cli(dir, ['uninstall'])).code).toBe(0);
    expect(existsSync(join(dir, '.gitignore')) || existsSync(join(dir, '.gitattributes'))).toBe(false);
  });

  it('init --run b after init: 0 of the default run’s files changed, the run named in text and JSON; again: 0 files changed', async () => {
    const dir = gitRepo();
    expect((await cli(dir, ['init', '--flow', 'greenfield', '--json'])).code).toBe(0);
    const setUp = filesUnder(dir, '.', ['./.git', './_docs/_runs']);
    const started = await cli(dir, ['init', '--run', 'b', '--flow', 'greenfield', '--json']);
    expect(started.code).toBe(0);
    expect(started.json).toMatchObject({ run: 'b', pointer: { flow: 'greenfield', step: 1, name: 'Problem' } });
    const changed = Object.entries(filesUnder(dir, '.', ['./.git', './_docs/_runs'])).filter(([path, text]) => setUp[path] !== text);
    // The repository's git lines gain the run's; nothing else (no default run file, no client file) changes.
    expect(changed.map(([path]) => path).sort()).toEqual(['./.gitattributes', './.gitignore']);
    expect((started.json?.created as string[]).sort()).toEqual(['_docs/_runs/b/_autopilot/journal.jsonl', '_docs/_runs/b/_autopilot_state.md']);
    const again = await cli(dir, ['init', '--run', 'b', '--json']);
    expect(again.code).toBe(0);
    expect(again.json).toMatchObject({ run: 'b', created: [], changed: [] });
    expect((await cli(dir, ['init', '--run', 'b'])).stdout).toMatch(
      /^Run b: already started, left as it stands\. Run `[^`]*next[^`]*--run b`, or `\/autopilot b` in your agent\.$/m,
    );
    const text = await cli(dir, ['init', '--run', 'c', '--flow', 'greenfield']);
    expect(text.stdout).toMatch(/Run c: started greenfield at step 1 \(Problem\)\. Run `[^`]*next[^`]*--run c`, or `\/autopilot c` in your agent/);
  });

  /** A repository whose default run has (or has not) its Document output, and a named run started with no --flow. */
  async function namedExistingCode(documented: boolean) {
    const dir = gitRepo({ code: true });
    expect((await cli(dir, ['init', '--flow', 'existing-code', '--json'])).code).toBe(0);
    if (documented) writeStep(dir, ['_docs/02_document/architecture.md', '_docs/02_document/components.md']);
    const init = await cli(dir, ['init', '--run', 'feature', '--json']);
    expect(init.code).toBe(0);
    return { dir, init };
  }

  it('a named existing-code run where the Document output exists starts at New Task (step 8): 7 steps journaled as the repository’s, next reads _docs/02_document/, 0 drift', async () => {
    const { dir, init } = await namedExistingCode(true);
    expect(init.json).toMatchObject({
      run: 'feature',
      pointer: { flow: 'existing-code', step: 8, name: 'New Task' },
      repository: { read: '_docs/02_document/' },
    });
    const [started] = events(dir, '_docs/_runs/feature');
    expect(started).toMatchObject({ event: 'run_started', step: 8, repository: { read: '_docs/02_document/', steps: [1, 2, 3, 4, 5, 6, 7] } });
    const log = await cli(dir, ['--run', 'feature', 'log']);
    expect(log.stdout).toMatch(/run_started .* step 8 New Task .*repository=\{"read":"_docs\/02_document\/","steps":\[1,2,3,4,5,6,7\]\}/);
    const next = await as(dir, 'conversation-f', '--run', 'feature', 'next');
    expect(next.code).toBe(0);
    expect(next.json).toMatchObject({
      step: 8,
      name: 'New Task',
      drift: [],
      reads: ['_docs/02_document/'],
      done_when: ['_docs/_runs/feature/02_tasks/cycle-1/_index.md'],
    });
    const nextText = await cli(dir, ['--run', 'feature', 'next'], { env: { AUTOPILOT_SESSION: 'conversation-f' } });
    expect(nextText.stdout).toMatch(/Reads: +_docs\/02_document\//);
    const status = await as(dir, 'conversation-f', '--run', 'feature', 'status');
    expect(status.json).toMatchObject({ step: 8, drift: [] });
  });

  it('a named existing-code run where no Document output exists starts at step 1 (Document), with no repository steps', async () => {
    const { dir, init } = await namedExistingCode(false);
    expect(init.json).toMatchObject({ pointer: { flow: 'existing-code', step: 1, name: 'Document' } });
    expect(init.json?.repository).toBeUndefined();
    expect(events(dir, '_docs/_runs/feature')[0]?.repository).toBeUndefined();
    const next = await as(dir, 'conversation-f', '--run', 'feature', 'next');
    expect(next.json).toMatchObject({ step: 1, name: 'Document' });
    expect(next.json?.reads).toBeUndefined();
  });
});

describe('the SessionStart hook names the run', () => {
  const hook = (dir: string, env: Record<string, string>) =>
    spawnSync(process.execPath, [BIN, 'hook', 'session-start'], {
      cwd: dir,
      input: JSON.stringify({ session_id: 'conversation-9', source: 'startup' }),
      encoding: 'utf8',
      env: { ...process.env, AUTOPILOT_SESSION: '', CLAUDE_PROJECT_DIR: dir, CLAUDE_ENV_FILE: '', ...env },
    }).stdout;

  it('AUTOPILOT_RUN=b: the context names run b and its next line carries --run b; with no run named beside named runs, it says default', async () => {
    const dir = gitRepo();
    expect((await cli(dir, ['init', '--flow', 'greenfield', '--json'])).code).toBe(0);
    expect((await cli(dir, ['init', '--run', 'b', '--flow', 'greenfield', '--json'])).code).toBe(0);
    const named = hook(dir, { AUTOPILOT_RUN: 'b' });
    expect(named).toMatch(/^autopilot run: b \(this conversation drives it: `--run b` on every command, `run: "b"` on every MCP tool\)$/m);
    expect(named).toMatch(/next --json --run b/);
    const plain = hook(dir, { AUTOPILOT_RUN: '' });
    expect(plain).toMatch(/^autopilot run: default /m);
    expect(plain).not.toMatch(/next --json --run/);
  });
});
