/**
 * A progress commit killed at every git call it makes. A wrapper named `git`,
 * first on PATH, runs the real git and kills the process that called it
 * (SIGKILL) at the Nth git invocation, or at the Nth invocation naming a
 * given command, before running it or after it returned. After each kill the
 * test does what the next command does (`cleanLeftovers`, `repairIndex`) and
 * asserts: HEAD, the index and the work tree agree for the committed paths
 * (no index entry behind HEAD; at most one ahead of it, when the commit was
 * not made), every other index entry is as it was, nothing of autopilot's is
 * left in the git folder; then the retry, which first looks for the commit
 * by its trailers, leaves the commit made exactly once.
 */
import { execFile, spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findProgressCommit } from '../../src/git/history.js';
import { changedSince, cleanLeftovers, progressCommit, repairIndex, snapshotWorkTree } from '../../src/git/progress-commit.js';
import { progressMessage } from '../../src/git/progress-message.js';
import { openGit, type GitHandle } from '../../src/git/repository.js';
import { git, handleFor, newRepo, repoWith, tempDir, write } from '../helpers/git.js';
import type { JobSpec } from './kills/child.js';
import { hashFile, readCommit, readIndex, readRef, readTree } from './kills/read-repo.js';

const exec = promisify(execFile);
const POINTER = '_docs/_autopilot_state.md';
const JOURNAL = '_docs/_autopilot/journal.jsonl';
const EVENT = 7;
const message = progressMessage({ flow: 'greenfield', step: 3, steps: 10, name: 'Plan', status: 'completed', cycle: 1, session: 's-1', event: EVENT });
/** The commands named for "kill at the Nth call of": each progress commit makes these (update-index twice: the temporary index, then the user's). */
const NAMED = [
  ['read-tree', 1],
  ['update-index', 1],
  ['write-tree', 1],
  ['diff-tree', 1],
  ['commit-tree', 1],
  ['ls-files', 1],
  ['update-ref', 1],
  ['update-index', 2],
] as const;
const NAMED_SNAPSHOT = [
  ['add', 1],
  ['write-tree', 1],
] as const;
const WORKERS = 6;

let work: string;
let child: string;
let bin: string;

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'autopilot-kills-')));
  child = join(work, 'child.mjs');
  await build({
    entryPoints: [join(import.meta.dirname, 'kills', 'child.ts')],
    outfile: child,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
    // A bundled CommonJS package may call require(): give the ES module bundle one.
    banner: { js: "import{createRequire as __r}from'node:module';const require=__r(import.meta.url);" },
  });
  const real = (await exec('sh', ['-c', 'command -v git'])).stdout.trim();
  bin = join(work, 'bin');
  mkdirSync(bin);
  // Each invocation takes the next free number by creating its file with noclobber (an O_EXCL open), so git calls
  // made side by side count once each; only shell builtins, so the wrapper costs little more than the git it runs.
  writeFileSync(
    join(bin, 'git'),
    `#!/bin/sh
calls="$AUTOPILOT_KILL_CALLS"
[ -n "$calls" ] || exec '${real}' "$@"
set -C
i=1
while ! printf '%s\\n' "$*" 2>/dev/null > "$calls/$i.args"; do i=$((i+1)); done
hit=
[ "$AUTOPILOT_KILL_AT" = "$i" ] && hit=1
if [ -n "$AUTOPILOT_KILL_ON" ]; then
  case " $* " in
    *" $AUTOPILOT_KILL_ON "*)
      j=1
      while ! printf '%s\\n' "$i" 2>/dev/null > "$calls/named-$j"; do j=$((j+1)); done
      [ "$AUTOPILOT_KILL_NTH" = "$j" ] && hit=1 ;;
  esac
fi
set +C
[ -n "$hit" ] || exec '${real}' "$@"
echo "$i $AUTOPILOT_KILL_WHEN $*" > "$calls/hit"
if [ "$AUTOPILOT_KILL_WHEN" = before ]; then
  kill -9 "$AUTOPILOT_KILL_PARENT"
  exit 137
fi
'${real}' "$@"
rc=$?
kill -9 "$AUTOPILOT_KILL_PARENT"
exit $rc
`,
  );
  chmodSync(join(bin, 'git'), 0o755);
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Every commit of HEAD's history back to `base` (exclusive), newest first: sha, parents, Autopilot-Event values. */
function commitsSince(gitDir: string, base: string | undefined): { sha: string; parents: string[]; events: string[] }[] {
  const commits = [];
  for (let sha = readRef(gitDir); sha && sha !== base;) {
    const commit = readCommit(gitDir, sha);
    commits.push({ sha, parents: commit.parents, events: [...commit.message.matchAll(/^Autopilot-Event: (.*)$/gm)].map((m) => m[1]!) });
    sha = commit.parents[0];
  }
  return commits;
}

