/**
 * The end of the journal, which is all a command needs from it: the last
 * sequence number, and the last pointer a command left (what a lost or
 * stale pointer is rebuilt from). Read backwards, so it costs the same at a
 * million events as at ten.
 */
import type { JournalEvent, KnownEntry, PointerRecord, StampedEntry } from '../formats/journal-line.js';
import { readBackwards } from './journal.js';
import { JOURNAL_HEAD_WINDOW_BYTES, JOURNAL_STEP_WINDOW_BYTES } from '../limits.js';

export interface JournalHead {
  /** The highest `seq` near the end; 0 for an empty journal or one from before sequence numbers. */
  lastSeq: number;
  /** The newest entry that carries the pointer its command left: the last of the last command's batch. */
  record?: { seq: number; pointer: PointerRecord; at: string; session: string; key?: string; event: string; entry: StampedEntry };
  /** The progress commit said made after that record (`progress_commit_made`, a batch of its own), by the seq it settles. */
  settled?: number;
}

const isOneOf = <E extends JournalEvent>(e: StampedEntry, events: ReadonlySet<E>): e is Extract<KnownEntry, { event: E }> =>
  (events as ReadonlySet<string>).has(e.event);

export function readJournalHead(file: string): JournalHead {
  const head: JournalHead = { lastSeq: 0 };
  readBackwards(
    file,
    (e: StampedEntry) => {
      if (typeof e.seq === 'number' && e.seq > head.lastSeq) head.lastSeq = e.seq;
      if (e.event === 'progress_commit_made' && typeof e.owed === 'number' && head.settled === undefined) head.settled = e.owed;
      if (e.pointer && typeof e.seq === 'number') {
        head.record = {
          seq: e.seq,
          pointer: e.pointer,
          at: e.at,
          session: e.session,
          ...(e.key !== undefined ? { key: e.key } : {}),
          event: e.event,
          entry: e,
        };
        return true;
      }
      return false;
    },
    JOURNAL_HEAD_WINDOW_BYTES,
  );
  return head;
}

/**
 * The newest entry about one step of one cycle whose event is in `events`,
 * read backwards; undefined when none lies within the last few megabytes
 * (a command aimed at a step that long ago is refused, not applied).
 */
export function latestAbout<E extends JournalEvent>(
  file: string,
  at: { flow: string; cycle: number; step: number },
  events: ReadonlySet<E>,
): Extract<KnownEntry, { event: E }> | undefined {
  let found: Extract<KnownEntry, { event: E }> | undefined;
  readBackwards(
    file,
    (e) => {
      if (e.flow === at.flow && e.cycle === at.cycle && e.step === at.step && isOneOf(e, events)) found = e;
      return found !== undefined;
    },
    JOURNAL_STEP_WINDOW_BYTES,
  );
  return found;
}

/** The newest entry of one flow whose event is in `events` (within the last megabyte), e.g. the boundary last reached. */
export function latestOf<E extends JournalEvent>(file: string, flow: string, events: ReadonlySet<E>): Extract<KnownEntry, { event: E }> | undefined {
  let found: Extract<KnownEntry, { event: E }> | undefined;
  readBackwards(
    file,
    (e) => {
      if (e.flow === flow && isOneOf(e, events)) found = e;
      return found !== undefined;
    },
    JOURNAL_HEAD_WINDOW_BYTES,
  );
  return found;
}
