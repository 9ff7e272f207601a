/**
 * The journal carries its own index (`formats/journal-index.ts`): the line
 * that closes a batch holds it when a reader of the journal's end would not
 * otherwise find one — the last copy lies `JOURNAL_INDEX_CARRY_BYTES` back or
 * more, or there is none a reader can trust (a journal an older autopilot
 * wrote, a merge this batch settles). The reader folds in the few events after
 * the copy, so a fresh clone of a long history answers from its last few
 * kilobytes, with no cache.
 */
import { carryIndex, indexEvent } from '../../formats/journal-index.js';
import { serializeEntries, type StampedEntry } from '../../formats/journal-line.js';
import type { JournalHead } from '../../io/journal-head.js';
import { loadJournalIndex } from '../../io/journal-index.js';
import type { Repo } from '../../io/repo.js';
import { JOURNAL_INDEX_CARRY_BYTES, JOURNAL_LINE_MAX_BYTES } from '../../limits.js';

/** Sets `journal_index` on the batch's last entry when it is due. `end`: the journal's end as read under the lock, before the batch. */
export function carryJournalIndex(repo: Pick<Repo, 'journalFile' | 'journalIndexFile'>, end: JournalHead | undefined, stamped: StampedEntry[]): void {
  const last = stamped.at(-1);
  if (!last) return;
  // A batch that settles a merge or cuts torn lines changes what the lines before it stand for: derived from the whole file.
  const settles = stamped.some((e) => e.event === 'journal_merged' || e.event === 'journal_repaired');
  const tail = settles ? undefined : end?.index;
  if (tail && tail.bytesAfter + Buffer.byteLength(serializeEntries(stamped)) < JOURNAL_INDEX_CARRY_BYTES) return;
  const index = tail ? tail.read() : loadJournalIndex(repo.journalFile, repo.journalIndexFile).index;
  for (const e of stamped) indexEvent(index, e);
  const carried = carryIndex(index);
  // Too long to carry (a flow of hundreds of steps pinned): readers derive it, as for an older journal.
  if (JSON.stringify(last).length + JSON.stringify(carried).length + 20 > JOURNAL_LINE_MAX_BYTES) return;
  (last as { journal_index?: unknown }).journal_index = carried;
}
