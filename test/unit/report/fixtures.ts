/** Journals and models for the report's renderer tests. */
import { entry, type JournalEntry, type JournalEvent, type StampedEntry } from '../../../src/formats/journal-line.js';
import type { Flow } from '../../../src/formats/flow/model.js';
import type { Position } from '../../../src/formats/pointer/position.js';
import { buildReport, type ReportModel } from '../../../src/report/report-model.js';
import { at } from '../../helpers/engine.js';

export const HOSTILE = 'x"]) --> y["<script>alert(1)</script> | `a` #quot; {b} & c;';

/** Any event with any details: the renderer tests feed odd ones on purpose. */
const anyEntry = entry as (event: JournalEvent, at: Position, details?: Record<string, unknown>) => JournalEntry;

let seq = 0;
export function stamped(event: JournalEvent, position: Position, time: string, session = 'local', details: Record<string, unknown> = {}): StampedEntry {
  return { seq: ++seq, at: `2026-11-26T${time}.000Z`, session, ...anyEntry(event, position, details) } as StampedEntry;
}

/** Step 1 done, 2 failed once then done by another session, 3 in progress. */
export function walked(flow: Flow, session = 'local'): { entries: StampedEntry[]; position: Position } {
  seq = 0;
  const entries = [
    stamped('run_started', at(flow, 1), '09:00:00'),
    stamped('step_started', at(flow, 1, 'in_progress'), '09:00:01', session, { attempt: 1 }),
    stamped('step_completed', at(flow, 1, 'completed'), '09:10:00', session),
    stamped('step_started', at(flow, 2, 'in_progress'), '09:10:01', session, { attempt: 1 }),
    stamped('step_failed', at(flow, 2, 'not_started', { retryCount: 1 }), '09:20:00', session, { attempt: 1, reason: 'tests red' }),
    stamped('step_started', at(flow, 2, 'in_progress', { retryCount: 1 }), '09:21:00', 'second', { attempt: 2 }),
    stamped('step_completed', at(flow, 2, 'completed'), '09:30:00', 'second'),
    stamped('step_started', at(flow, 3, 'in_progress'), '09:31:00', 'second', { attempt: 1 }),
  ];
  return { entries, position: at(flow, 3, 'in_progress') };
}

export function model(flow: Flow, session?: string, extra: Partial<Parameters<typeof buildReport>[0]> = {}): ReportModel {
  const { entries, position } = walked(flow, session);
  return buildReport({ flow, position, entries, now: new Date('2026-11-26T10:00:00Z'), ...extra });
}
