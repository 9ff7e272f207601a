/**
 * The lock is never broken for its age: only when its holder is provably
 * gone on this machine (no process has its pid, or the process with its pid
 * started at another time: the pid was reused), or by a person's
 * `--take-over` for a lock of another machine. Each break is journaled
 * `lock_broken` with its reason. A live holder, however old its lock (a
 * command stopped for an hour, as a paused laptop stops it), keeps it: the
 * others wait, then exit 4 naming it.
 */
import type { LockHolder } from '../../src/formats/lock.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { snapshot } from '../helpers/cli.js';
import { processInfo } from '../../src/io/conversation.js';
import { thisMachine } from '../../src/io/machine.js';
import { cli, ctxOf, entries, freshDir, isStopped, loadApp, LOCK, until } from '../helpers/faults.js';

const app = await loadApp();
const DAY_MS = 24 * 60 * 60 * 1000;
const aDayAgo = () => new Date(Date.now() - DAY_MS).toISOString();
const ownStart = () => {
  const info = processInfo(process.pid);
  if (!info || info === 'gone') throw new Error('this system cannot tell a start time');
  return info.start;
};

type Holder = LockHolder;
const holder = (change: Partial<Holder>): Holder => ({
  pid: process.pid,
  host: hostname(),
  machine: thisMachine().machine,
  session: 'ghost',
  at: aDayAgo(),
  nonce: 'c0ffee',
  ...change,
});

/** Writes a lock as its holder would, its file as old as its `at`. */
function writeLock(dir: string, h: Holder): void {
  const file = join(dir, LOCK);
  writeFileSync(file, JSON.stringify(h));
  const at = new Date(h.at);
  utimesSync(file, at, at);
}

const readLock = (dir: string) => JSON.parse(readFileSync(join(dir, LOCK), 'utf8')) as Holder;
const lockBroken = (dir: string) => entries(dir).filter((e) => e.event === 'lock_broken');

/** A command run in-process with a short wait; its error, if it gave up. */
async function substep(dir: string, text: string, waitMs: number, takeOver = false): Promise<unknown> {
  try {
    await app.runStep(ctxOf(dir, 'local', waitMs), { event: { type: 'substep', text }, ...(takeOver ? { takeOver: true } : {}) });
    return undefined;
  } catch (error) {
    return error;
  }
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  const pid = child.pid!;
  await new Promise((resolve) => child.on('close', resolve));
  return pid;
}

