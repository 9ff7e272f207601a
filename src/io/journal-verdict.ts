/**
 * The journal chain's verdict, trusted as git trusts its index:
 * `_docs/_autopilot/cache/journal-chain.json` (git-ignored, never committed)
 * holds the chain hashes of the journal's last lines, as a command that
 * writes computed them, under the journal's identity (device, inode, size,
 * modification and change times in nanoseconds). A reader whose `stat` of the
 * journal matches that identity exactly takes the hashes from it and hashes
 * nothing, so `status` and a resuming `next` never load `node:crypto`.
 *
 * What makes it sound:
 * - The change time (`ctime`) is set by the kernel on every change of the
 *   file's bytes or metadata and no tool can set it back: a hand edit that
 *   keeps the size and restores the modification time, a same-size copy put
 *   in its place, a `git checkout`, a merge, a cut, each gives the journal a
 *   new identity, and the reader hashes as before.
 * - The racy rule: a journal changed in the same clock tick as the verdict
 *   was written (its modification or change time not strictly older than the
 *   verdict file's own modification time) is not trusted, as a change later
 *   in that tick would keep every field the same. A later writing command
 *   records the verdict again.
 * - The writer records a verdict only when the journal's identity was the
 *   same before and after it read the lines it hashed; the reader checks the
 *   identity again after its read, and hashes when it moved.
 *
 * A missing, unreadable or malformed verdict is no verdict: the reader hashes.
 */
import { mkdirSync, readFileSync, statSync, type BigIntStats } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomically } from './atomic-write.js';

const VERSION = 1;
/** A chain hash is 8 hex digits; a line whose hash was not computed is kept as this. */
const NONE = '--------';
const HASHES = /^(?:[0-9a-f]{8}|-{8})*$/;
/** A verdict file larger than this is not read (a cache: the lines are hashed instead; docs/flow-format.md's limits). */
const VERDICT_MAX_BYTES = 4 * 1024 * 1024;
/** At most this many other files' hashes are kept (the skills of the flows in use). */
const FILE_MEMOS_MAX = 64;

/** The verdict's file, beside the journal index in the journal's cache folder. */
export const verdictFile = (journalFile: string): string => join(dirname(journalFile), 'cache', 'journal-chain.json');

/** The journal's identity now, undefined when it is missing. */
export const journalStat = (journalFile: string): BigIntStats | undefined => statSync(journalFile, { bigint: true, throwIfNoEntry: false });

