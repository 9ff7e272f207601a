/**
 * The seeds' last rows (issue 30), through the built CLI on real folders and
 * real git: each row made faithful to its seed, or kept as a declared
 * departure (docs/state-and-journal.md, "Departures from the seeds").
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { autopilot, GREENFIELD_1_TO_7, journal, type NextJson, read, sessionStart, tempRepo, write } from '../helpers/cli.js';
import { git, newRepo } from '../helpers/git.js';
import { ROOT } from '../helpers/engine.js';
import { thisMachine } from '../../src/io/machine.js';

const BIN = join(ROOT, 'bin', 'autopilot.js');
const LOCK = '_docs/_autopilot/lock';
const POINTER = '_docs/_autopilot_state.md';
const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

/** The built CLI as a child this test does not wait for: its exit code (-1 when killed at `limitMs`) and stderr when it ends. */
function autopilotLater(dir: string, ...args: string[]): Promise<{ code: number; stderr: string }> {
  const child = spawn(process.execPath, [BIN, '-C', dir, ...args], { env: { ...process.env, AUTOPILOT_SESSION: '' } });
  started.push(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.resume();
  const limit = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) => child.on('exit', (code) => (clearTimeout(limit), resolve({ code: code ?? -1, stderr }))));
}

const FLOW = '.autopilot/flows/greenfield.md';

describe('seed 004: a prose edit is not a decision change', () => {
  it('1 line of prose added to a repository flow: 0 notices on status and on 3 `next`s, no repin needed', () => {
    const dir = tempRepo();
    write(dir, FLOW, read(ROOT, 'flows/greenfield.md'));
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    autopilot(dir, 'next');
    write(dir, FLOW, read(dir, FLOW).replace('## Decisions\n', '## Decisions\n\nA person answers each of these.\n'));
    const said: string[] = [];
    said.push(...(autopilot(dir, 'status', '--json').json<{ notices?: string[] }>().notices ?? []));
    for (let i = 0; i < 3; i++) said.push(...(autopilot(dir, 'next', '--json').json<NextJson & { notices?: string[] }>().notices ?? []));
    expect(said).toEqual([]);
    expect(autopilot(dir, 'check').code).toBe(0);
  });
});

describe('seed 001 rule 7: the failure shown is the recorded one', () => {
  it('3 failures recorded, then 2 refused `fail --reason`s: the box, the JSON and `status` show the 3rd recorded reason, 0 times the refused ones', () => {
    const dir = tempRepo();
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    for (let i = 1; i <= 3; i++) {
      autopilot(dir, 'next');
      autopilot(dir, 'fail', '--reason', `recorded reason ${i}`);
    }
    const text = autopilot(dir, 'fail', '--reason', 'a refused reason');
    expect(text.code).toBe(3);
    expect(text.stdout).toContain('Last reason: recorded reason 3');
    const json = autopilot(dir, 'fail', '--reason', 'another refused reason', '--json');
    expect(json.code).toBe(3);
    expect(json.json<{ reason?: string }>().reason).toBe('recorded reason 3');
    expect(autopilot(dir, 'status').stdout).toContain('Last reason: recorded reason 3');
    const failures = journal(dir).filter((e) => e.event === 'step_failed');
    expect(failures.map((e) => e.reason)).toEqual(['recorded reason 1', 'recorded reason 2', 'recorded reason 3']);
  });
});

