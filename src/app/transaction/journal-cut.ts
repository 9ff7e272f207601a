/**
 * The signs of a cut journal beyond the pointer's marker (`engine/journal-cut.ts`),
 * read at the edge, cheapest first:
 * - this machine's note of the last progress commit it made (one small file),
 *   while that commit is still HEAD (read from the git folder's files, no
 *   process): after a `git revert`, a merge or any commit since, HEAD's
 *   journal decides instead;
 * - the newest checkpoint taken since the journal's first event (one listing,
 *   one small file): an older run's, before a `reset`, does not count;
 * - the journal HEAD holds, only where a command may write (or `check` asks)
 *   and the cheap signs cannot vouch (no note, or no pointer marker the
 *   journal backs), or a cut is found and the recovery depends on it: one
 *   `git ls-tree`, and HEAD's journal read only when it is larger than the
 *   work tree's, or a cut is known. A HEAD journal of another run (its first
 *   line not the work tree's: a `reset` not committed yet) does not count.
 * `status` never starts git here.
 */
import { closeSync, readSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import { judgeCut, type CutSign, type JournalCut } from '../../engine/journal-cut.js';
import { checkpointIds, readCheckpoint } from '../../io/checkpoint-files.js';
import { firstEventAt, openFile } from '../../io/journal.js';
import type { Repo } from '../../io/repo.js';
import { openGitOnce } from '../git/once.js';
import { firstCommitMissing, gitFallbackOff, headOnDisk } from '../git/source.js';
import type { Loaded } from './load-state.js';
import { notedCommit } from '../git/progress-commit.js';

export interface CutOptions {
  /** Whether git may be asked for HEAD's journal. */
  git: boolean;
}

/** The cut the signs show, with whether HEAD holds the record when git was asked; undefined: the journal reaches every sign. */
export async function findCut(repo: Repo, loaded: Loaded, options: CutOptions): Promise<JournalCut | undefined> {
  if (loaded.fork) return undefined;
  const found = loaded.head.lastSeq;
  const signs: { by: CutSign; seq: number }[] = [];
  if (loaded.pointer?.record) signs.push({ by: 'pointer', seq: loaded.pointer.record.seq });
  const note = notedCommit(repo);
  const noted = note && note.sha === headOnDisk(repo) ? note.seq : undefined;
  if (noted !== undefined) signs.push({ by: 'commit', seq: noted });
  const checkpoint = newestCheckpointSeq(repo);
  if (checkpoint !== undefined) signs.push({ by: 'checkpoint', seq: checkpoint });
  const cut = judgeCut(found, signs);
  const vouched = noted !== undefined && loaded.pointer?.record?.seq === found && !loaded.record.drift.some((d) => d.kind === 'hand-edit');
  if (!options.git || (!cut && vouched)) return cut;
  const head = await headSeq(repo, cut !== undefined);
  return head === undefined ? (cut ? { ...cut, headHolds: false } : undefined) : judgeCut(found, [...signs, { by: 'head', seq: head }]);
}

/** The event the newest checkpoint of this journal's run was taken at: none before the journal's first event counts. */
function newestCheckpointSeq(repo: Repo): number | undefined {
  const newest = checkpointIds(repo)[0];
  if (newest === undefined) return undefined;
  try {
    const checkpoint = readCheckpoint(repo, newest);
    const first = firstEventAt(repo.journalFile);
    if (first && new Date(checkpoint.at).getTime() < first.getTime()) return undefined;
    return checkpoint.seq;
  } catch {
    // Not one autopilot wrote: `autopilot checkpoints` names it.
    return undefined;
  }
}

/** The last event of the journal HEAD holds, when it is this run's and may reach further than the work tree's; `known`: a cut is found. */
async function headSeq(repo: Repo, known: boolean): Promise<number | undefined> {
  if (gitFallbackOff(repo) || firstCommitMissing(repo)) return undefined;
  // Opened once for the command: the progress commit that follows takes the same answer.
  const opened = await openGitOnce(repo);
  if (!opened.handle) return undefined;
  const { heldAtHead, blobText } = await import('../../git/history.js');
  const path = relative(repo.root, repo.journalFile).split('\\').join('/');
  const [held] = await heldAtHead(opened.handle, [path]);
  const here = statSync(repo.journalFile, { throwIfNoEntry: false })?.size ?? 0;
  if (!held || (!known && held.size <= here)) return undefined;
  const text = await blobText(opened.handle, held.sha);
  const local = firstLine(repo.journalFile);
  if (local !== undefined && text.slice(0, text.indexOf('\n')) !== local) return undefined;
  return lastSeq(text);
}

function firstLine(file: string): string | undefined {
  const fd = openFile(file);
  if (fd === undefined) return undefined;
  try {
    const buffer = Buffer.alloc(65536);
    const text = buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).toString('utf8');
    const end = text.indexOf('\n');
    return end < 0 ? undefined : text.slice(0, end);
  } finally {
    closeSync(fd);
  }
}

/** The highest `seq` of a journal's text, read from its end: a torn or foreign line is passed over. */
function lastSeq(text: string): number | undefined {
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const seq = (JSON.parse(lines[i]!) as { seq?: unknown }).seq;
      if (typeof seq === 'number') return seq;
    } catch {
      // Not a line of ours.
    }
  }
  return undefined;
}
