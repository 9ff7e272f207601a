/**
 * The lock around every read-decide-write: `_docs/_autopilot/lock`, holding
 * who took it. Held for milliseconds. The file's format: `formats/lock.ts`.
 *
 * - Taken whole: the holder is written to a temporary file that is then
 *   hard-linked to the lock's name (the link fails if the lock exists, so one
 *   taker wins whatever the timing), so a lock is never seen empty or half
 *   written, even on a full disk. Where hard links are not supported the lock
 *   is created with O_EXCL and written, and removed again if the write fails.
 * - Broken only when its holder is provably dead on this machine: no process
 *   has its pid, or the process with its pid started at another time (the pid
 *   was reused). Never for its age: a live command paused for an hour
 *   (SIGSTOP, a laptop lid) keeps its lock, and a lock of another machine is
 *   never probed. A waiter waits a bounded time and then gives up naming the
 *   holder (exit 4); a person may take a lock of another machine over
 *   (`takeOver`), after that wait, journaled.
 * - A lock that names no holder (empty, garbage bytes) or that this user
 *   cannot read is another holder's (seed 003: fail closed): nothing can
 *   prove that holder dead, so it is never broken by age or by guess; the
 *   command waits as for a live holder, then exits 4 saying what is wrong with
 *   the file. A person removes it, or takes it over (`--take-over`, journaled).
 */
import { closeSync, constants, linkSync, openSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { HeldError, InputError } from '../errors.js';
import { parseLockHolder, serializeLockHolder, type LockHolder } from '../formats/lock.js';
import { processInfo } from './conversation.js';
import { randomHex } from './random.js';
import { thisMachine } from './machine.js';
import { processAlive } from '../processes.js';
import { LOCK_EMPTY_GRACE_MS, LOCK_RETRY_FIRST_MS, LOCK_RETRY_MAX_MS } from '../limits.js';
import { displayPath } from './repo.js';
import { isoTime } from '../timestamp.js';

/** A lock this command broke on its way in: its holder was dead on this machine (`gone`), or a person took it over (`take-over`). */
export interface BrokenLock extends LockHolder {
  reason: 'gone' | 'take-over';
}

export interface Lock {
  holder: LockHolder;
  /** Locks this one broke on its way in: journaled by the caller. */
  broken: BrokenLock[];
  held(): boolean;
  release(): void;
}

export interface LockOptions {
  /** A person's `--take-over`: a lock of another machine still there after the wait is broken (journaled), not waited for. */
  takeOver?: boolean;
  /** The repository root, for the paths messages name. */
  root?: string;
}

/** Temporary files the lock is written to before it is linked into place: `lock.autopilot-tmp-<pid>-<hex>`. */
const TEMP_MARK = '.autopilot-tmp-';

/** A lock file that tells no holder: it names none (`empty`: no bytes, garbage), or this user cannot read it. */
type Unknown = 'empty' | 'unreadable';
type Seen = LockHolder | Unknown;

/** The lock's holder; undefined when there is no lock; `unreadable` when this user cannot read it (`EACCES`, `EPERM`). */
function readHolder(file: string): Seen | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'EACCES' || code === 'EPERM') return 'unreadable';
    throw error;
  }
  const parsed = parseLockHolder(text, file);
  return 'holder' in parsed ? parsed.holder : 'empty';
}

const isUnknown = (seen: Seen | undefined): seen is Unknown => seen === 'empty' || seen === 'unreadable';

function ageMs(file: string, now: number): number {
  try {
    return now - statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/** The start time of this process, as `processInfo` tells it: recorded in the lock, so a reused pid is not taken for the holder. */
let ownStart: string | undefined | null = null;
function startOfThisProcess(): string | undefined {
  if (ownStart === null) {
    const info = processInfo(process.pid);
    ownStart = info && info !== 'gone' && info.start ? info.start : undefined;
  }
  return ownStart;
}

/**
 * Whether the holder is provably dead: it ran on this machine, and no process
 * has its pid, or the process with its pid started at another time. A holder
 * of another machine is never judged dead.
 */
export function holderDead(holder: LockHolder): boolean {
  if (holder.machine !== thisMachine().machine) return false;
  const info = processInfo(holder.pid);
  if (info === 'gone') return true;
  // This system cannot tell a start time: a live pid is taken for the holder.
  if (info === undefined) return !processAlive(holder.pid);
  return holder.start !== undefined && info.start !== '' && info.start !== holder.start;
}

/**
 * Whether a process of this machine has the file open (Linux: `/proc/<pid>/fd`);
 * undefined where that cannot be told.
 */
function openByAProcess(file: string): boolean | undefined {
  if (process.platform !== 'linux') return undefined;
  let target: string;
  try {
    target = realpathSync.native(file);
  } catch {
    return false;
  }
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === target) return true;
      } catch {
        // Closed meanwhile.
      }
    }
  }
  return false;
}