describe('seed 003: a stuck lock is loud', () => {
  const anHourAgo = () => new Date(Date.now() - 60 * 60_000);
  /** A greenfield run at step 1 with a lock left in the way, its file an hour old. */
  function locked(text: string): string {
    const dir = tempRepo();
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    expect(autopilot(dir, 'next').code).toBe(0);
    writeFileSync(join(dir, LOCK), text);
    utimesSync(join(dir, LOCK), anHourAgo(), anHourAgo());
    return dir;
  }
  const holder = (fields: Record<string, unknown>) =>
    JSON.stringify({ host: 'elsewhere', machine: 'another-machine-id', session: 'ghost', at: anHourAgo().toISOString(), nonce: 'c0ffee', ...fields });

  it('3 locks in the way (garbage, another machine’s, a live command’s of this machine): 3 step commands exit 4, and status, status --json, check and the hook each name all 3 with who clears them', async () => {
    const sleeper = spawn('sleep', ['60']);
    started.push(sleeper);
    const cases = [
      { kind: 'garbage', dir: locked('\u0000\u0001 not a lock'), says: 'names no holder', clears: 'a person removes it' },
      { kind: 'another machine', dir: locked(holder({ pid: 4242 })), says: "held by another machine's command (pid 4242 on elsewhere", clears: '--take-over' },
      {
        kind: 'a live command of this machine',
        dir: locked(holder({ pid: sleeper.pid, host: 'here', machine: thisMachine().machine })),
        says: 'still runs on this machine',
        clears: `kill -CONT ${sleeper.pid}`,
      },
    ];
    // Every step command is refused (each waits its 10 s in parallel with the reads below).
    const steps = cases.map((c) => autopilotLater(c.dir, 'substep', 'blocked'));
    let loud = 0;
    for (const c of cases) {
      const text = autopilot(c.dir, 'status').stdout;
      expect(text, c.kind).not.toContain('Problems  none');
      expect(text.replace(/\s+/g, ' '), c.kind).toContain(c.says);
      const json = autopilot(c.dir, 'status', '--json').json<{ guards: string[] }>();
      expect(json.guards, c.kind).toEqual([expect.stringContaining(c.clears)]);
      const check = autopilot(c.dir, 'check');
      expect(check.code, c.kind).toBe(2);
      expect(check.stdout + check.stderr, c.kind).toContain(c.says);
      const hook = sessionStart(c.dir);
      expect(hook, c.kind).toContain(c.says);
      expect(hook, c.kind).not.toContain('Continue with');
      loud++;
    }
    const refused = await Promise.all(steps);
    expect(refused.map((r) => r.code)).toEqual([4, 4, 4]);
    expect(loud).toBe(3);
  }, 40_000);

  it('2 locks that block nothing (a command at work, a holder gone from this machine): 0 guards each; the gone one is broken by the next command', () => {
    const fresh = locked(holder({ pid: 4242 }));
    utimesSync(join(fresh, LOCK), new Date(), new Date());
    expect(autopilot(fresh, 'status', '--json').json<{ guards: string[] }>().guards).toEqual([]);
    const ended = spawnSync(process.execPath, ['-e', '0']).pid;
    const gone = locked(holder({ pid: ended, host: 'here', machine: thisMachine().machine }));
    expect(autopilot(gone, 'status', '--json').json<{ guards: string[] }>().guards).toEqual([]);
    expect(autopilot(gone, 'substep', 'goes on').code).toBe(0);
    expect(journal(gone).filter((e) => e.event === 'lock_broken')).toEqual([expect.objectContaining({ reason: 'gone' })]);
  });
});

