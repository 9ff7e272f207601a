/**
 * The pinned acceptance criteria at the edge (issue 29 point 8,
 * `engine/criteria.ts`): the criteria file of the run's cycle read as it is
 * now (within `OUTPUT_FILE_MAX_BYTES`), the pin the journal index keeps, and
 * whether an edit of them is held. Costs nothing before the run passes the
 * step that pins them; after, one read of the file and of the index the
 * journal's end carries. Never writes.
 */
import { join } from 'node:path';
import { criteriaChanges, criteriaFile, criteriaStep, pastCriteriaStep, type CriteriaHeld } from '../../engine/criteria.js';
import type { Flow } from '../../formats/flow/model.js';
import { readCriteria } from '../../formats/criteria.js';
import type { JournalIndex } from '../../formats/journal-index.js';
import type { PinnedCriterion } from '../../formats/journal-line.js';
import type { Position } from '../../formats/pointer/position.js';
import { loadJournalIndex } from '../../io/journal-index.js';
import { readBounded } from '../../io/read-bounded.js';
import type { Repo } from '../../io/repo.js';
import { OUTPUT_FILE_MAX_BYTES } from '../../limits.js';
import type { Loaded } from './load-state.js';

/** The criteria of a cycle as the file holds them now (none when it is missing or unreadable), and the file from the repository root. */
export function criteriaNow(repo: Repo, flow: Flow, cycle: number): { file: string; criteria: PinnedCriterion[] } {
  const rel = criteriaFile(flow, cycle);
  const read = readBounded(join(repo.docs, rel), rel, 'file', OUTPUT_FILE_MAX_BYTES);
  return { file: `${repo.docsName}/${rel}`, criteria: 'text' in read ? readCriteria(read.text) : [] };
}

/** The journal index as the read left it, or read now (kept on `loaded`, so a writer refreshes its cache). */
function indexOf(loaded: Loaded): JournalIndex {
  loaded.index ??= loaded.head.index
    ? { index: loaded.head.index.read(), stale: false }
    : loadJournalIndex(loaded.repo.journalFile, loaded.repo.journalIndexFile);
  return loaded.index.index;
}

/** An edit of the pinned criteria that is held at `position`, or undefined (none pinned, not past the step that pins them, nothing dropped or rewritten). */
export function heldCriteria(loaded: Loaded, position: Position): CriteriaHeld | undefined {
  const { repo, flow } = loaded;
  const step = criteriaStep(flow, position.cycle);
  // Before the run passes the step that writes them, the criteria are that step's to write: nothing is read.
  if (step === undefined || !pastCriteriaStep(flow, position, { cycle: position.cycle, file: '', criteria: [] })) return undefined;
  const pin = indexOf(loaded).criteria?.[flow.id];
  if (!pin || pin.cycle !== position.cycle) return undefined;
  const now = criteriaNow(repo, flow, position.cycle);
  const changes = criteriaChanges(pin.criteria, now.criteria);
  if (changes.dropped.length === 0 && changes.rewritten.length === 0) return undefined;
  return { file: now.file, ...changes, now: now.criteria };
}
