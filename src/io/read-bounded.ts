/**
 * Reads a file of the repository only when it is a regular file within a size
 * limit: the size is checked before a byte is read, and the read stops one
 * byte past the limit whatever the file does meanwhile. What cannot be read
 * comes back as a problem naming the file, never as an exception.
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import type { Problem } from '../errors.js';
import { tooLarge } from '../limits.js';

export function notAFile(display: string, what: string, kind: string): Problem {
  return { file: display, message: `the ${what} is not a regular file`, expected: `a ${what}`, received: kind };
}

function kindOf(stat: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean }): string {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a named pipe';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice()) return 'a device';
  return 'something else';
}

/** Whether a path holds a regular file within `limit` bytes, checked with one stat; a problem says why not. */
export function checkFile(path: string, display: string, what: string, limit: number): Problem | undefined {
  try {
    const stat = statSync(path);
    if (!stat.isFile()) return notAFile(display, what, kindOf(stat));
    return stat.size > limit ? tooLarge(display, what, stat.size, limit) : undefined;
  } catch (error) {
    return unreadable(display, what, error);
  }
}

function unreadable(display: string, what: string, error: unknown): Problem {
  const code = (error as NodeJS.ErrnoException).code ?? String(error);
  return { file: display, message: `the ${what} cannot be read (${code})`, expected: `a readable ${what}`, received: code };
}

export function readBounded(path: string, display: string, what: string, limit: number): { text: string; bytes: Uint8Array } | { problem: Problem } {
  let fd: number;
  try {
    // O_NONBLOCK: a named pipe planted in the repository must not hold the command waiting for a writer.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    return { problem: unreadable(display, what, error) };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { problem: notAFile(display, what, kindOf(stat)) };
    if (stat.size > limit) return { problem: tooLarge(display, what, stat.size, limit) };
    const buffer = Buffer.allocUnsafe(limit + 1);
    let length = 0;
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    // The file grew past the limit after the stat.
    if (length > limit) return { problem: tooLarge(display, what, length, limit) };
    return { text: buffer.toString('utf8', 0, length), bytes: buffer.subarray(0, length) };
  } catch (error) {
    return { problem: unreadable(display, what, error) };
  } finally {
    closeSync(fd);
  }
}