const stopped: ChildProcess[] = [];
afterEach(() => {
  for (const child of stopped.splice(0)) {
    try {
      child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

describe('a live holder keeps its lock, whatever its age', () => {
  it('a command stopped holding the lock for a day: the next waits, then exits 4 naming it; nothing written; resumed, it finishes', async () => {
    const dir = freshDir();
    expect((await cli(dir, ['next', '--json'])).code).toBe(0);
    let child: ChildProcess | undefined;
    const held = cli(dir, ['substep', 'the stopped one', '--json'], {
      stopAt: 'after-lock',
      onSpawn: (c) => {
        child = c;
        stopped.push(c);
      },
    });
    await until(() => child?.pid !== undefined && isStopped(child.pid) && existsSync(join(dir, LOCK)), 10_000, 'the command to stop holding the lock');
    // A day passes (its lock says so, and its file's time): it is still the holder.
    const lock = readLock(dir);
    expect(lock).toMatchObject({ pid: child!.pid, start: expect.any(String) });
    writeLock(dir, { ...lock, at: aDayAgo() });
    const before = snapshot(dir);

    const started = Date.now();
    const caught = await substep(dir, 'blocked', 400);
    expect(Date.now() - started, 'it waited').toBeGreaterThanOrEqual(400);
    expect(app.exitCodeOfError(caught)).toBe(4);
    const error = app.errorJson(caught).error as { code: string; message: string; hint: string; holder?: Holder };
    expect(error.code).toBe('held');
    expect(error.message).toContain(`pid ${child!.pid} on ${hostname()}`);
    expect(error.message).toContain('running on this machine');
    expect(error.hint).toMatch(/not broken/);
    expect(error.holder).toMatchObject({ pid: child!.pid, nonce: lock.nonce });
    expect(snapshot(dir), 'nothing written, the lock left to its holder').toEqual(before);
    expect(lockBroken(dir)).toEqual([]);

    // --take-over does not break a lock whose holder runs on this machine either.
    expect(app.exitCodeOfError(await substep(dir, 'taking over', 200, true))).toBe(4);
    expect(readLock(dir).nonce).toBe(lock.nonce);

    child!.kill('SIGCONT');
    const done = await held;
    expect(done.code, done.stderr).toBe(0);
    expect(existsSync(join(dir, LOCK)), 'released by its holder').toBe(false);
    expect(lockBroken(dir)).toEqual([]);
  });

  it("a lock of this test's own live process, a day old, with its start time: never broken", async () => {
    const dir = freshDir();
    await cli(dir, ['next', '--json']);
    writeLock(dir, holder({ start: ownStart() }));
    const before = snapshot(dir);
    const r = await cli(dir, ['substep', 'blocked', '--json']);
    expect(r.code, r.stdout).toBe(4);
    expect(r.json?.error).toMatchObject({ code: 'held', holder: { pid: process.pid, session: 'ghost' } });
    expect(snapshot(dir)).toEqual(before);
  });
});

describe('a holder gone from this machine loses its lock at once', () => {
  it('a dead pid: broken at once, journaled with reason gone', async () => {
    const dir = freshDir();
    await cli(dir, ['next', '--json']);
    const pid = await deadPid();
    writeLock(dir, holder({ pid, at: new Date().toISOString(), start: '12345' }));
    const r = await cli(dir, ['substep', 'after the crash', '--json']);
    expect(r.code, r.stdout).toBe(0);
    expect(r.ms, 'no waiting').toBeLessThan(5_000);
    expect(existsSync(join(dir, LOCK))).toBe(false);
    expect(lockBroken(dir)).toEqual([expect.objectContaining({ reason: 'gone', holder: expect.objectContaining({ pid, session: 'ghost' }) })]);
  });

  it('a reused pid (a live process with the same pid, started at another time) counts as gone', async () => {
    const dir = freshDir();
    await cli(dir, ['next', '--json']);
    // This test's own pid is alive, but the lock's holder started at another time: not the same process.
    writeLock(dir, holder({ at: new Date().toISOString(), start: `${ownStart()}1` }));
    const r = await cli(dir, ['substep', 'after a reboot', '--json']);
    expect(r.code, r.stdout).toBe(0);
    expect(r.ms).toBeLessThan(5_000);
    expect(lockBroken(dir)).toEqual([expect.objectContaining({ reason: 'gone', holder: expect.objectContaining({ pid: process.pid }) })]);
  });
});

describe('a lock of another machine', () => {
  it('is never probed nor broken for its age: wait, exit 4 pointing to --take-over; with --take-over it is broken, journaled', async () => {
    const dir = freshDir();
    await cli(dir, ['next', '--json']);
    // A dead pid, a day old: on another machine neither says anything.
    const pid = await deadPid();
    writeLock(dir, holder({ pid, machine: 'other-machine', host: 'elsewhere', start: '1' }));
    const before = snapshot(dir);
    const caught = await substep(dir, 'blocked', 300);
    expect(app.exitCodeOfError(caught)).toBe(4);
    const error = app.errorJson(caught).error as { message: string; hint: string };
    expect(error.message).toContain(`pid ${pid} on elsewhere`);
    expect(error.message).toContain('on another machine');
    expect(error.hint).toContain('--take-over');
    expect(snapshot(dir)).toEqual(before);

    const r = await app.runStep(ctxOf(dir, 'local', 300), { event: { type: 'substep', text: 'taken over' }, takeOver: true });
    expect(r.view.position).toBeDefined();
    expect(existsSync(join(dir, LOCK))).toBe(false);
    expect(lockBroken(dir)).toEqual([
      expect.objectContaining({ reason: 'take-over', holder: expect.objectContaining({ pid, host: 'elsewhere', session: 'ghost' }) }),
    ]);
    expect(entries(dir).at(-1)).toMatchObject({ event: 'substep', sub_step: 'taken over' });
  });
});

describe("a lock that tells no holder is another holder's (seed 003: fail closed)", () => {
  /** A lock file with these bytes, 5 s old: past any grace an older autopilot gave an empty lock. */
  function oddLock(dir: string, bytes: string | Buffer): void {
    const file = join(dir, LOCK);
    writeFileSync(file, bytes);
    const old = new Date(Date.now() - 5_000);
    utimesSync(file, old, old);
  }

  it('empty, garbage bytes, a half-written holder (3 cases): a real command waits its 10 s, exits 4 saying so; the lock is never removed, nothing written', async () => {
    const cases: [string, string | Buffer][] = [
      ['empty', ''],
      ['garbage', Buffer.from([0xff, 0x00, 0xfe, 0x13, 0x37])],
      ['half a holder', '{"pid":12,"host":"bo'],
    ];
    const dirs = cases.map(() => freshDir());
    for (const dir of dirs) expect((await cli(dir, ['next', '--json'])).code).toBe(0);
    cases.forEach(([, bytes], i) => oddLock(dirs[i]!, bytes));
    const before = dirs.map((dir) => snapshot(dir));
    // Three child processes at once: each waits the whole wait, long after the 2 s an empty lock was once given.
    const runs = await Promise.all(dirs.map((dir) => cli(dir, ['substep', 'blocked', '--json'])));
    runs.forEach((r, i) => {
      const what = cases[i]![0];
      expect(r.code, `${what}: ${r.stdout}${r.stderr}`).toBe(4);
      expect(r.ms, `${what}: it waited as for a live holder`).toBeGreaterThanOrEqual(9_000);
      const error = r.json?.error as { code: string; message: string; hint: string; file: string };
      expect(error.code).toBe('held');
      expect(error.file).toBe(LOCK);
      expect(error.message).toContain('the lock file names no holder');
      expect(error.hint).toContain(`rm ${LOCK}`);
      expect(error.hint).toContain('--take-over');
      expect(readFileSync(join(dirs[i]!, LOCK)), `${what}: the lock kept byte for byte`).toEqual(Buffer.from(cases[i]![1]));
      expect(snapshot(dirs[i]!), `${what}: nothing written`).toEqual(before[i]);
      expect(lockBroken(dirs[i]!)).toEqual([]);
    });
  }, 60_000);

  it('a person takes it over (--take-over): the lock is removed and the command runs (1 case)', async () => {
    const dir = freshDir();
    await cli(dir, ['next', '--json']);
    oddLock(dir, 'not a lock');
    expect(app.exitCodeOfError(await substep(dir, 'blocked', 200))).toBe(4);
    expect(existsSync(join(dir, LOCK))).toBe(true);
    expect(await substep(dir, 'taken over', 200, true)).toBeUndefined();
    expect(existsSync(join(dir, LOCK))).toBe(false);
    expect(entries(dir).at(-1)).toMatchObject({ event: 'substep', sub_step: 'taken over' });
  });

  it('a lock this user cannot read (mode 000, another owner): waits, exits 4 naming the owner; the file kept (1 case)', async () => {
    const dir = freshDir();
    await cli(dir, ['next', '--json']);
    oddLock(dir, JSON.stringify(holder({})));
    chmodSync(join(dir, LOCK), 0o000);
    const asRoot = process.getuid?.() === 0;
    // Root reads anything: the command runs as another user, in folders that user may write.
    if (asRoot) for (const p of ['', '_docs', '_docs/_autopilot']) chmodSync(join(dir, p), 0o777);
    const r = await cli(dir, ['substep', 'blocked', '--json'], asRoot ? { uid: 65534 } : {});
    expect(r.code, r.stdout + r.stderr).toBe(4);
    expect(r.ms, 'it waited as for a live holder').toBeGreaterThanOrEqual(9_000);
    const error = r.json?.error as { code: string; message: string; hint: string };
    expect(error.code).toBe('held');
    expect(error.message).toMatch(/the lock file cannot be read by uid \d+.*it belongs to uid \d+.*mode 0/);
    expect(error.hint).toContain('--take-over');
    expect(statSync(join(dir, LOCK)).mode & 0o777, 'the lock kept as it was').toBe(0);
    chmodSync(join(dir, LOCK), 0o644);
    expect(readLock(dir).nonce).toBe('c0ffee');
    expect(lockBroken(dir)).toEqual([]);
  }, 30_000);
});
