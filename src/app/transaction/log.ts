/** `log`: the journal, newest last. `-n N` reads only the end of the file. */
import type { StampedEntry } from '../../formats/journal-line.js';
import type { Problem } from '../../errors.js';
import { lastEntries, readJournal, type Seam } from '../../io/journal.js';
import { displayPath, openRepo } from '../../io/repo.js';
import type { Context } from './context.js';

export type { Seam };

/** The whole log also marks where a merge put another branch's events (the seams of the chain), settled or not. */
export function runLog(ctx: Pick<Context, 'repo'>, limit: number | undefined): { entries: StampedEntry[]; problems: Problem[]; seams?: Seam[] } {
  const repo = openRepo(ctx.repo);
  if (limit !== undefined) return { entries: lastEntries(repo.journalFile, limit), problems: [] };
  return readJournal(repo.journalFile, displayPath(repo.journalFile, repo.root), { chain: true });
}
