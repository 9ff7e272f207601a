/**
 * A ref's value read from the git folder's files, as git's "files" ref
 * storage keeps it (a loose file `refs/…`, else a line of `packed-refs`),
 * so a command that only needs to know where a ref points starts no git
 * process. It answers only when the files say for certain: a repository
 * using another storage (reftable), a symbolic ref, or anything unreadable
 * gives `undefined`, and the caller asks git. `null` is a ref that does not
 * exist.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GitHandle } from './run.js';

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** Where each named ref points (`null`: no such ref), or undefined when the files cannot tell for certain. */
export function refsOnDisk(handle: Pick<GitHandle, 'commonDir'>, names: readonly string[]): Map<string, string | null> | undefined {
  const dir = handle.commonDir;
  if (!dir || existsSync(join(dir, 'reftable'))) return undefined;
  const found = new Map<string, string | null>();
  let packed: string | undefined;
  for (const name of names) {
    const loose = readOrAbsent(join(dir, name));
    if (loose === undefined) return undefined;
    if (loose !== null) {
      const sha = loose.trim();
      if (!OBJECT_ID.test(sha)) return undefined;
      found.set(name, sha);
      continue;
    }
    if (packed === undefined) {
      const text = readOrAbsent(join(dir, 'packed-refs'));
      if (text === undefined) return undefined;
      packed = text ?? '';
    }
    const line = packed.split('\n').find((l) => l.endsWith(` ${name}`));
    const sha = line?.slice(0, line.indexOf(' '));
    found.set(name, sha !== undefined && OBJECT_ID.test(sha) ? sha : null);
  }
  return found;
}

/** The file's text, `null` when there is no such file, undefined when it cannot be read (a folder, no permission). */
function readOrAbsent(path: string): string | null | undefined {
  try {
    return readFileSync(path, 'latin1');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  }
}