/** Whether the lock may be broken now: only when its holder is provably dead on this machine. One that tells no holder never is. */
function breakable(holder: Seen): boolean {
  if (isUnknown(holder)) return false;
  return holderDead(holder);
}

/**
 * Whether `lock.break` (a breaker's own file, never the lock) may be removed: its
 * breaker is dead, or it names none, is a moment old and open nowhere.
 */
function breakerBreakable(holder: Seen, file: string, now: number): boolean {
  if (holder === 'unreadable') return false;
  if (holder === 'empty') return ageMs(file, now) > LOCK_EMPTY_GRACE_MS && openByAProcess(file) !== true;
  return holderDead(holder);
}

/** Writes the holder whole, then links it into place: false when the lock exists. */
function tryCreate(file: string, holder: LockHolder): boolean {
  const temp = join(dirname(file), `${basename(file)}${TEMP_MARK}${process.pid}-${randomHex(4)}`);
  writeWhole(temp, serializeLockHolder(holder));
  try {
    linkSync(temp, file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // No hard links here (some network and FUSE file systems): create it in place.
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS' || code === 'EOPNOTSUPP') return createInPlace(file, holder);
    throw error;
  } finally {
    unlinkQuietly(temp);
  }
}

/** O_EXCL creates it (failing if it exists); a write that fails (a full disk) removes it again, so no empty lock is left. */
function createInPlace(file: string, holder: LockHolder): boolean {
  try {
    writeWhole(file, serializeLockHolder(holder));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

function writeWhole(file: string, text: string): void {
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  try {
    const data = Buffer.from(text, 'utf8');
    for (let offset = 0; offset < data.length;) offset += writeSync(fd, data, offset, data.length - offset);
  } catch (error) {
    closeSync(fd);
    unlinkQuietly(file);
    throw error;
  }
  closeSync(fd);
}

/**
 * Breaks a lock without racing another breaker: the breaker first takes
 * `<lock>.break` (exclusively too), re-reads the lock, and removes it only if
 * it is still the same holder.
 */
function breakLock(file: string, seen: Seen, now: number, root: string | undefined): Seen | undefined {
  const breaker = `${file}.break`;
  const { host, machine } = thisMachine();
  const me: LockHolder = { pid: process.pid, host, machine, session: '', at: isoTime(now), nonce: randomHex(6) };
  if (!tryCreate(breaker, me)) {
    // Another breaker is at work, or died at work: its file is broken like a lock.
    const other = readHolder(breaker);
    if (other !== undefined && breakerBreakable(other, breaker, now)) unlinkQuietly(breaker);
    return undefined;
  }
  try {
    const again = readHolder(file);
    const same = again === seen || (again !== undefined && !isUnknown(again) && !isUnknown(seen) && again.nonce === seen.nonce);
    if (!same || again === undefined) return undefined;
    try {
      unlinkQuietly(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM') throw stuck(file, root, code, isUnknown(again) ? undefined : again);
      throw error;
    }
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

/** Lock temporaries of processes that died between writing and linking them (this machine's; the pid is in the name). */
function removeDeadTemps(file: string): void {
  const prefix = `${basename(file)}${TEMP_MARK}`;
  let names: string[];
  try {
    names = readdirSync(dirname(file));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (Number.isSafeInteger(pid) && pid > 1 && pid !== process.pid && processInfo(pid) === 'gone') {
      try {
        unlinkSync(join(dirname(file), name));
      } catch {
        // Another taker removed it.
      }
    }
  }
}

/** Who owns a file, in words: `uid 0 (root), mode 600`. */
export function ownerOf(file: string): string {
  try {
    const st = statSync(file);
    return `uid ${st.uid}${userName(st.uid)}, mode ${(st.mode & 0o777).toString(8)}`;
  } catch {
    return 'an unknown owner';
  }
}

function userName(uid: number): string {
  try {
    const line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((l) => l.split(':')[2] === String(uid));
    return line ? ` (${line.split(':')[0]})` : '';
  } catch {
    return '';
  }
}

export const thisUser = () => (typeof process.getuid === 'function' ? `uid ${process.getuid()}${userName(process.getuid())}` : 'this user');

/** A lock this user cannot remove: what is true about it, and who can act. */
function stuck(file: string, root: string | undefined, code: string, holder?: LockHolder): InputError {
  const shown = displayPath(file, root);
  const message = holder
    ? `the lock of a process that has ended (pid ${holder.pid} on ${holder.host}) cannot be removed by ${thisUser()} (${code}): it belongs to ${ownerOf(file)} and its folder does not let this user remove it`
    : `the lock file cannot be removed by ${thisUser()} (${code}): it belongs to ${ownerOf(file)} and its folder does not let this user remove it`;
  return new InputError(
    { file: shown, message, expected: 'a lock file this user can read and remove', received: code },
    `Nothing ran. Once no autopilot command runs as its owner, that user (or root) removes it: \`rm ${shown}\`; then run the command again.`,
    'guard_off',
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a holder is, in words: `pid 12 on box, session a, since …`. */
export const holderText = (who: LockHolder) => `pid ${who.pid} on ${who.host}, session ${who.session || 'local'}, since ${who.at}`;

export async function acquireLock(file: string, session: string, waitMs: number, options: LockOptions = {}): Promise<Lock> {
  const { host, machine } = thisMachine();
  const broken: BrokenLock[] = [];
  const deadline = Date.now() + waitMs;
  let delay = LOCK_RETRY_FIRST_MS;
  const start = startOfThisProcess();
  for (;;) {
    const now = Date.now();
    const holder: LockHolder = {
      pid: process.pid,
      host,
      machine,
      session,
      at: isoTime(now),
      nonce: randomHex(6),
      ...(start ? { start } : {}),
    };
    if (tryCreate(file, holder)) {
      if (broken.length > 0) removeDeadTemps(file);
      let held = true;
      const release = () => {
        if (!held) return;
        held = false;
        process.off('exit', release);
        let current: Seen | undefined;
        try {
          current = readHolder(file);
        } catch {
          current = undefined;
        }
        if (current !== undefined && !isUnknown(current) && current.nonce === holder.nonce) unlinkQuietly(file);
      };
      process.on('exit', release);
      return { holder, broken, held: () => held, release };
    }
    const seen = readHolder(file);
    if (seen !== undefined && breakable(seen)) {
      const gone = breakLock(file, seen, now, options.root);
      if (gone && !isUnknown(gone)) broken.push({ ...gone, reason: 'gone' });
      continue;
    }
    if (now >= deadline) {
      const who = seen !== undefined && !isUnknown(seen) ? seen : undefined;
      const foreign = who !== undefined && who.machine !== machine;
      // A person's --take-over: another machine's lock, or one that tells no holder, still there after the wait is broken, and journaled.
      if (options.takeOver && seen !== undefined && (foreign || isUnknown(seen))) {
        const taken = breakLock(file, seen, now, options.root);
        if (taken && !isUnknown(taken)) broken.push({ ...taken, reason: 'take-over' });
        continue;
      }
      const shown = displayPath(file, options.root);
      throw new HeldError({
        message: who
          ? `the repository is locked by another autopilot command (${holderText(who)}${foreign ? ', on another machine' : ', running on this machine'})`
          : seen === 'unreadable'
            ? `the repository is locked: the lock file cannot be read by ${thisUser()} (it belongs to ${ownerOf(file)}), so autopilot cannot tell whether the command holding it still runs; it is taken for another's, held`
            : seen === 'empty'
              ? "the repository is locked: the lock file names no holder (empty, or not a lock autopilot wrote), so autopilot cannot tell whether the command holding it still runs; it is taken for another's, held"
              : 'the repository is locked by another autopilot command',
        file: shown,
        hint: foreign
          ? 'A command holds the lock for milliseconds; a lock of another machine is never broken for its age. Make sure that command has stopped, then a person takes the lock over: add `--take-over` to the step command (journaled).'
          : isUnknown(seen)
            ? `A lock that tells no holder is never broken by autopilot (fail closed). Make sure no autopilot command runs on this repository (on any machine), then a person removes it (\`rm ${shown}\`) or adds \`--take-over\` to the step command.`
            : 'A command holds the lock for milliseconds: try again. Its process still runs on this machine (perhaps stopped or paused), so the lock is not broken; it is broken automatically once that process has ended.',
        ...(who ? { holder: who } : {}),
      });
    }
    await sleep(Math.min(delay, Math.max(1, deadline - now)) + Math.random() * delay);
    delay = Math.min(delay * 2, LOCK_RETRY_MAX_MS);
  }
}
