/**
 * The one write path: a plan applied, under the lock, by the transaction
 * (`app/transaction/transact.ts`). Each path it writes passes the path gate; the
 * journal is appended first (rule 7: the record), then the pointer is
 * replaced atomically, naming the journal event it reflects; then the lease,
 * whole files (what `init` sets up, a report), a checkpoint and the pruning
 * of old ones, and the derived index. All or nothing: a write that fails (a
 * full disk) takes back every write before it — the journal cut back, the
 * pointer, the lease and the files put back as they were or removed
 * (`io/undo.ts`) — and a full disk is exit 2 saying so. Archiving old
 * checkpoints and the index come after, and cannot undo it. It returns what
 * it wrote, for whatever acts on a change afterwards (a progress commit).
 */
import { accessSync, constants, existsSync, mkdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { checkpointId, parseCheckpointId } from '../../engine/checkpoint-id.js';
import { carryJournalIndex } from './carry-index.js';
import { retain, retentionClock } from '../../engine/retention.js';
import { serializeCheckpoint } from '../../formats/checkpoint.js';
import { serializeJournalIndex } from '../../formats/journal-index.js';
import { serializeLease, type Lease } from '../../formats/lease.js';
import { archiveDir, archivedFile, checkpointFile, checkpointIds, checkpointsDir } from '../../io/checkpoint-files.js';
import { DISK_FULL, diskFull, InputError } from '../../errors.js';
import { clientFolders } from '../../clients/index.js';
import { chainHash, serializeEntries, toPointerRecord, type HeldEdit, type JournalEntry, type StampedEntry } from '../../formats/journal-line.js';
import { removeLeftovers, sweepLeftovers, writeFileAtomically } from '../../io/atomic-write.js';
import { crashPoint, diskFullWanted } from '../../io/crash-point.js';
import type { LoadedIndex } from '../../io/journal-index.js';
import { appendJournal } from '../../io/journal.js';
import { keepJournalVerdict, readJournalHead } from '../../io/journal-head.js';
import { verdictFile } from '../../io/journal-verdict.js';
import { removeLease } from '../../io/lease-file.js';
import type { Lock } from '../../io/lock.js';
import { displayPath, gatePath, type Repo } from '../../io/repo.js';
import { Undo } from '../../io/undo.js';
import type { Position } from '../../formats/pointer/position.js';
import { canonicalPosition, positionHash, positionText, serializePointer, type PointerExtras } from '../../formats/pointer/serialize-pointer.js';
import { isoTime } from '../../timestamp.js';

export interface Writer {
  session: string;
  now: () => Date;
  /** A person's command (`decide`, `ack`, `done --force`, `restore`, `repin`): each entry says so (`actor: person`). */
  actor?: 'person';
}

export interface Plan {
  entries: JournalEntry[];
  /** The command's key, stamped on each of its entries. */
  key?: string;
  /** The pointer to write; always written when there are entries, so its marker names the last one. */
  pointer?: { position: Position; extras: PointerExtras };
  /** The hash of the flow the run is pinned to, recorded with the pointer. */
  flowHash?: string;
  /** The hash of the skills the run is pinned to (`skills_pinned`), recorded with the pointer. */
  skillsHash?: string | undefined;
  lease?: Lease | 'release';
  /** Whole files to create or replace (what `init` sets up, a report). */
  files?: { path: string; text: string }[];
  /**
   * A checkpoint of the pointer as this plan leaves it (`pointer`: its text
   * when the plan writes none), then the old ones the retention rule no
   * longer keeps are pruned.
   */
  checkpoint?: { label: string; note: string; pointer?: string; before?: boolean; skillState?: { file: string; text: string }[] };
  /** The journal index as the read left it; rewritten when it lagged. */
  index?: LoadedIndex;
}

export interface Written {
  /** Repository-relative paths of every file written. */
  files: string[];
  entries: StampedEntry[];
  /** The checkpoint taken, and those pruned. */
  checkpoint?: { id: string; pruned: string[] };
  /** The progress commit the plan owed, as made (`sha`), found made already, or dropped (the transaction fills it in). */
  progressCommit?: { sha?: string; found?: true; dropped?: string };
  /** What the transaction has to say about progress commits (a narrower commit, none made): the command shows them. */
  notices?: string[];
}

/** Where the journal's chain stands before a batch: the last line's hash, and a merge not yet settled that the batch does not settle. */
export interface ChainEnd {
  /** `chainHash` of the file's last line; absent for an empty journal. */
  prev?: string;
  /** The seam line's hash of a merge not yet settled: entries written meanwhile belong to neither side. */
  unsettled?: string;
}

/**
 * Stamps entries: the chain (`prev`: the hash of the line before, the file's
 * last line for the first entry, the entry before for the others), sequence
 * numbers from `lastSeq + 1`, time, session and key; the last carries the
 * pointer it leads to. Entries written while a merge is not settled, by a
 * batch that does not settle it, carry `unsettled`.
 */
export function stampEntries(
  entries: JournalEntry[],
  lastSeq: number,
  writer: Writer,
  key: string | undefined,
  pointer: Position | undefined,
  flowHash?: string,
  chain: ChainEnd = {},
  skillsHash?: string,
  held?: HeldEdit,
): StampedEntry[] {
  const at = isoTime(writer.now());
  const settles = entries.some((e) => e.event === 'journal_merged');
  let prev = chain.prev;
  return entries.map((e, i) => {
    const stamped = {
      ...(prev !== undefined ? { prev } : {}),
      seq: lastSeq + i + 1,
      at,
      session: writer.session,
      ...(writer.actor ? { actor: writer.actor } : {}),
      ...(key ? { key } : {}),
      ...(chain.unsettled !== undefined && !settles ? { unsettled: chain.unsettled } : {}),
      ...e,
      ...(pointer && i === entries.length - 1 ? { pointer: toPointerRecord(pointer, flowHash, skillsHash, held) } : {}),
    } as StampedEntry;
    prev = chainHash(serializeEntries([stamped]).slice(0, -1));
    return stamped;
  });
}

export function commit(repo: Repo, lock: Lock, lastSeq: number, plan: Plan, writer: Writer): Written {
  if (!lock.held()) throw new Error('commit without the lock');
  const targets = [
    repo.journalFile,
    repo.pointerFile,
    repo.leaseFile,
    repo.journalIndexFile,
    verdictFile(repo.journalFile),
    ...(plan.files ?? []).map((f) => f.path),
  ];
  for (const file of targets) gatePath(repo, file);
  const stamped = stampPlan(repo, lastSeq, plan, writer);
  // Every file the plan writes can be written, before anything is: a read-only folder is exit 2 naming it, with nothing written.
  checkWritable(repo, [
    ...(stamped.length > 0 ? [{ file: repo.journalFile, append: true }] : []),
    ...(plan.pointer ? [{ file: repo.pointerFile }] : []),
    ...(plan.lease ? [{ file: repo.leaseFile }] : []),
    ...(plan.files ?? []).map((f) => ({ file: f.path })),
  ]);
  const written: string[] = [];
  const checkpoint = writeAll(repo, plan, stamped, { lastSeq, writer, written });
  removeCommitLeftovers(repo, plan, written);
  // Housekeeping after the commit is whole: old checkpoints archived, the derived index saved. Neither can undo it.
  const pruned = checkpoint ? prune(repo, checkpoint.at, checkpoint.id) : [];
  if (plan.index?.stale) saveIndex(repo, plan.index);
  // The chain's verdict for the journal as this command leaves it, so the commands that only read hash nothing.
  const position = plan.pointer ? canonicalPosition(plan.pointer.position) : undefined;
  keepJournalVerdict(repo.journalFile, repo.journalIndexFile, position && [positionText(position), positionHash(position)]);
  crashPoint('before-release');
  return { files: written, entries: stamped, ...(checkpoint ? { checkpoint: { id: checkpoint.id, pruned } } : {}) };
}

/** The plan's entries stamped on the chain as the file ends, read under the lock (its last line, a merge not yet settled); the index they carry brought along. */
function stampPlan(repo: Repo, lastSeq: number, plan: Plan, writer: Writer): StampedEntry[] {
  const end = plan.entries.length > 0 ? readJournalHead(repo.journalFile) : undefined;
  const chain: ChainEnd = { ...(end?.last !== undefined ? { prev: end.last } : {}), ...(end?.fork ? { unsettled: end.fork.seam } : {}) };
  const held = plan.pointer?.extras.held ?? undefined;
  const stamped = stampEntries(
    plan.entries,
    Math.max(lastSeq, end?.lastSeq ?? 0),
    writer,
    plan.key,
    plan.pointer?.position,
    plan.flowHash,
    chain,
    plan.skillsHash,
    held,
  );
  carryJournalIndex(repo, end, stamped);
  return stamped;
}

/** What every write of a commit shares: the sequence number read, who writes, and the repository-relative paths written so far. */
interface Writing {
  lastSeq: number;
  writer: Writer;
  written: string[];
}

/**
 * Every write of the plan, in order: journal, pointer, lease, whole files,
 * checkpoint. All or nothing: a write that fails (a full disk) takes back
 * every write before it. Returns the checkpoint taken.
 */
function writeAll(repo: Repo, plan: Plan, stamped: StampedEntry[], w: Writing): { id: string; at: Date } | undefined {
  const undo = new Undo();
  const wrote = (file: string) => w.written.push(displayPath(file, repo.root));
  let checkpoint: { id: string; at: Date } | undefined;
  try {
    if (stamped.length > 0) {
      undo.mkdir(repo.autopilotDir);
      undo.journal(repo.journalFile);
      appendJournal(repo.journalFile, serializeEntries(stamped));
      wrote(repo.journalFile);
      crashPoint('after-journal');
    }
    const text = plan.pointer ? writePointer(repo, undo, plan.pointer, stamped, wrote) : undefined;
    // A checkpoint `before` the change keeps the text it was given (the pointer as it was).
    const pointerText = text !== undefined && !plan.checkpoint?.before ? text : plan.checkpoint?.pointer;
    // A renewal that is the commit's one write needs no old version kept: its rename happened or it did not.
    const alone = stamped.length === 0 && !plan.pointer && (plan.files ?? []).length === 0 && !plan.checkpoint;
    if (plan.lease) writeLease(repo, undo, plan.lease, alone);
    const files = plan.files ?? [];
    files.forEach((file, i) => {
      undo.mkdir(dirname(file.path));
      undo.keep(file.path);
      writeFileAtomically(file.path, file.text, { diskFull: diskFullWanted('file') && i === files.length - 1 });
      wrote(file.path);
    });
    if (plan.checkpoint && pointerText !== undefined) checkpoint = writeCheckpoint(repo, undo, plan.checkpoint, pointerText, stamped, w, wrote);
  } catch (error) {
    throw undone(repo, error, undo.undo());
  }
  undo.done();
  return checkpoint;
}

/** The pointer replaced atomically, naming the journal event it reflects (the batch's last); its text. */
function writePointer(repo: Repo, undo: Undo, pointer: NonNullable<Plan['pointer']>, stamped: StampedEntry[], wrote: (file: string) => void): string {
  const seq = stamped.length > 0 ? stamped[stamped.length - 1]!.seq : undefined;
  const text = serializePointer(pointer.position, { ...pointer.extras, ...(seq === undefined ? {} : { seq }) });
  undo.mkdir(dirname(repo.pointerFile));
  undo.keep(repo.pointerFile);
  writeFileAtomically(repo.pointerFile, text, { diskFull: diskFullWanted('pointer') });
  crashPoint('after-pointer');
  wrote(repo.pointerFile);
  return text;
}

/** The lease released, or written (renewed or taken); `alone`: the commit's one write, with no old version to keep. */
function writeLease(repo: Repo, undo: Undo, lease: Lease | 'release', alone: boolean): void {
  if (lease === 'release') {
    undo.keep(repo.leaseFile);
    removeLease(repo.leaseFile);
    return;
  }
  undo.mkdir(dirname(repo.leaseFile));
  if (!alone) undo.keep(repo.leaseFile);
  // Not fsynced: a lease lost to a power cut is only taken again.
  writeFileAtomically(repo.leaseFile, serializeLease(lease), { fsync: false, diskFull: diskFullWanted('lease') });
}

/** A checkpoint of the pointer as the plan leaves it, at the batch's last event. */
function writeCheckpoint(
  repo: Repo,
  undo: Undo,
  asked: NonNullable<Plan['checkpoint']>,
  pointerText: string,
  stamped: StampedEntry[],
  w: Writing,
  wrote: (file: string) => void,
): { id: string; at: Date } {
  const now = w.writer.now();
  const id = checkpointId(now, asked.label);
  const seq = stamped.at(-1)?.seq ?? w.lastSeq;
  const file = checkpointFile(repo, id);
  gatePath(repo, file);
  undo.mkdir(dirname(file));
  undo.keep(file);
  writeFileAtomically(
    file,
    serializeCheckpoint({
      id,
      at: isoTime(now),
      note: asked.note,
      seq,
      pointer: pointerText,
      ...(asked.skillState?.length ? { skill_state: asked.skillState } : {}),
    }),
    { diskFull: diskFullWanted('checkpoint') },
  );
  wrote(file);
  return { id, at: now };
}

/** What an interrupted commit or write left (a temporary file, an old version kept), removed once this commit is whole. */
function removeCommitLeftovers(repo: Repo, plan: Plan, written: string[]): void {
  // Beside the pointer and the lease, whichever this one wrote.
  if (written.length > 0 || plan.lease) {
    removeLeftovers(repo.pointerFile);
    removeLeftovers(repo.leaseFile);
  }
  // Beside a file of the user's: only our own temporaries.
  for (const file of plan.files ?? []) removeLeftovers(file.path, { ours: true });
  // And what a killed command left in any folder autopilot writes into, whichever files this one wrote.
  if (written.length > 0 || plan.lease) sweepLeftovers(leftoverFolders(repo, plan.files ?? []));
}

/** The derived journal index saved when the read found it lagging: a cache, so a write that fails is left for the next reader to derive again. */
function saveIndex(repo: Repo, index: LoadedIndex): void {
  try {
    mkdirSync(dirname(repo.journalIndexFile), { recursive: true });
    writeFileAtomically(repo.journalIndexFile, serializeJournalIndex(index.index), { fsync: false });
    removeLeftovers(repo.journalIndexFile);
  } catch {
    // A cache: the next reader derives it again.
  }
}

/**
 * The folders the files `init` sets up live in, relative to the root: autopilot's own and the clients'
 * (`src/clients/`; `test/unit/app/agents-setup.test.ts` holds them to what `init --hooks` writes).
 */
const setupFolders = () => ['.autopilot', ...clientFolders()];

/** Every folder autopilot writes a file into: the root, the docs folder, its own folders, the client files' folders, and this commit's. */
export function leftoverFolders(repo: Repo, files: readonly { path: string }[] = []): string[] {
  return [
    repo.root,
    repo.docs,
    dirname(repo.pointerFile),
    repo.autopilotDir,
    dirname(repo.journalIndexFile),
    dirname(repo.flowCacheFile),
    checkpointsDir(repo),
    archiveDir(repo),
    ...setupFolders().map((folder) => join(repo.root, folder)),
    ...files.map((file) => dirname(file.path)),
  ];
}

/** A commit taken back: a full disk says so (exit 2), naming the file and whether all was put back; anything else is thrown as it was. */
function undone(repo: Repo, error: unknown, notUndone: string[]): unknown {
  const { code, path } = error as NodeJS.ErrnoException;
  if (!code || !DISK_FULL.has(code)) return error;
  return diskFull(
    code,
    path && displayPath(path, repo.root),
    notUndone.map((p) => displayPath(p, repo.root)),
  );
}

/** The nearest folder at or above `file`'s that exists: the one a write there needs to write in. */
function nearestFolder(file: string): string {
  let dir = dirname(file);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/**
 * Refuses (exit 2, naming the path) a plan that would fail half-way for want
 * of permission: a file appended to must be writable, and a file replaced
 * atomically needs its folder writable (the temporary file and the rename).
 */
function checkWritable(repo: Repo, targets: { file: string; append?: boolean }[]): void {
  for (const { file, append } of targets) {
    const where = append && existsSync(file) ? file : nearestFolder(file);
    try {
      accessSync(where, constants.W_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'EACCES';
      const shown = displayPath(where, repo.root) || '.';
      throw new InputError(
        {
          file: shown,
          message: `${where === file ? 'this file' : 'this folder'} is not writable by this user (${code}), and the command has to write ${displayPath(file, repo.root)}`,
          expected: `a ${where === file ? 'file' : 'folder'} this user can write`,
          received: code,
        },
        `Nothing was written. Make \`${shown}\` writable for this user (or run autopilot as its owner), then run the command again.`,
        'guard_off',
      );
    }
  }
}

/**
 * Archives the checkpoints the retention rule no longer keeps (compressed,
 * in `checkpoints/archive/`; nothing is deleted); returns their ids. `taken`:
 * the checkpoint just made, which does not move the rule's clock.
 * Housekeeping after the commit is whole: an archive that cannot be written
 * (a full disk) leaves that checkpoint where it is, and the next checkpoint
 * tries again.
 */
function prune(repo: Repo, now: Date, taken: string): string[] {
  const refs = checkpointIds(repo).map((id) => ({ id, at: parseCheckpointId(id)!.at }));
  const clock = retentionClock(
    now,
    refs.filter((r) => r.id !== taken).map((r) => r.at),
  );
  const { prune: drop } = retain(refs, clock);
  const archived: string[] = [];
  for (const id of drop) {
    const file = checkpointFile(repo, id);
    const archive = archivedFile(repo, id);
    try {
      gatePath(repo, file);
      gatePath(repo, archive);
      mkdirSync(dirname(archive), { recursive: true });
      // zlib is loaded here, when a checkpoint is archived: no other command start needs it.
      writeFileSync(`${archive}.tmp`, process.getBuiltinModule('node:zlib').gzipSync(readFileSync(file)));
      renameSync(`${archive}.tmp`, archive);
      unlinkSync(file);
      archived.push(id);
    } catch (error) {
      if (error instanceof InputError) throw error;
      rmSync(`${archive}.tmp`, { force: true });
      break;
    }
  }
  return archived;
}