describe('seed 001: boundary A holds the conversation that reached it', () => {
  /** A greenfield run whose Decompose (step 5) was just completed by `session` (or by unnamed commands): the boundary waits. */
  function atBoundary(...session: string[]): string {
    const dir = tempRepo();
    const run = (...args: string[]) => autopilot(dir, ...session, ...args);
    expect(run('init', '--flow', 'greenfield').code).toBe(0);
    const steps = [
      ['00_problem/problem.md', '00_problem/acceptance_criteria.md'],
      ['01_solution/solution_draft_01.md'],
      ['01_solution/solution.md', '02_document/architecture.md'],
      ['02_tasks/_index.md'],
    ];
    for (const files of steps) {
      run('next');
      for (const f of files) write(dir, `_docs/${f}`);
      const done = run('done', '--json').json<NextJson>();
      // The person answers in a terminal: `decide` with an option before it is refused (person-only commands).
      if (done.decision) expect(autopilot(dir, 'decide', 'B').code).toBe(0);
    }
    expect(journal(dir).at(-1)).toMatchObject({ event: 'boundary_reached', after: 5 });
    return dir;
  }

  it("a person's `decide A` in a terminal: the conversation that reached it gets exit 3 on 3 `next`s (0 events), a new conversation starts Implement", () => {
    const dir = atBoundary('--session', 'conversation-1');
    const a = autopilot(dir, 'decide', 'A');
    expect(a.code).toBe(3);
    const events = journal(dir).length;
    for (let i = 0; i < 3; i++) {
      const again = autopilot(dir, '--session', 'conversation-1', 'next');
      expect(again.code).toBe(3);
      expect(again.stdout).toContain('Start a new conversation');
      expect(again.stdout, 'not handed the skill of Implement').not.toContain('Read:');
    }
    expect(journal(dir)).toHaveLength(events);
    const json = autopilot(dir, '--session', 'conversation-1', 'next', '--json');
    expect(json.json<{ outcome: string; boundary: { answered?: string } }>()).toMatchObject({ outcome: 'boundary', boundary: { answered: 'A' } });
    const fresh = autopilot(dir, '--session', 'conversation-2', 'next', '--json');
    expect(fresh.code).toBe(0);
    expect(fresh.json<NextJson>()).toMatchObject({ step: 6, name: 'Implement', action: 'start' });
  });

  it('where conversations cannot be told apart (every command `local`): A said once by the answer, and the next `next` goes on; 0 loops', () => {
    const dir = atBoundary();
    expect(autopilot(dir, 'decide', 'A').code).toBe(3);
    const next = autopilot(dir, 'next', '--json');
    expect(next.code).toBe(0);
    expect(next.json<NextJson>()).toMatchObject({ step: 6, action: 'start' });
  });

  it('a person who answered A and then B: the conversation that reached it goes on', () => {
    const dir = atBoundary('--session', 'conversation-1');
    expect(autopilot(dir, 'decide', 'A').code).toBe(3);
    expect(autopilot(dir, 'decide', 'B').code).toBe(0);
    expect(autopilot(dir, '--session', 'conversation-1', 'next', '--json').json<NextJson>()).toMatchObject({ step: 6, action: 'start' });
  });
});

describe('a remote lease never hangs', () => {
  /** A "remote" that accepts TCP connections and never says a word; `close` cuts them. */
  async function silentServer() {
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as { port: number };
    const close = () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((done) => server.close(() => done()));
    };
    return { port, connections: () => sockets.size, close };
  }

  /** The processes of this machine whose command line names `needle` (Linux: /proc): git and its helpers talking to the server. */
  function processesNaming(needle: string): string[] {
    const found: string[] = [];
    for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
      try {
        const line = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
        if (line.includes(needle)) found.push(`${pid}: ${line}`);
      } catch {
        // Ended meanwhile.
      }
    }
    return found;
  }

  it.skipIf(process.platform !== 'linux')(
    'a remote that accepts and never answers, over http:// and git://: `lease --remote` exits 1 within its 1 s limit (bound 6 s) each; 0 git processes left',
    async () => {
      const server = await silentServer();
      try {
        const dir = newRepo();
        git(dir, 'commit', '--quiet', '--allow-empty', '--message', 'initial');
        write(dir, '.autopilot/config.yml', 'lease:\n  remote_timeout_seconds: 1\n');
        const address = `127.0.0.1:${server.port}`;
        git(dir, 'remote', 'add', 'web', `http://${address}/x.git`);
        git(dir, 'remote', 'add', 'daemon', `git://${address}/x.git`);
        const results: string[] = [];
        for (const remote of ['web', 'daemon']) {
          const start = Date.now();
          const run = await autopilotLater(dir, 'lease', '--remote', remote);
          const took = Date.now() - start;
          results.push(`${remote}: exit ${run.code} after ${took} ms`);
          expect(run.code, `${remote}: ${run.stderr}`).toBe(1);
          expect(run.stderr).toContain(`the remote ${remote} did not answer within 1 s`);
          expect(took, remote).toBeLessThan(6_000);
          await expect.poll(() => processesNaming(address), { timeout: 3_000 }).toEqual([]);
        }
        console.log(`silent remote: ${results.join('; ')}; git processes left: 0`);
      } finally {
        await server.close();
      }
    },
    30_000,
  );
});