/** Anything of autopilot's, or a lock, left in the git folder. */
function leftovers(gitDir: string): string[] {
  const found = readdirSync(gitDir).filter((name) => name.startsWith('autopilot-') || name.endsWith('.lock'));
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.lock') ? [join(dir, e.name)] : []));
  return [...found, ...walk(join(gitDir, 'refs'))];
}

interface Scenario {
  name: string;
  /** Makes the repository (in a fresh folder); returns the job, relative to that folder's top. */
  make(): Promise<{ top: string; below: string; job: JobSpec }>;
}

interface Prepared {
  template: string;
  job: JobSpec;
  base: string | undefined;
  index: Map<string, string>;
  indexFile: Buffer;
  /** What the commit holds for each path it changes ("" for a deletion), from a run with no kill. */
  committed: Map<string, string>;
  /** The git calls of a run with no kill, their arguments in the order they started. */
  calls: string[];
  handle: GitHandle;
  /** For a snapshot job: the tree a run with no kill gave. */
  tree?: string;
}

interface Tally {
  kills: number;
  madeBeforeKill: number;
  indexAhead: number;
  repaired: number;
  leftoversRemoved: number;
  retried: number;
}

/** Runs the job in the child with the wrapper; the kill as given (none: counts the calls). */
async function runChild(
  dir: string,
  handle: GitHandle,
  job: JobSpec,
  kill: Record<string, string>,
): Promise<{ killed: boolean; calls: string[]; out: string }> {
  const calls = `${dir}.calls`;
  mkdirSync(calls);
  const env = {
    ...process.env,
    PATH: `${bin}:${process.env.PATH}`,
    AUTOPILOT_KILL_CALLS: calls,
    AUTOPILOT_KILL_JOB: JSON.stringify({ ...job, handle: { ...handle, env: undefined } }),
    ...kill,
  };
  // A process group of its own, so the test can tell when every git it started has ended.
  const proc = spawn(process.execPath, [child], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  let err = '';
  proc.stdout.on('data', (chunk: Buffer) => (out += chunk));
  proc.stderr.on('data', (chunk: Buffer) => (err += chunk));
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    proc.on('close', (c, s) => done({ code: c, signal: s })),
  );
  // Git calls made side by side may still be running: wait until the child's process group (it and every git it
  // started, wrapper included) is empty.
  for (let waited = 0; groupAlive(proc.pid!); waited += 5) {
    if (waited > 15_000) throw new Error(`git calls of a killed child still running after 15 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const started = () => readdirSync(calls).flatMap((name) => /^(\d+)\.args$/.exec(name)?.[1] ?? []);
  const hit = existsSync(join(calls, 'hit'));
  if (signal !== 'SIGKILL' && (code !== 0 || hit)) throw new Error(`child: code ${code}, signal ${signal}, hit ${hit}\n${err}`);
  if (signal === 'SIGKILL' && !hit) throw new Error(`child killed, but not by the wrapper\n${err}`);
  const args = started()
    .sort((a, b) => Number(a) - Number(b))
    .map((n) => readFileSync(join(calls, `${n}.args`), 'utf8').trim());
  return { killed: signal === 'SIGKILL', calls: args, out };
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The template's handle, moved to a copy: what openGit would give there, without its two git calls. */
function movedHandle(handle: GitHandle, from: string, to: string): GitHandle {
  const moved = (path: string) => to + path.slice(from.length);
  return { ...handle, root: moved(handle.root), top: moved(handle.top), gitDir: moved(handle.gitDir) };
}

let copies = 0;
function copyOf(template: string): string {
  const dir = join(work, `run-${++copies}`);
  cpSync(template, dir, { recursive: true });
  return dir;
}

async function prepare(scenario: Scenario): Promise<Prepared> {
  const { top, below, job } = await scenario.make();
  const template = join(work, `template-${++copies}`);
  cpSync(top, template, { recursive: true });
  const gitDir = join(template, '.git');
  const [base, index, indexFile] = [readRef(gitDir), readIndex(gitDir), readFileSync(join(gitDir, 'index'))];
  // A run with no kill: how many git calls, and what the commit holds.
  const { handle } = await openGit(join(template, below));
  const dry = copyOf(template);
  const { killed, calls, out } = await runChild(dry, movedHandle(handle!, template, dry), job, {});
  expect(killed).toBe(false);
  const result = (JSON.parse(out) as { result: string | null }).result;
  expect(result).toMatch(/^[0-9a-f]{40}$/);
  const committed = new Map<string, string>();
  if (job.op === 'commit') {
    const dryGit = join(dry, '.git');
    const after = readTree(dryGit, readCommit(dryGit, result!).tree);
    const before = base ? readTree(gitDir, readCommit(gitDir, base).tree) : new Map<string, string>();
    for (const path of new Set([...before.keys(), ...after.keys()])) if (before.get(path) !== after.get(path)) committed.set(path, after.get(path) ?? '');
    expect(committed.size).toBeGreaterThan(0);
  }
  rmSync(dry, { recursive: true, force: true });
  return { template, job, base, index, indexFile, committed, calls, handle: handle!, ...(job.op === 'snapshot' ? { tree: result! } : {}) };
}

/** One kill, then what the next command does, then the checks. */
async function killOnce(p: Prepared, kill: Record<string, string>, tally: Tally): Promise<void> {
  const dir = copyOf(p.template);
  const gitDir = join(dir, '.git');
  const handle = movedHandle(p.handle, p.template, dir);
  const { killed } = await runChild(dir, handle, p.job, kill);
  const label = JSON.stringify(kill);
  expect(killed, label).toBe(true);
  tally.kills += 1;

  // What the next command does first.
  tally.leftoversRemoved += (await cleanLeftovers(handle)).length;
  expect(leftovers(gitDir), label).toEqual([]);

  if (p.job.op === 'snapshot') {
    expect(readRef(gitDir), label).toBe(p.base);
    expect(readFileSync(join(gitDir, 'index')).equals(p.indexFile), label).toBe(true);
    expect(await snapshotWorkTree(handle), label).toBe(p.tree);
    expect(leftovers(gitDir), label).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
    return;
  }

  tally.repaired += (await repairIndex(handle)).length;
  const head = readRef(gitDir);
  const made = head !== p.base;
  if (made) {
    tally.madeBeforeKill += 1;
    expect(readCommit(gitDir, head!).parents, label).toEqual(p.base ? [p.base] : []);
  }
  expectAgreement(dir, p, made, label, tally);

  // The retry: look for the commit by its trailers; commit only if it is not there.
  const found = await findProgressCommit(handle, p.job.input.trailers);
  expect(found, label).toBe(made ? head : undefined);
  if (!found) {
    tally.retried += 1;
    expect(await progressCommit(handle, p.job.input), label).toMatch(/^[0-9a-f]{40}$/);
  }
  // Exactly one commit since the base, on it, carrying the event.
  const since = commitsSince(gitDir, p.base);
  expect(
    since.map((c) => ({ parents: c.parents, events: c.events })),
    label,
  ).toEqual([{ parents: p.base ? [p.base] : [], events: [String(EVENT)] }]);
  expectAgreement(dir, p, true, label);
  expect(leftovers(gitDir), label).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The committed paths: with the commit made, HEAD, the index and the work
 * tree hold the committed version (the index never the parent's); without
 * it, the index holds the old version or the new one (ahead of HEAD,
 * harmless). Every other path's index entry: as it was.
 */
function expectAgreement(dir: string, p: Prepared, made: boolean, label: string, tally?: Tally): void {
  const gitDir = join(dir, '.git');
  const index = readIndex(gitDir);
  const head = made ? readTree(gitDir, readCommit(gitDir, readRef(gitDir)!).tree) : undefined;
  let ahead = false;
  for (const [path, entry] of p.committed) {
    const now = index.get(path) ?? '';
    if (made) {
      expect(head!.get(path) ?? '', `${label} HEAD ${path}`).toBe(entry);
      expect(now, `${label} index ${path}`).toBe(entry);
      expect(hashFile(dir, path) ?? '', `${label} work tree ${path}`).toBe(entry.split(' ')[1] ?? '');
    } else {
      expect([p.index.get(path) ?? '', entry], `${label} index ${path}`).toContain(now);
      ahead ||= now === entry && now !== (p.index.get(path) ?? '');
    }
  }
  if (ahead && tally) tally.indexAhead += 1;
  for (const path of new Set([...p.index.keys(), ...index.keys()])) {
    if (!p.committed.has(path)) expect(index.get(path), `${label} the person's ${path}`).toBe(p.index.get(path));
  }
}

async function inPool<T>(tasks: (() => Promise<T>)[], workers: number): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < tasks.length) {
        const k = next++;
        results[k] = await tasks[k]!();
      }
    }),
  );
  return results;
}

