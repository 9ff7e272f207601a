/** The journal entries the rules produce; the shell stamps time and session and appends them. */
import type { Position } from '../state/position.js';

export type JournalEvent =
  | 'run_started'
  | 'position_repaired'
  | 'step_started'
  | 'substep'
  | 'step_completed'
  | 'step_skipped'
  | 'step_failed'
  | 'decision_required'
  | 'decision_answered'
  | 'boundary_reached'
  | 'failure_acknowledged'
  | 'cycle_started'
  | 'flow_completed';

export interface JournalEntry {
  event: JournalEvent;
  flow: string;
  cycle: number;
  step: number | 'done';
  name: string;
  /** The step's zero-based position in the flow's step list. */
  index: number | null;
  status: string;
  retry_count: number;
  [detail: string]: unknown;
}

export function entry(event: JournalEvent, at: Position, details: Record<string, unknown> = {}): JournalEntry {
  return {
    event,
    flow: at.flow,
    cycle: at.cycle,
    step: at.step,
    name: at.name,
    index: typeof at.step === 'number' ? at.step - 1 : null,
    status: at.status,
    retry_count: at.retryCount,
    ...details,
  };
}
