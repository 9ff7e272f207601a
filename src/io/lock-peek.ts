/**
 * The lock as a reader sees it without taking it (`status`, `check`, the
 * SessionStart hook): one open, one `fstat`, one bounded read of
 * `_docs/_autopilot/lock`, and nothing at all when there is none. What it
 * says is what blocks every step command and who may clear it (seed 003: a
 * lock that fails closed is loud, never silently inert):
 *
 * - one that names no holder (empty, garbage) or that this user cannot read:
 *   never broken by autopilot; a person removes it or takes it over;
 * - another machine's, older than a command's wait: never probed, never
 *   broken by age; a person takes it over once that command has stopped;
 * - this machine's, held by a live process longer than a command's wait (a
 *   stopped command): freed when that process ends.
 *
 * A lock younger than a command's wait is a command at work, and a lock whose
 * holder is provably gone is broken by the next command: neither blocks.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { parseLockHolder } from '../formats/lock.js';
import { LOCK_EMPTY_GRACE_MS, LOCK_WAIT_MS } from '../limits.js';
import { holderDead, holderText, ownerOf, thisUser } from './lock.js';
import { thisMachine } from './machine.js';
import { displayPath } from './repo.js';

/** Bytes read of a lock: a holder is one short line; more is garbage, and its start is enough to say so. */
const PEEK_BYTES = 4096;

type Peeked = { text: string; ageMs: number } | { error: string } | undefined;

function peek(file: string, now: number): Peeked {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return code === 'ENOENT' ? undefined : { error: code };
  }
  try {
    const stat = fstatSync(fd);
    const buffer = Buffer.alloc(Math.min(PEEK_BYTES, Math.max(0, stat.size)));
    const read = buffer.length > 0 ? readSync(fd, buffer, 0, buffer.length, 0) : 0;
    return { text: buffer.subarray(0, read).toString('utf8'), ageMs: now - stat.mtimeMs };
  } catch (error) {
    return { error: (error as NodeJS.ErrnoException).code ?? String(error) };
  } finally {
    closeSync(fd);
  }
}

/** What a lock left in the way blocks, and who may clear it; undefined when nothing blocks a step command. */
export function lockInTheWay(file: string, root: string, now = Date.now()): string | undefined {
  const seen = peek(file, now);
  if (seen === undefined) return undefined;
  const shown = displayPath(file, root);
  const refused = 'every step command waits for it, then refuses (exit 4)';
  if ('error' in seen) {
    return `the lock ${shown} cannot be read by ${thisUser()} (${seen.error}; it belongs to ${ownerOf(file)}): ${refused}, since autopilot cannot tell whether its command still runs. Once no autopilot command runs as its owner, that user (or root) removes it: \`rm ${shown}\``;
  }
  const parsed = parseLockHolder(seen.text, shown);
  if (!('holder' in parsed)) {
    if (seen.ageMs < LOCK_EMPTY_GRACE_MS) return undefined;
    return `the lock ${shown} names no holder (empty, or not a lock autopilot wrote): ${refused}, since autopilot never breaks a lock that tells no holder. Once no autopilot command runs on this repository (on any machine), a person removes it (\`rm ${shown}\`) or adds \`--take-over\` to a step command (journaled)`;
  }
  const holder = parsed.holder;
  if (seen.ageMs < LOCK_WAIT_MS) return undefined;
  if (holder.machine !== thisMachine().machine) {
    return `the lock ${shown} is held by another machine's command (${holderText(holder)}): ${refused}, since a lock of another machine is never broken by autopilot. Once that command has stopped, a person adds \`--take-over\` to a step command (journaled)`;
  }
  if (holderDead(holder)) return undefined;
  return `the lock ${shown} is held by a command that still runs on this machine (${holderText(holder)}), perhaps stopped: ${refused}. It is freed when that process finishes (a stopped one goes on after \`kill -CONT ${holder.pid}\`) or when a person ends it (\`kill -9 ${holder.pid}\`): the next command then breaks the lock (journaled)`;
}