describe('seed 001: git is the third source', () => {
  /** A greenfield run, steps committed, at step 3 after 2 failed attempts: what only the pointer and journal know. */
  function twiceFailedAtPlan(): string {
    const dir = newRepo();
    git(dir, 'commit', '--quiet', '--allow-empty', '--message', 'initial');
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    git(dir, 'add', '-A');
    git(dir, 'commit', '--quiet', '--message', 'autopilot set up');
    for (const files of [['00_problem/problem.md', '00_problem/acceptance_criteria.md'], ['01_solution/solution_draft_01.md']]) {
      autopilot(dir, 'next');
      for (const f of files) write(dir, `_docs/${f}`);
      if (autopilot(dir, 'done', '--json').json<NextJson>().decision) autopilot(dir, 'decide', 'B');
    }
    for (let i = 1; i <= 2; i++) {
      autopilot(dir, 'next');
      autopilot(dir, 'fail', '--reason', `not yet ${i}`);
    }
    expect(autopilot(dir, 'status', '--json').json<NextJson>()).toMatchObject({ step: 3, retry_count: 2 });
    // A failure that leaves retries is no progress commit: the person commits it, and HEAD holds the pointer and journal as they are.
    git(dir, 'add', '-A');
    git(dir, 'commit', '--quiet', '--message', 'two attempts at Plan');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    return dir;
  }
  const JOURNAL = '_docs/_autopilot/journal.jsonl';
  const eventsAtHead = (dir: string) => git(dir, 'show', `HEAD:${JOURNAL}`).trim().split('\n').length;

  it('pointer and journal deleted while HEAD holds both: status takes HEAD’s position (step 3, 2 failures), next and done stop (exit 2), 0 commits, HEAD’s journal kept whole; checked out again, the run goes on', () => {
    const dir = twiceFailedAtPlan();
    const events = eventsAtHead(dir);
    const head = git(dir, 'rev-parse', 'HEAD');
    rmSync(join(dir, POINTER));
    rmSync(join(dir, JOURNAL));

    const status = autopilot(dir, 'status', '--json');
    expect(status.code, status.stderr).toBe(0);
    const json = status.json<NextJson>();
    expect(json).toMatchObject({ step: 3, name: 'Plan', retry_count: 2, source: 'git' });
    expect(json.drift).toEqual([expect.objectContaining({ kind: 'from-git', message: expect.stringContaining(`git checkout HEAD -- ${POINTER} ${JOURNAL}`) })]);

    for (const command of [['next'], ['done'], ['fail', '--reason', 'x']]) {
      const refused = autopilot(dir, ...command);
      expect(refused.code, command[0]).toBe(2);
      expect(refused.stderr).toContain('HEAD holds the pointer and the journal');
      expect(refused.stderr).toContain(`git checkout HEAD -- ${POINTER} ${JOURNAL}`);
    }
    expect(existsSync(join(dir, JOURNAL)), 'no new journal begun').toBe(false);
    expect(existsSync(join(dir, POINTER)), 'no new pointer written').toBe(false);
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
    expect(eventsAtHead(dir)).toBe(events);
    const check = autopilot(dir, 'check');
    expect(check.code).toBe(2);
    expect(check.stdout + check.stderr).toContain('HEAD holds the pointer and the journal');

    git(dir, 'checkout', 'HEAD', '--', POINTER, JOURNAL);
    const next = autopilot(dir, 'next', '--json');
    expect(next.code).toBe(0);
    expect(next.json<NextJson>()).toMatchObject({ step: 3, retry_count: 2, action: 'retry' });
    expect(journal(dir).length).toBeGreaterThan(events);
  });

  it('a person’s `reset --flow greenfield` in that state starts the run over (run_started, source: reset), and `next` walks the folder to the decision', () => {
    const dir = twiceFailedAtPlan();
    rmSync(join(dir, POINTER));
    rmSync(join(dir, JOURNAL));
    expect(autopilot(dir, 'next').stderr).toContain('a person runs `autopilot reset --flow greenfield`');
    expect(autopilot(dir, 'reset', '--flow', 'greenfield').code).toBe(0);
    // The folder's work is walked again, up to Research's decision, which waits for a person.
    expect(autopilot(dir, 'next', '--json').json<NextJson>()).toMatchObject({ step: 2, decision: expect.anything() });
    expect(journal(dir)[0]).toMatchObject({ event: 'run_started', source: 'reset' });
  });
});

