/**
 * Atomic replace: a temporary file beside the target (created with O_EXCL and
 * O_NOFOLLOW, so nothing planted there is followed), written, fsynced and
 * renamed over the target; then the folder is fsynced so the rename itself
 * survives a power cut. A reader sees the old file or the new one, never half.
 *
 * write-file-atomic did this before, but it resolves a symlink at the target
 * and writes where the link points: here a link must be replaced, not followed.
 */
import { closeSync, constants, fsyncSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { crashPoint, diskFullError } from './crash-point.js';
import { randomHex } from './random.js';
import { processAlive } from '../processes.js';

/** Temporary files carry this in their name, so an interrupted write's leftovers are recognisable (and git-ignored). */
export const TEMP_MARK = '.autopilot-tmp-';

/**
 * `diskFull` (the fault tests, `io/crash-point.ts`): half the text is written
 * to the temporary file, then the write fails with ENOSPC, as a disk that
 * fills mid-write fails it. A failed write removes its temporary file and
 * throws, with the error's `path` the file it was meant for.
 */
export function writeFileAtomically(file: string, text: string, { fsync = true, diskFull = false }: { fsync?: boolean; diskFull?: boolean } = {}): void {
  const folder = dirname(file);
  const temp = join(folder, `${basename(file)}${TEMP_MARK}${process.pid}-${randomHex(4)}`);
  let fd: number;
  try {
    fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  } catch (error) {
    const failed = error as NodeJS.ErrnoException;
    if (failed.path === temp) failed.path = file;
    throw error;
  }
  try {
    const data = Buffer.from(text, 'utf8');
    if (diskFull) {
      writeSync(fd, data, 0, Math.floor(data.length / 2));
      throw diskFullError(file);
    }
    for (let offset = 0; offset < data.length;) offset += writeSync(fd, data, offset, data.length - offset);
    if (fsync) fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temp);
    // Named by the file it was meant for, not by its temporary: that is the path a person can act on.
    const failed = error as NodeJS.ErrnoException;
    if (failed.path === undefined || failed.path === temp) failed.path = file;
    throw error;
  }
  closeSync(fd);
  crashPoint('after-pointer-temp');
  renameSync(temp, file);
  if (fsync) fsyncFolder(folder);
}

/**
 * Removes what interrupted writes of `file` left in its folder: our own
 * temporary files (and the old versions a commit keeps while it writes,
 * `io/undo.ts`), and those of write-file-atomic (`<name>.<digits>`), which
 * earlier versions used for autopilot's own files (`ours`: only our own, for
 * a file of the user's such as `.gitignore`).
 */
export function removeLeftovers(file: string, { ours = false }: { ours?: boolean } = {}): string[] {
  const name = basename(file);
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dirname(file));
  } catch {
    return removed;
  }
  for (const other of names) {
    if (!other.startsWith(`${name}.`)) continue;
    const rest = other.slice(name.length);
    if (!rest.startsWith(TEMP_MARK) && (ours || !/^\.\d+$/.test(rest))) continue;
    try {
      unlinkSync(join(dirname(file), other));
      removed.push(other);
    } catch {
      // Another writer's temporary file, gone already.
    }
  }
  return removed;
}

/** The process a leftover's name says wrote it: `<name>.autopilot-tmp-<pid>-<hex>`, or `<name>.autopilot-tmp-kept-<pid>-<hex>` (`io/undo.ts`). */
export function leftoverPid(name: string): number | undefined {
  const at = name.indexOf(TEMP_MARK);
  if (at < 0) return undefined;
  const match = /^(?:kept-)?(\d{1,10})-[0-9a-f]+$/.exec(name.slice(at + TEMP_MARK.length));
  return match ? Number(match[1]) : undefined;
}

/**
 * Removes, in each folder, what a write of a process that is gone left: a
 * temporary file, or the old version a commit kept while it wrote. A kill can
 * leave them beside any file autopilot writes (`.gitignore` at the root, when
 * `init` is killed), and no later write of that file may come; the writer's
 * pid is in the name, so the next command that writes finds them all, and a
 * live writer's (a command of this machine writing outside the lock, such as
 * the flow cache) are left alone, unless a day old (its pid reused since), as
 * git's temporary indexes are (docs/git.md). A folder that is not there is
 * skipped.
 */
const LEFTOVER_MAX_AGE_MS = 24 * 60 * 60 * 1000;

export function sweepLeftovers(folders: Iterable<string>, alive: (pid: number) => boolean = processAlive): string[] {
  const removed: string[] = [];
  for (const folder of new Set(folders)) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      const pid = leftoverPid(name);
      if (pid === undefined) continue;
      // A live process of that pid is the writer still at work, unless the file is a day old (the pid reused since).
      if (alive(pid) && !(Date.now() - (statSync(join(folder, name), { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > LEFTOVER_MAX_AGE_MS)) continue;
      try {
        unlinkSync(join(folder, name));
        removed.push(join(folder, name));
      } catch {
        // Removed by another command already, or not ours to remove (a folder of that name).
      }
    }
  }
  return removed;
}

export function fsyncFolder(folder: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(folder, 'r');
    fsyncSync(fd);
  } catch (error) {
    // Some platforms (Windows) cannot open or fsync a folder; the rename is still atomic there.
    if (!['EISDIR', 'EPERM', 'EINVAL', 'EBADF'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
