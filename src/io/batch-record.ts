/**
 * What the journal says of a step that walks its task index, in the visit of
 * the step now under way (docs/state-and-journal.md, "Batches"): the batches
 * the run pinned (the newest `batch_started`), each batch the engine judged
 * done (`batch_completed`), and each batch's report and work tree as its
 * batch began (`report_hash`, `tree`). Files on disk count for nothing here: a batch is done
 * only by the engine's own record of it.
 *
 * A visit ends with the step's `step_completed` or `step_skipped`; a step
 * done before and now redone (a person moved the pointer back) starts
 * afresh. The read stops at the visit's start: the step finished before it
 * (no other step finishes while one is under way), or the run's
 * `run_started`. One backward read, bounded like every read of one step's
 * events.
 */
import type { KnownEntry } from '../formats/journal-line.js';
import { JOURNAL_STEP_WINDOW_BYTES } from '../limits.js';
import { readBackwards } from './journal.js';

/** Events that belong to a visit's work (a progress commit's record about the step does not). */
const VISIT = new Set(['step_started', 'step_failed', 'batch_started', 'batch_completed', 'substep']);

export interface BatchRecord {
  /** The newest `batch_started` of the visit: it pins every batch's tasks. */
  pinned?: Extract<KnownEntry, { event: 'batch_started' }>;
  /** The batch numbers the engine recorded done in the visit, ascending. */
  completed: number[];
  /** Each batch's report as its batch began (the newest `batch_started` of that batch that recorded one), by batch number. */
  reportAtStart: Map<number, string>;
  /** The work tree's snapshot as each batch began (`tree`, the same way), by batch number. */
  treeAtStart: Map<number, string>;
}

/**
 * Reads back from the journal's end over the step's events. `finished`: the
 * step stands completed (or skipped) now, so the newest completion is this
 * visit's own end, not the end of an earlier one.
 */
export function batchRecord(file: string, at: { flow: string; cycle: number; step: number }, finished: boolean): BatchRecord {
  const completed = new Set<number>();
  const reportAtStart = new Map<number, string>();
  const treeAtStart = new Map<number, string>();
  let pinned: BatchRecord['pinned'];
  let ownEnd = finished;
  let seen = false;
  readBackwards(
    file,
    (e) => {
      if (e.flow !== at.flow) return false;
      if (e.event === 'run_started') return true;
      const ends = e.event === 'step_completed' || e.event === 'step_skipped';
      // Another step finished: nothing older belongs to this visit (no other step finishes while one is under way).
      if (e.cycle !== at.cycle || e.step !== at.step) return ends;
      if (ends) {
        // The completion that ends this visit is read first; any other ends an earlier visit.
        if (ownEnd && !seen) {
          ownEnd = false;
          return false;
        }
        return true;
      }
      if (VISIT.has(e.event)) seen = true;
      if (e.event === 'batch_completed' && typeof e.batch === 'number') completed.add(e.batch);
      if (e.event === 'batch_started') {
        pinned ??= e;
        if (typeof e.batch === 'number' && typeof e.report_hash === 'string' && !reportAtStart.has(e.batch)) reportAtStart.set(e.batch, e.report_hash);
        if (typeof e.batch === 'number' && typeof e.tree === 'string' && !treeAtStart.has(e.batch)) treeAtStart.set(e.batch, e.tree);
      }
      return false;
    },
    JOURNAL_STEP_WINDOW_BYTES,
  );
  return { ...(pinned ? { pinned } : {}), completed: [...completed].sort((a, b) => a - b), reportAtStart, treeAtStart };
}
