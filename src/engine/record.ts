/**
 * Rule 7: the journal is the record, the pointer its readable summary. Pure.
 *
 * The pointer's schema marker names the journal event it reflects and a hash
 * of the position it was written with. From those and the journal's last
 * record this decides where reconciliation starts:
 * - the pointer is what the engine wrote for the journal's last record: as is;
 * - it is what the engine wrote for an older event (a crash between the two
 *   writes, a copy restored from git): brought up to the journal;
 * - its position no longer hashes to its marker (a person edited it, or a
 *   merge kept half of each side): respected, and reported as a hand edit;
 * - there is none: rebuilt from the journal's last record, else the folder;
 * - it names an event the journal does not reach (the journal emptied,
 *   deleted, or an older copy restored), whether or not it was edited since:
 *   the journal is cut (`journal-gone`, `journal-behind`, `engine/journal-cut.ts`);
 *   the position shown is the pointer's, and every command that writes is
 *   held until the record is back or a person adopts it. Judged before the
 *   hand edit: an edit judged against a cut journal's last record would pass
 *   the gates the lost events set (a failed step revived).
 */
// Every field the position's hash covers, compared (not hashed: nothing to load, and no two positions alike by chance).
import { samePosition, type Position } from '../formats/pointer/position.js';
import { fromPointerRecord, type PointerRecord } from '../formats/journal-line.js';
import type { Drift } from './reconcile.js';
import { cutRecovery, cutText, judgeCut, type JournalCut } from './journal-cut.js';

export interface PointerSeen {
  position: Position;
  record?: { seq: number; hash: string };
}

export interface JournalRecord {
  seq: number;
  pointer: PointerRecord;
}

export interface RecordVerdict {
  /** Where reconciliation with the folder starts; null: scan the folder. */
  start: Position | null;
  drift: Drift[];
  /** The fields a person changed, when the pointer was edited by hand. */
  edited?: Record<string, { was: unknown; now: unknown }>;
  /** The journal's last position, when the pointer was edited by hand: what a gate a person owns is judged from (`engine/gates.ts`). */
  journal?: Position;
  /** The pointer's marker names an event the journal does not reach. */
  cut?: JournalCut;
}

const FIELDS: [keyof Position, string][] = [
  ['flow', 'flow'],
  ['step', 'step'],
  ['name', 'name'],
  ['status', 'status'],
  ['subStep', 'sub_step'],
  ['retryCount', 'retry_count'],
  ['cycle', 'cycle'],
];

function differences(was: Position, now: Position): Record<string, { was: unknown; now: unknown }> {
  const out: Record<string, { was: unknown; now: unknown }> = {};
  for (const [key, label] of FIELDS) if (was[key] !== now[key]) out[label] = { was: was[key], now: now[key] };
  return out;
}

const describe = (p: Position) => (p.step === 'done' ? `${p.flow} done` : `step ${p.step} (${p.name}), ${p.status}, retry ${p.retryCount}`);

/**
 * `journalFile`: the journal's path as a person types it, named in what is said when it lost events.
 */
export function checkRecord(
  pointer: PointerSeen | null,
  journal: JournalRecord | undefined,
  hash: (p: Position) => string,
  journalFile = 'the journal',
): RecordVerdict {
  if (!pointer) {
    if (!journal) return { start: null, drift: [] };
    const start = fromPointerRecord(journal.pointer);
    return {
      start,
      drift: [{ kind: 'rebuilt', step: start.step, message: `no pointer: the position comes from the journal (event ${journal.seq}: ${describe(start)})` }],
    };
  }

  const { position, record } = pointer;
  // The marker names an event the journal does not reach: the record of the run is cut, however the pointer reads.
  const cut = record ? judgeCut(journal?.seq ?? 0, [{ by: 'pointer', seq: record.seq }]) : undefined;
  if (cut) {
    const edited = record!.hash !== hash(position) ? ' (the pointer was edited by hand since)' : '';
    return {
      start: position,
      drift: [
        {
          kind: journal ? 'journal-behind' : 'journal-gone',
          step: position.step,
          message: `${cutText(cut, journalFile)}${edited}. ${cutRecovery(cut, journalFile)}`,
        },
      ],
      cut,
    };
  }
  const fromJournal = journal ? fromPointerRecord(journal.pointer) : undefined;
  if (!record || record.hash !== hash(position)) {
    // A hand edit is respected; the folder still judges it, as any pointer.
    if (!fromJournal || (!record && samePosition(fromJournal, position))) return { start: position, drift: [] };
    const base = journal && record?.seq === journal.seq ? fromJournal : undefined;
    const edited = base ? differences(base, position) : undefined;
    const what = edited && Object.keys(edited).length > 0 ? Object.entries(edited).map(([k, v]) => `${k} ${String(v.was)} → ${String(v.now)}`) : undefined;
    return {
      start: position,
      drift: [
        {
          kind: 'hand-edit',
          step: position.step,
          message: `the pointer was edited by hand${what ? ` (${what.join(', ')})` : ''}; respected, and checked against the folder (the journal's last record: ${describe(fromJournal)})`,
        },
      ],
      ...(edited ? { edited } : {}),
      journal: fromJournal,
    };
  }
  if (!journal || record.seq === journal.seq) return { start: position, drift: [] };
  if (hash(fromJournal!) === record.hash) return { start: position, drift: [] };
  return {
    start: fromJournal!,
    drift: [
      {
        kind: 'behind-journal',
        step: fromJournal!.step,
        message: `the pointer reflects journal event ${record.seq} (${describe(position)}), but the journal goes on to event ${journal.seq} (${describe(fromJournal!)}): the pointer is behind the journal`,
      },
    ],
  };
}