/**
 * The kills for a prepared job. Every moment between two git calls is a kill
 * before the call that follows it, so `npm test` kills before each call N and
 * after the last one: every point, once. AUTOPILOT_KILLS=all adds the same
 * points reached the other way (after each call, and at each named command
 * before and after it), which `npm test` leaves out for time.
 */
function killsFor(p: Prepared): Record<string, string>[] {
  const kills: Record<string, string>[] = [];
  const all = process.env.AUTOPILOT_KILLS === 'all';
  const times = (name: string) => p.calls.filter((args) => ` ${args} `.includes(` ${name} `)).length;
  // A named command the job does not run (diff-tree on a first commit) is left out: nothing to kill at.
  const named = (p.job.op === 'commit' ? NAMED : NAMED_SNAPSHOT).filter(([name, nth]) => times(name) >= nth);
  for (let n = 1; n <= p.calls.length; n++) kills.push({ AUTOPILOT_KILL_AT: String(n), AUTOPILOT_KILL_WHEN: 'before' });
  kills.push({ AUTOPILOT_KILL_AT: String(p.calls.length), AUTOPILOT_KILL_WHEN: 'after' });
  if (all) {
    for (let n = 1; n < p.calls.length; n++) kills.push({ AUTOPILOT_KILL_AT: String(n), AUTOPILOT_KILL_WHEN: 'after' });
    for (const when of ['before', 'after'])
      for (const [name, nth] of named) kills.push({ AUTOPILOT_KILL_ON: name, AUTOPILOT_KILL_NTH: String(nth), AUTOPILOT_KILL_WHEN: when });
  }
  return kills;
}

