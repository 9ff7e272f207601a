/**
 * The journal's batches (not the batches of tasks a step walks, which are
 * `task-batches.ts`): a command's events are one batch, consecutive sequence
 * numbers, the last carrying the pointer the command left. A batch a crash cut short (a kill
 * half-way through the write) has no such last event; its whole lines are
 * not on record, and every reader leaves them out. Events from before
 * sequence numbers (an older autopilot) always count. An event that moves no
 * position and says one thing done outside the journal (`progress_commit_made`)
 * is a batch of its own: it leaves the pointer as it was. Pure.
 */
import type { StampedEntry } from '../formats/journal-line.js';

/** Whether an event closes its batch: it carries the pointer its command left, or it is a batch of its own. */
const closes = (e: StampedEntry) => e.pointer !== undefined || e.event === 'progress_commit_made';

/** Reading newest first: call `accept` for each event and learn whether it is on record. */
export function newestFirstFilter(): (e: StampedEntry) => boolean {
  let expected: number | undefined;
  return (e) => {
    if (typeof e.seq !== 'number') return true;
    if (closes(e)) {
      expected = e.seq - 1;
      return true;
    }
    if (expected !== undefined && e.seq === expected) {
      expected--;
      return true;
    }
    expected = undefined;
    return false;
  };
}

/**
 * Reading oldest first: events are held until their batch closes. `push`
 * returns the events that became on record (in order) and those dropped as
 * part of a batch that never closed.
 */
export function oldestFirstBatches(): { push(e: StampedEntry): { accepted: StampedEntry[]; dropped: StampedEntry[] }; pending(): StampedEntry[] } {
  let open: StampedEntry[] = [];
  return {
    push(e) {
      if (typeof e.seq !== 'number') return { accepted: [e], dropped: [] };
      const last = open.at(-1);
      let dropped: StampedEntry[] = [];
      if (last && e.seq !== (last.seq as number) + 1) {
        dropped = open;
        open = [];
      }
      open.push(e);
      if (!closes(e)) return { accepted: [], dropped };
      const accepted = open;
      open = [];
      return { accepted, dropped };
    },
    pending: () => open,
  };
}
