/**
 * The lock around every read-decide-write: `_docs/_autopilot/lock`, created
 * with O_EXCL (one creator wins, whatever the timing), holding who took it.
 * Held for milliseconds. A lock whose process is dead on this machine (a
 * command killed mid-way) is broken; a waiter waits a bounded time and then
 * gives up naming the holder (exit 4). The file's format: `formats/lock.ts`.
 */
import { closeSync, constants, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { HeldError } from '../errors.js';
import { parseLockHolder, serializeLockHolder, type LockHolder } from '../formats/lock.js';
import { processAlive, thisMachine } from './machine.js';
import { LOCK_EMPTY_GRACE_MS, LOCK_RETRY_FIRST_MS, LOCK_RETRY_MAX_MS } from '../limits.js';

export interface Lock {
  holder: LockHolder;
  /** Locks of dead processes this one broke on its way in: journaled by the caller. */
  broken: LockHolder[];
  held(): boolean;
  release(): void;
}

function readHolder(file: string): LockHolder | undefined | 'empty' {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = parseLockHolder(text, file);
  return 'holder' in parsed ? parsed.holder : 'empty';
}

function ageMs(file: string, now: number): number {
  try {
    return now - statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Whether the lock can be broken: only when its holder is provably dead — its
 * process is gone on this machine. Never on age: a live process paused while
 * holding it keeps it (breaking it would let two commands write at once), and
 * another machine's lock is removed by a person, never by this machine's clock.
 */
function isDead(holder: LockHolder | 'empty', file: string, now: number): boolean {
  if (holder === 'empty') return ageMs(file, now) > LOCK_EMPTY_GRACE_MS;
  // A pid reused by another process after the holder died looks alive: the lock then waits for a person (safe), never breaks on a guess.
  return holder.machine === thisMachine().machine && holder.pid !== process.pid && !processAlive(holder.pid);
}

function tryCreate(file: string, holder: LockHolder): boolean {
  let fd: number;
  try {
    fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, serializeLockHolder(holder));
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Breaks a dead lock without racing another breaker: the breaker first takes
 * `<lock>.break` (O_EXCL too), re-reads the lock, and removes it only if it is
 * still the same dead holder.
 */
function breakDead(file: string, seen: LockHolder | 'empty', now: number): LockHolder | 'empty' | undefined {
  const breaker = `${file}.break`;
  const me = { pid: process.pid, host: thisMachine().host, machine: thisMachine().machine, session: '', at: new Date(now).toISOString(), nonce: '' };
  if (!tryCreate(breaker, me)) {
    // Another breaker is at work, or died at work: its file is stale after a moment.
    if (ageMs(breaker, now) > LOCK_EMPTY_GRACE_MS) unlinkQuietly(breaker);
    return undefined;
  }
  try {
    const again = readHolder(file);
    const same = again === seen || (again !== undefined && again !== 'empty' && seen !== 'empty' && again.nonce === seen.nonce);
    if (!same || again === undefined) return undefined;
    unlinkQuietly(file);
    return again;
  } finally {
    unlinkQuietly(breaker);
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function acquireLock(file: string, session: string, waitMs: number): Promise<Lock> {
  const { host, machine } = thisMachine();
  const broken: LockHolder[] = [];
  const deadline = Date.now() + waitMs;
  let delay = LOCK_RETRY_FIRST_MS;
  for (;;) {
    const now = Date.now();
    const holder: LockHolder = { pid: process.pid, host, machine, session, at: new Date(now).toISOString(), nonce: randomBytes(6).toString('hex') };
    if (tryCreate(file, holder)) {
      let held = true;
      const release = () => {
        if (!held) return;
        held = false;
        process.off('exit', release);
        const current = readHolder(file);
        if (current !== undefined && current !== 'empty' && current.nonce === holder.nonce) unlinkQuietly(file);
      };
      process.on('exit', release);
      return { holder, broken, held: () => held, release };
    }
    const seen = readHolder(file);
    if (seen !== undefined && isDead(seen, file, now)) {
      const gone = breakDead(file, seen, now);
      if (gone && gone !== 'empty') broken.push(gone);
      continue;
    }
    if (now >= deadline) {
      const who = seen && seen !== 'empty' ? seen : undefined;
      throw new HeldError({
        message: who
          ? `the repository is locked by another autopilot command (pid ${who.pid} on ${who.host}, session ${who.session || 'local'}, since ${who.at})`
          : 'the repository is locked by another autopilot command',
        file,
        hint: 'A command holds the lock for milliseconds: try again. A lock of a dead process on this machine is broken automatically; a lock is never broken on its age: one from another machine (or of a process that is still alive here) is removed by hand, once that command has stopped.',
        ...(who ? { holder: who } : {}),
      });
    }
    await sleep(Math.min(delay, Math.max(1, deadline - now)) + Math.random() * delay);
    delay = Math.min(delay * 2, LOCK_RETRY_MAX_MS);
  }
}