/** A project with the person's work in progress and the step's work done: what most progress commits meet. */
async function stepProject(): Promise<{ top: string; below: string; job: JobSpec }> {
  const top = repoWith({
    [POINTER]: 'step: 2\n',
    [JOURNAL]: '{"seq":1}\n',
    '.gitignore': 'build/\n',
    'src/app.ts': 'app\n',
    'src/lib.ts': 'lib\n',
    'src/old.ts': 'old\n',
    'README.md': 'readme\n',
  });
  write(top, 'src/app.ts', 'app, modified by the person\n');
  write(top, 'README.md', 'readme, staged by the person\n');
  git(top, 'add', 'README.md');
  write(top, 'notes.txt', 'untracked\n');
  const handle = await handleFor(top);
  const snapshot = await snapshotWorkTree(handle);
  write(top, 'src/lib.ts', 'lib, by the step\n');
  write(top, 'src/new.ts', 'new, by the step\n');
  rmSync(join(top, 'src/old.ts'));
  write(top, 'build/out.js', 'ignored\n');
  write(top, POINTER, 'step: 3\n');
  write(top, JOURNAL, `{"seq":1}\n{"seq":${EVENT}}\n`);
  const changed = await changedSince(handle, snapshot);
  // Kept where a scenario committing by the snapshot finds it (its tree is in the object database; no gc runs here).
  writeFileSync(join(top, '.git', 'snapshot'), `${snapshot}\n`);
  return { top, below: '', job: { op: 'commit', input: { files: [POINTER, JOURNAL], changed, ...message } } };
}

