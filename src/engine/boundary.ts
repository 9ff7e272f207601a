/**
 * Rule 4 (docs/state-and-journal.md, "Session boundaries"): a session boundary
 * is a decision. After a step whose flow
 * marks a boundary, the pointer moves to the next step (`not_started`) and the
 * engine stops with: A) start a new conversation (recommended), B) continue in
 * this one. Until it is answered, the session that reached it cannot walk past
 * it; a new session (a new conversation) can, and that counts as A. Answered
 * A by a person, the session that reached it still stops there; a new one
 * goes on. Pure.
 */
import type { Decision, Flow } from '../formats/flow/model.js';
import { stepByNumber } from '../formats/flow/model.js';
import type { Position } from '../formats/pointer/position.js';
import type { JournalEvent, StampedEntry } from '../formats/journal-line.js';

export interface PendingBoundary {
  /** The step whose completion reached the boundary. */
  after: number;
  /** The session that reached it: the one that may not walk past it unanswered. */
  session: string;
}

/** The journal events that open or close a boundary (`step_started` closes one that was never answered, as by an older autopilot). */
export const BOUNDARY_EVENTS: ReadonlySet<JournalEvent> = new Set<JournalEvent>(['boundary_reached', 'boundary_answered', 'step_started']);

/** Whether the position waits at a boundary: it is the step after one, not started, and the newest boundary event is the boundary reached there. */
export function pendingBoundary(flow: Flow, position: Position, latest: StampedEntry | undefined): PendingBoundary | undefined {
  if (position.step === 'done' || position.status !== 'not_started' || !latest || latest.event !== 'boundary_reached') return undefined;
  if (latest.flow !== flow.id || latest.step !== position.step || latest.cycle !== position.cycle) return undefined;
  return latest.after === undefined ? undefined : { after: latest.after, session: latest.session };
}

/**
 * A person answered A at the boundary the position stands after (the newest
 * boundary event is that answer, `stopped` naming the session that reached
 * it): that conversation stops there; a new one goes on.
 */
export function stoppedAtBoundary(flow: Flow, position: Position, latest: StampedEntry | undefined): PendingBoundary | undefined {
  if (position.step === 'done' || position.status !== 'not_started' || latest?.event !== 'boundary_answered') return undefined;
  if (latest.flow !== flow.id || latest.step !== position.step || latest.cycle !== position.cycle) return undefined;
  return typeof latest.stopped === 'string' && typeof latest.after === 'number' ? { after: latest.after, session: latest.stopped } : undefined;
}

/** Whether the position could be at a boundary at all: only then is the journal asked. */
export function mayWaitAtBoundary(flow: Flow, position: Position): boolean {
  if (position.step === 'done' || position.status !== 'not_started') return false;
  return flow.steps.some((s) => s.then.kind === 'boundary');
}

/** The boundary as a decision: A) a new conversation (recommended), B) this one. */
export function boundaryDecision(flow: Flow, after: number, nextStep: number | 'done'): Decision {
  const done = stepByNumber(flow, after)!;
  const next = typeof nextStep === 'number' ? stepByNumber(flow, nextStep) : undefined;
  const nextName = next ? next.name : 'the next step';
  return {
    id: 'session-boundary',
    question: `${done.name} complete — start ${nextName}?`,
    options: [
      { letter: 'A', choice: `Start a new conversation for ${nextName} (recommended)`, then: 'continue' },
      { letter: 'B', choice: 'Continue in this conversation', then: 'continue' },
    ],
    recommendation: { letter: 'A', reason: `${nextName} goes better in a fresh context, with only the files ${done.name} wrote to go on` },
    line: done.line,
  };
}

/** The decision waiting for an answer: a session boundary, or a flow decision after a finished step. */
export function openDecision(flow: Flow, position: Position, boundary: PendingBoundary | undefined): Decision | undefined {
  if (boundary) return boundaryDecision(flow, boundary.after, position.step);
  if ((position.status !== 'completed' && position.status !== 'skipped') || typeof position.step !== 'number') return undefined;
  const then = flow.steps[position.step - 1]?.then;
  return then?.kind === 'decision' ? flow.decisions[then.id] : undefined;
}