describe('seed 003: a setting for the follow-through notice', () => {
  /** Work written by hand past step 1 while the last action expected step 1: what the notice is about. */
  function wentElsewhere(config: string): { dir: string; said: number; journaled: number } {
    const dir = tempRepo();
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    write(dir, '.autopilot/config.yml', `${read(dir, '.autopilot/config.yml')}${config}`);
    autopilot(dir, 'next');
    for (const rel of GREENFIELD_1_TO_7.slice(0, 5)) write(dir, `_docs/${rel}`);
    const notices = [autopilot(dir, 'status', '--json').json<{ notices?: string[] }>(), autopilot(dir, 'next', '--json').json<{ notices?: string[] }>()]
      .flatMap((a) => a.notices ?? [])
      .filter((n) => n.includes('expected step 1 (Problem) next'));
    return { dir, said: notices.length, journaled: journal(dir).filter((e) => e.event === 'follow_through').length };
  }

  it('`follow_through: false`: 0 notices said, 0 journaled; without it: said by status and next (2), journaled once', () => {
    expect(wentElsewhere('follow_through: false\n')).toMatchObject({ said: 0, journaled: 0 });
    expect(wentElsewhere('')).toMatchObject({ said: 2, journaled: 1 });
  });
});

describe('seed 002: a checkpoint every hour', () => {
  it('the first step command an hour after the last checkpoint takes 1 (hourly); the next, right after, none: 2 checkpoints in all', () => {
    const dir = tempRepo();
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    autopilot(dir, 'next');
    const taken = autopilot(dir, 'checkpoint', '--json').json<{ id: string }>().id;
    // That checkpoint is now 61 minutes old: its id (its time) and its file say so.
    const folder = join(dir, '_docs/_autopilot/checkpoints');
    const old = new Date(Date.now() - 61 * 60_000).toISOString().replaceAll(':', '');
    const renamed = `${old}-${taken.split('-').slice(3).join('-')}`;
    writeFileSync(join(folder, `${renamed}.json`), readFileSync(join(folder, `${taken}.json`)));
    rmSync(join(folder, `${taken}.json`));
    const first = autopilot(dir, 'substep', '2 — Restrictions', '--json').json<{ checkpoint?: string }>();
    expect(first.checkpoint).toMatch(/-hourly$/);
    expect(autopilot(dir, 'substep', '3 — Acceptance criteria', '--json').json<{ checkpoint?: string }>().checkpoint).toBeUndefined();
    expect(readdirSync(folder).filter((n) => n.endsWith('.json'))).toHaveLength(2);
  });
});

describe('seed 004 and seed 000: the names the seeds use', () => {
  it('every event a run writes names its step’s place as seed 004 does, `step_index` (all of them), none as `index`', () => {
    const dir = tempRepo();
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    autopilot(dir, 'next');
    autopilot(dir, 'substep', '2 — Restrictions');
    autopilot(dir, 'fail', '--reason', 'not yet');
    const events = journal(dir);
    expect(events.filter((e) => e.step_index === 0)).toHaveLength(events.length);
    expect(events.filter((e) => 'index' in e)).toEqual([]);
  });

  it('a pointer written in seed 000’s words (`last_action`, `last_action_result`, `timestamp`, `next_target`): its last action is read, and followed through', () => {
    const dir = tempRepo();
    write(
      dir,
      POINTER,
      [
        '# Autopilot State',
        '',
        '## Current Step',
        'flow: greenfield',
        'step: 1',
        'name: Problem',
        'status: in_progress',
        'sub_step: 0',
        'retry_count: 0',
        '',
        '## Last Action',
        'last_action: next step 1 (Problem)',
        'last_action_result: partial',
        'timestamp: 2026-11-26T10:00:00.000Z',
        'next_target: step 1 (Problem)',
        '',
      ].join('\n'),
    );
    for (const rel of GREENFIELD_1_TO_7.slice(0, 5)) write(dir, `_docs/${rel}`);
    const status = autopilot(dir, 'status');
    expect(status.stdout).toContain('Last      next step 1 (Problem) (partial, 2026-11-26T10:00:00.000Z)');
    expect(autopilot(dir, 'status', '--json').json<{ notices?: string[] }>().notices).toEqual([expect.stringContaining('expected step 1 (Problem) next')]);
  });
});
