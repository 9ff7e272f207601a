/**
 * The write half of a command (rule 7): journal first, then the pointer, both
 * before the command returns. Journal first, so a crash between the two leaves
 * the history ahead of the pointer, never a position the history cannot explain.
 */
import { entry, type JournalEntry } from '../engine/journal-entry.js';
import type { Transition } from '../engine/transitions.js';
import { loopStart } from '../flow/model.js';
import { writeFileAtomically } from '../io/atomic-write.js';
import { appendJournal, stamp } from '../io/journal.js';
import { assertInside } from '../io/repo.js';
import { samePosition } from '../state/position.js';
import { serializePointer } from '../state/serialize-pointer.js';
import type { Loaded } from './load-state.js';

export interface Writer {
  session: string;
  now: () => Date;
}

/** What reconciliation itself changed, as journal entries. */
export function reconciliationEntries(loaded: Loaded): JournalEntry[] {
  const { pointer, reconciled, flow } = loaded;
  const entries: JournalEntry[] = [];
  if (!pointer) entries.push(entry('run_started', reconciled.position, { source: reconciled.source, flow_hash: flow.hash, flow_file: flow.file }));
  if (reconciled.drift.length > 0) {
    entries.push(entry('position_repaired', reconciled.position, { source: reconciled.source, drift: reconciled.drift.map((d) => d.message) }));
  }
  return entries;
}

export function persist(loaded: Loaded, transition: Transition, writer: Writer): void {
  const entries = [...reconciliationEntries(loaded), ...transition.entries];
  const { repo } = loaded;
  assertInside(repo, repo.journalFile);
  assertInside(repo, repo.pointerFile);
  const before = loaded.pointer?.position;
  const moved = !before || !samePosition(before, transition.position);
  if (entries.length > 0) appendJournal(loaded.repo.journalFile, stamp(entries, writer.session, writer.now()));
  if (moved) {
    const text = serializePointer(transition.position, {
      loops: loopStart(loaded.flow) !== undefined,
      preamble: loaded.pointer?.preamble ?? '',
      extraSections: loaded.pointer?.extraSections ?? '',
    });
    writeFileAtomically(loaded.repo.pointerFile, text);
  }
}