/** Every field a change of the file moves, as one string. */
export const identityOf = (s: BigIntStats): string => `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;

/** The verdict as read from disk (once a process: only this process's own write replaces it). */
interface Verdict {
  journal: string;
  hashes: string;
  /** A pointer position's text and its hash, as the last writer wrote them (`positionHash`). */
  position?: [string, string];
  /** The hash of the journal's bytes before a size (the journal index cache's `tail` check), under the same identity. */
  indexTail?: [number, string];
  /** Other files' hashes, each under its own identity (a built-in SKILL.md checked against its prebuilt declarations). */
  files?: Record<string, [string, string]>;
  /** The verdict file's own modification time. */
  writtenNs: bigint;
}

const read = new Map<string, Verdict | null>();

/** Git's racy rule: a file changed in the verdict's own clock tick, or after it, is not vouched for. */
const olderThan = (verdict: Verdict, stat: BigIntStats) => stat.mtimeNs < verdict.writtenNs && stat.ctimeNs < verdict.writtenNs;

function readVerdict(journalFile: string): Verdict | undefined {
  const file = verdictFile(journalFile);
  let verdict = read.get(file);
  if (verdict === undefined) {
    verdict = null;
    try {
      const own = statSync(file, { bigint: true, throwIfNoEntry: false });
      if (own !== undefined && own.size <= VERDICT_MAX_BYTES) verdict = parseVerdict(readFileSync(file, 'latin1'), own.mtimeNs) ?? null;
    } catch {
      // Unreadable: no verdict.
    }
    read.set(file, verdict);
  }
  return verdict ?? undefined;
}

/**
 * The chain hashes of the journal's last lines (newest first; undefined for
 * one not computed) when the verdict holds for the journal as `now` saw it;
 * undefined when there is none, it is for another journal, or it is racy.
 */
export function trustedHashes(journalFile: string, now: BigIntStats | undefined): (string | undefined)[] | undefined {
  if (now === undefined) return undefined;
  const verdict = readVerdict(journalFile);
  if (verdict === undefined || !olderThan(verdict, now) || verdict.journal !== identityOf(now)) return undefined;
  const hashes: (string | undefined)[] = [];
  for (let i = 0; i < verdict.hashes.length; i += 8) {
    const hash = verdict.hashes.slice(i, i + 8);
    hashes.push(hash === NONE ? undefined : hash);
  }
  return hashes;
}

/** The hash of a pointer position's text, when the last writer left it in the verdict (a memo by the exact text: no identity needed). */
export function knownPositionHash(journalFile: string, text: string): string | undefined {
  const position = readVerdict(journalFile)?.position;
  return position !== undefined && position[0] === text ? position[1] : undefined;
}

/** The index tail's hash at `size` when the verdict holds for the journal as `now` saw it (so the journal index's check hashes nothing). */
export function trustedTail(journalFile: string, now: BigIntStats | undefined, size: number): string | undefined {
  if (trustedHashes(journalFile, now) === undefined) return undefined;
  const tail = readVerdict(journalFile)?.indexTail;
  return tail !== undefined && tail[0] === size ? tail[1] : undefined;
}

/**
 * A file's hash as a writer computed it, when the file's identity now (`stat`,
 * taken before it was read) is the one it had then and is older than the
 * verdict; the same rule as the journal's.
 */
export function knownFileHash(journalFile: string, path: string, stat: BigIntStats): string | undefined {
  const verdict = readVerdict(journalFile);
  const memo = verdict?.files?.[path];
  return memo !== undefined && olderThan(verdict!, stat) && memo[0] === identityOf(stat) ? memo[1] : undefined;
}

/** File hashes this process computed, for the writer's verdict (`noteFileHash`). */
const noted = new Map<string, [string, string]>();

/** Keeps a file's hash, computed from its bytes read after `stat`, for this command's verdict (a command that writes records it). */
export function noteFileHash(path: string, stat: BigIntStats, hash: string): void {
  noted.set(path, [identityOf(stat), hash]);
}

/** The file memos a verdict written now holds: the kept ones, with this process's replacing theirs; undefined when nothing new was noted. */
export function fileMemos(journalFile: string): Record<string, [string, string]> | undefined {
  const kept = readVerdict(journalFile)?.files ?? {};
  const fresh = [...noted].filter(([path, memo]) => kept[path]?.[0] !== memo[0] || kept[path]?.[1] !== memo[1]);
  if (fresh.length === 0) return undefined;
  return Object.fromEntries([...Object.entries(kept), ...fresh].slice(-FILE_MEMOS_MAX));
}

/** The file memos the verdict holds now. */
export const keptFileMemos = (journalFile: string): Record<string, [string, string]> | undefined => readVerdict(journalFile)?.files;

/** Whether a file is unchanged since the verdict was written: it is older than the verdict (missing then and now counts as unchanged). */
export function olderThanVerdict(journalFile: string, path: string): boolean {
  const verdict = readVerdict(journalFile);
  if (verdict === undefined) return false;
  const stat = statSync(path, { bigint: true, throwIfNoEntry: false });
  return stat === undefined || olderThan(verdict, stat);
}

/** The index tail the verdict holds now, for a writer to tell whether it must record it again. */
export const tailMemo = (journalFile: string): [number, string] | undefined => readVerdict(journalFile)?.indexTail;

/** The position memo the verdict holds now, for a writer that wrote no pointer to keep it. */
export const positionMemo = (journalFile: string): [string, string] | undefined => readVerdict(journalFile)?.position;

function parseVerdict(text: string, writtenNs: bigint): Verdict | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { v, journal, hashes, position, indexTail, files } = value as Record<string, unknown>;
  if (v !== VERSION || typeof journal !== 'string' || typeof hashes !== 'string' || !HASHES.test(hashes)) return undefined;
  const memo = Array.isArray(position) && position.length === 2 && position.every((x) => typeof x === 'string') ? (position as [string, string]) : undefined;
  const tail =
    Array.isArray(indexTail) && indexTail.length === 2 && Number.isSafeInteger(indexTail[0]) && typeof indexTail[1] === 'string'
      ? (indexTail as [number, string])
      : undefined;
  return { journal, hashes, position: memo, indexTail: tail, files: fileMemosOf(files), writtenNs };
}

function fileMemosOf(value: unknown): Record<string, [string, string]> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const entries = Object.entries(value).filter(
    (e): e is [string, [string, string]] => Array.isArray(e[1]) && e[1].length === 2 && typeof e[1][0] === 'string' && typeof e[1][1] === 'string',
  );
  return Object.fromEntries(entries);
}

/** Records the verdict for the journal whose identity was `stat` (a cache: a failed write is left for the next writer). */
export function writeVerdict(
  journalFile: string,
  stat: BigIntStats,
  hashes: readonly (string | undefined)[],
  memos: { position?: [string, string]; indexTail?: [number, string]; files?: Record<string, [string, string]> },
): void {
  const file = verdictFile(journalFile);
  const text = `${JSON.stringify({ v: VERSION, journal: identityOf(stat), hashes: hashes.map((h) => h ?? NONE).join(''), ...memos })}\n`;
  read.delete(file);
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileAtomically(file, text, { fsync: false });
  } catch {
    // A read-only or full disk: the next reader hashes, the next writer records it.
  }
}
