/** The journal entries the rules produce; the shell stamps them (sequence, time, session, key) and appends them. */
import { STATUSES, type Position } from '../formats/pointer/position.js';

export type JournalEvent =
  | 'run_started'
  | 'position_repaired'
  | 'pointer_edited'
  | 'step_started'
  | 'substep'
  | 'step_completed'
  | 'step_skipped'
  | 'step_failed'
  | 'decision_required'
  | 'decision_answered'
  | 'boundary_reached'
  | 'boundary_answered'
  | 'failure_acknowledged'
  | 'cycle_started'
  | 'flow_completed'
  | 'lease_taken_over'
  | 'follow_through'
  | 'breadcrumb'
  | 'skill_state_differs'
  | 'checkpoint_restored'
  | 'run_repinned'
  | 'lock_broken';

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

/** The pointer a command left behind, carried by the last entry of its batch: what a lost pointer is rebuilt from. */
export interface PointerRecord {
  flow: string;
  step: number | 'done';
  name: string;
  status: string;
  sub_step: string;
  retry_count: number;
  cycle: number;
  /** The sha1 of the flow the run is pinned to: a changed flow file is noticed without reading history. */
  flow_hash?: string;
}

/** An entry as it stands in the journal file. */
export interface StampedEntry extends JournalEntry {
  /** 1, 2, 3, …: the entry's place in the journal; the pointer names the last one it reflects. */
  seq: number;
  at: string;
  session: string;
  /** The command that wrote it: `done:greenfield/1/3:a1` (command, flow/cycle/step, attempt). Recognises a repeated command. */
  key?: string;
  pointer?: PointerRecord;
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

export function toPointerRecord(p: Position, flowHash?: string): PointerRecord {
  return {
    flow: p.flow,
    step: p.step,
    name: p.name,
    status: p.status,
    sub_step: p.subStep,
    retry_count: p.retryCount,
    cycle: p.cycle,
    ...(flowHash ? { flow_hash: flowHash } : {}),
  };
}

export function fromPointerRecord(r: PointerRecord): Position {
  return { flow: r.flow, step: r.step, name: r.name, status: r.status as Position['status'], subStep: r.sub_step, retryCount: r.retry_count, cycle: r.cycle };
}

const isCount = (v: unknown, min: number) => typeof v === 'number' && Number.isSafeInteger(v) && v >= min;
const isStep = (v: unknown) => v === 'done' || isCount(v, 1);

function isPointerRecord(v: unknown): v is PointerRecord {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r.flow === 'string' &&
    isStep(r.step) &&
    typeof r.name === 'string' &&
    (STATUSES as readonly unknown[]).includes(r.status) &&
    typeof r.sub_step === 'string' &&
    isCount(r.retry_count, 0) &&
    (r.retry_count as number) <= 3 &&
    isCount(r.cycle, 1) &&
    (r.flow_hash === undefined || typeof r.flow_hash === 'string')
  );
}

/**
 * Why a parsed journal line is not an event, or undefined when it is one.
 * Lines from an older autopilot (no `seq`) are events; a `pointer` that does
 * not hold a position makes the line unusable as a record.
 */
export function eventProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const e = value as Record<string, unknown>;
  if (typeof e.event !== 'string' || e.event === '') return 'no `event`';
  if (typeof e.flow !== 'string') return 'no `flow`';
  if (!isStep(e.step)) return '`step` is not a step number or `done`';
  if (!isCount(e.cycle, 1)) return '`cycle` is not a cycle number';
  if (typeof e.at !== 'string') return 'no `at` time';
  if (typeof e.session !== 'string') return 'no `session`';
  if (e.seq !== undefined && !isCount(e.seq, 1)) return '`seq` is not a sequence number';
  if (e.pointer !== undefined && !isPointerRecord(e.pointer)) return '`pointer` is not a position';
  if (typeof e.name !== 'string') e.name = '';
  if (typeof e.status !== 'string') e.status = '';
  if (!isCount(e.retry_count, 0)) e.retry_count = 0;
  return undefined;
}
