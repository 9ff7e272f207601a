/**
 * The lock file, `_docs/_autopilot/lock`: who holds the lock around a
 * command's read-decide-write (`io/lock.ts` takes, breaks and releases it).
 * Pure: text → holder or a problem; holder → text. A file that names no
 * holder is one whose writer was killed between creating and writing it (or
 * something else entirely): the lock reads it as empty.
 */
import type { Problem } from '../errors.js';

export interface LockHolder {
  pid: number;
  host: string;
  machine: string;
  session: string;
  at: string;
  /** Random: tells this holder from a later one with the same pid. */
  nonce: string;
  /**
   * When the holder's process started, as the system tells it
   * (`io/conversation.ts`): a live process with the same pid and another
   * start time is not the holder (the pid was reused). Absent where the
   * system cannot tell, and in locks of older autopilots.
   */
  start?: string;
}

export function parseLockHolder(text: string, file: string): { holder: LockHolder } | { problem: Problem } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const holder = value as Partial<LockHolder> | null | undefined;
  if (typeof holder?.pid === 'number' && typeof holder.nonce === 'string') return { holder: holder as LockHolder };
  return { problem: { file, message: 'the lock file names no holder', expected: 'a JSON object with `pid` and `nonce`', received: text.slice(0, 80) } };
}

/** One line, no newline: the lock is written once, by the process that creates it. */
export function serializeLockHolder(holder: LockHolder): string {
  return JSON.stringify(holder);
}
