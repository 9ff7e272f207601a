/**
 * The one write path. Every change of state — a step command, `init` — ends
 * here, under the lock: each path it writes passes the path gate; the journal
 * is appended first (rule 7: the record), then the pointer is replaced
 * atomically, naming the journal event it reflects; then the lease, the
 * files `init` sets up, and the derived index. It returns what it wrote, for
 * whatever acts on a change afterwards (a progress commit, a report).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { toPointerRecord, type JournalEntry, type StampedEntry } from '../engine/journal-entry.js';
import type { Lease } from '../engine/lease.js';
import { removeLeftovers, writeFileAtomically } from '../io/atomic-write.js';
import { crashPoint } from '../io/crash-point.js';
import type { LoadedIndex } from '../io/journal-index.js';
import { appendJournal, serializeEntries } from '../io/journal.js';
import { removeLease } from '../io/lease-file.js';
import type { Lock } from '../io/lock.js';
import { displayPath, gatePath, type Repo } from '../io/repo.js';
import type { Position } from '../state/position.js';
import { serializePointer, type PointerExtras } from '../state/serialize-pointer.js';

export interface Writer {
  session: string;
  now: () => Date;
}

export interface Plan {
  entries: JournalEntry[];
  /** The command's key, stamped on each of its entries. */
  key?: string;
  /** The pointer to write; always written when there are entries, so its marker names the last one. */
  pointer?: { position: Position; extras: Omit<PointerExtras, 'seq'> };
  /** The hash of the flow the run is pinned to, recorded with the pointer. */
  flowHash?: string;
  lease?: Lease | 'release';
  /** Whole files to create or replace (what `init` sets up). */
  files?: { path: string; text: string }[];
  /** The journal index as the read left it; rewritten when it lagged. */
  index?: LoadedIndex;
}

export interface Written {
  /** Repository-relative paths of every file written. */
  files: string[];
  entries: StampedEntry[];
}

/** Stamps entries with sequence numbers from `lastSeq + 1`, time, session and key; the last carries the pointer it leads to. */
export function stampEntries(
  entries: JournalEntry[],
  lastSeq: number,
  writer: Writer,
  key: string | undefined,
  pointer: Position | undefined,
  flowHash?: string,
): StampedEntry[] {
  const at = writer.now().toISOString();
  return entries.map((e, i) => ({
    seq: lastSeq + i + 1,
    at,
    session: writer.session,
    ...(key ? { key } : {}),
    ...e,
    ...(pointer && i === entries.length - 1 ? { pointer: toPointerRecord(pointer, flowHash) } : {}),
  }));
}

export function commit(repo: Repo, lock: Lock, lastSeq: number, plan: Plan, writer: Writer): Written {
  if (!lock.held()) throw new Error('commit without the lock');
  const targets = [repo.journalFile, repo.pointerFile, repo.leaseFile, repo.journalIndexFile, ...(plan.files ?? []).map((f) => f.path)];
  for (const file of targets) gatePath(repo, file);
  const written: string[] = [];
  const wrote = (file: string) => written.push(displayPath(file, repo.root));

  const stamped = stampEntries(plan.entries, lastSeq, writer, plan.key, plan.pointer?.position, plan.flowHash);
  if (stamped.length > 0) {
    mkdirSync(repo.autopilotDir, { recursive: true });
    appendJournal(repo.journalFile, serializeEntries(stamped));
    wrote(repo.journalFile);
    crashPoint('after-journal');
  }
  if (plan.pointer) {
    const seq = stamped.length > 0 ? stamped[stamped.length - 1]!.seq : undefined;
    mkdirSync(dirname(repo.pointerFile), { recursive: true });
    writeFileAtomically(repo.pointerFile, serializePointer(plan.pointer.position, { ...plan.pointer.extras, ...(seq === undefined ? {} : { seq }) }));
    crashPoint('after-pointer');
    removeLeftovers(repo.pointerFile);
    wrote(repo.pointerFile);
  }
  if (plan.lease === 'release') removeLease(repo.leaseFile);
  else if (plan.lease) {
    mkdirSync(repo.autopilotDir, { recursive: true });
    // Not fsynced: a lease lost to a power cut is only taken again.
    writeFileAtomically(repo.leaseFile, JSON.stringify(plan.lease) + '\n', { fsync: false });
    removeLeftovers(repo.leaseFile);
  }
  for (const file of plan.files ?? []) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileAtomically(file.path, file.text);
    wrote(file.path);
  }
  if (plan.index?.stale) {
    try {
      mkdirSync(dirname(repo.journalIndexFile), { recursive: true });
      writeFileAtomically(repo.journalIndexFile, JSON.stringify(plan.index.index), { fsync: false });
      removeLeftovers(repo.journalIndexFile);
    } catch {
      // A cache: the next reader derives it again.
    }
  }
  crashPoint('before-release');
  return { files: written, entries: stamped };
}