const SCENARIOS: Scenario[] = [
  { name: "a step's work beside the person's modified, staged and untracked files", make: stepProject },
  {
    name: 'the first commit of a repository, the person having staged a file',
    make: async () => {
      const top = newRepo();
      write(top, 'app.ts', 'staged\n');
      git(top, 'add', 'app.ts');
      write(top, POINTER, 'step: 1\n');
      write(top, JOURNAL, '{"seq":1}\n');
      return { top, below: '', job: { op: 'commit', input: { files: [POINTER, JOURNAL], ...message } } };
    },
  },
  {
    name: 'a root below the top of the work tree (a monorepo package)',
    make: async () => {
      const top = repoWith({ [`packages/app/${POINTER}`]: 'step: 2\n', 'packages/app/a.md': 'a\n', 'other/b.md': 'b\n' });
      write(top, `packages/app/${POINTER}`, 'step: 3\n');
      write(top, 'packages/app/a.md', 'a, by the step\n');
      write(top, 'other/b.md', 'b, by the person\n');
      git(top, 'add', 'other/b.md');
      return { top, below: 'packages/app', job: { op: 'commit', input: { files: [POINTER], changed: ['a.md'], ...message } } };
    },
  },
  {
    name: 'many files in many folders, some deleted',
    make: async () => {
      const files: Record<string, string> = { [POINTER]: 'step: 2\n' };
      for (let i = 0; i < 40; i++) files[`src/part${i % 8}/file${i}.ts`] = `${i}\n`;
      const top = repoWith(files);
      write(top, 'src/part0/file0.ts', 'staged by the person\n');
      git(top, 'add', 'src/part0/file0.ts');
      const changed: string[] = [];
      for (let i = 1; i < 40; i += 2) {
        const path = `src/part${i % 8}/file${i}.ts`;
        if (i % 3 === 0) rmSync(join(top, path));
        else write(top, path, `${i}, by the step\n`);
        changed.push(path);
      }
      write(top, POINTER, 'step: 3\n');
      return { top, below: '', job: { op: 'commit', input: { files: [POINTER], changed, ...message } } };
    },
  },
  {
    name: 'a signed commit (commit.gpgSign, an ssh key)',
    make: async () => {
      const made = await stepProject();
      const key = join(tempDir(), 'key');
      await exec('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'test@example.invalid', '-f', key]);
      for (const [name, value] of [
        ['commit.gpgSign', 'true'],
        ['gpg.format', 'ssh'],
        ['user.signingKey', `${key}.pub`],
      ]) {
        git(made.top, 'config', name!, value!);
      }
      return made;
    },
  },
  {
    name: "a step's work told by its snapshot (since), beside the person's modified, staged and untracked files",
    make: async () => {
      const made = await stepProject();
      if (made.job.op !== 'commit') throw new Error('a commit job');
      const snapshot = readFileSync(join(made.top, '.git', 'snapshot'), 'utf8').trim();
      return { ...made, job: { op: 'commit', input: { ...made.job.input, changed: [], since: snapshot } } };
    },
  },
  {
    name: 'a work-tree snapshot',
    make: async () => {
      const made = await stepProject();
      return { ...made, job: { op: 'snapshot' } };
    },
  },
];

describe('a progress commit killed at every git call', () => {
  const tallies: { name: string; calls: number; tally: Tally; ms: number }[] = [];
  afterAll(() => {
    const total = tallies.reduce((sum, t) => sum + t.tally.kills, 0);
    for (const { name, calls, tally, ms } of tallies) console.log(`${name}: ${calls} git calls, ${JSON.stringify(tally)}, ${ms} ms`);
    console.log(`kills in all: ${total}`);
  });

  for (const scenario of SCENARIOS) {
    it(
      `${scenario.name}: killed at every point between its git calls${process.env.AUTOPILOT_KILLS === 'all' ? ' (reached before and after each call and at each named command)' : ''}, repaired, retried: made exactly once`,
      { timeout: 240_000 },
      async () => {
        const start = Date.now();
        const p = await prepare(scenario);
        const tally: Tally = { kills: 0, madeBeforeKill: 0, indexAhead: 0, repaired: 0, leftoversRemoved: 0, retried: 0 };
        const kills = killsFor(p);
        await inPool(
          kills.map((kill) => () => killOnce(p, kill, tally)),
          WORKERS,
        );
        expect(tally.kills).toBe(kills.length);
        // The order alone keeps the index from falling behind: nothing is left for repairIndex.
        expect(tally.repaired).toBe(0);
        tallies.push({ name: scenario.name, calls: p.calls.length, tally, ms: Date.now() - start });
      },
    );
  }

  it(`in all, every point of every scenario killed${process.env.AUTOPILOT_KILLS === 'all' ? ', over 200 kills' : ''}`, () => {
    const kills = tallies.reduce((sum, t) => sum + t.tally.kills, 0);
    // Before each of a scenario's git calls, and after its last.
    expect(kills).toBeGreaterThanOrEqual(tallies.reduce((sum, t) => sum + t.calls + 1, 0));
    expect(tallies).toHaveLength(SCENARIOS.length);
    if (process.env.AUTOPILOT_KILLS === 'all') expect(kills).toBeGreaterThanOrEqual(200);
  });
});
