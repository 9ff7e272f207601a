/**
 * A progress commit git could not take (a detached HEAD, a held
 * `index.lock`, a hook that refuses) stays owed until a later commit holds
 * its files (contract rule 11; docs/git.md, "Where git cannot take one").
 * The journal says what is owed by its end: the last command's batch ends
 * with `progress_commit_owed`. So a command that writes while a commit is
 * still owed carries it on: its own owed commit holds the earlier one's
 * files and work too, or, when it owes none, the earlier one is owed again
 * at the end of its batch. Pure.
 */
import type { JournalEntry, KnownEntry } from '../formats/journal-line.js';

/** A `progress_commit_owed` line as read back from the journal. */
export type OwedCommit = Extract<KnownEntry, { event: 'progress_commit_owed' }>;

type OwedEntry = JournalEntry<'progress_commit_owed'>;

/** The batch's entries, ending with the commit owed: the command's own holding `carried` too, or `carried` owed again. */
export function carryOwed(entries: readonly JournalEntry[], carried: OwedCommit): JournalEntry[] {
  const last = entries.at(-1);
  if (last?.event === 'progress_commit_owed') return [...entries.slice(0, -1), absorb(last, carried)];
  return [...entries, owedAgain(carried)];
}

/** `step 1 Problem completed (event 7)`: an owed commit, said in a later commit's body (`event: false`: without its number). */
export function describeOwed(owed: Pick<OwedCommit, 'step' | 'name' | 'status' | 'seq'> & { batch_text?: unknown }, event = true): string {
  const what = typeof owed.batch_text === 'string' ? owed.batch_text : owed.status;
  return `step ${owed.step} ${owed.name} ${what}${event ? ` (event ${owed.seq})` : ''}`;
}

/** The command's own owed commit, holding the earlier one's files, its judged files, and its work since its step began. */
function absorb(own: OwedEntry, carried: OwedCommit): OwedEntry {
  const files = [...new Set([...(carried.files ?? []), ...own.files])];
  const judged = carried.judged || own.judged ? { ...carried.judged, ...own.judged } : undefined;
  // The earlier step's start: what changed since holds both steps' work (what was already committed drops out against HEAD).
  const tree = carried.tree ?? own.tree;
  const carries = [...(carried.carries ?? []), describeOwed(carried)];
  return { ...own, files, carries, tree, judged };
}

/** The earlier owed commit, owed again: the same step, files, work and judged files, stamped anew with this batch. */
function owedAgain(carried: OwedCommit): OwedEntry {
  const { flow, cycle, step, name, status, retry_count, files = [], steps = 0, tree, batch_text, judged, carries } = carried;
  return {
    event: 'progress_commit_owed',
    flow,
    cycle,
    step,
    name,
    step_index: typeof step === 'number' ? step - 1 : null,
    status,
    retry_count,
    files,
    steps,
    tree,
    batch_text,
    judged,
    carries,
  } as OwedEntry;
}
