/**
 * What `autopilot report` shows, as plain data: each step of the run with its
 * status, when it started and finished, its attempts and who worked on it;
 * the decision, boundary and loop edges; the open decision; the last events.
 * Pure: the journal, the flow and the position come in, a model comes out.
 */
import { readDetail, type StampedEntry } from '../formats/journal-line.js';
import { batchReport, loopStart, type Decision, type Flow, type Then } from '../formats/flow/model.js';
import { readSubStep } from '../formats/pointer/sub-step.js';
import type { Position } from '../formats/pointer/position.js';
import { isoTime } from '../timestamp.js';
import { decideCommand, type PendingKind, type PendingQuestion } from '../engine/pending.js';

export type StepState = 'done' | 'skipped' | 'in_progress' | 'failed' | 'not_started';

export const STATE_LABEL: Record<StepState, string> = {
  done: 'done',
  skipped: 'skipped',
  in_progress: 'in progress',
  failed: 'failed',
  not_started: 'not started',
};

/** One colour per state, shared by the Mermaid classes and the SVG. */
export const STATE_COLOUR: Record<StepState, { fill: string; stroke: string; text: string }> = {
  done: { fill: '#2e7d32', stroke: '#1b5e20', text: '#ffffff' },
  skipped: { fill: '#b0bec5', stroke: '#78909c', text: '#263238' },
  in_progress: { fill: '#1565c0', stroke: '#0d47a1', text: '#ffffff' },
  failed: { fill: '#c62828', stroke: '#8e0000', text: '#ffffff' },
  not_started: { fill: '#ffffff', stroke: '#90a4ae', text: '#37474f' },
};

export interface ReportStep {
  number: number;
  name: string;
  /** `optional`, or the condition of an `if` step; empty for a step that always runs. */
  runs: string;
  state: StepState;
  current: boolean;
  started?: string;
  finished?: string;
  attempts: number;
  /** The sessions that recorded events for it, first seen first. */
  sessions: string[];
}

export type EdgeKind = 'next' | 'boundary' | 'decision' | 'repeat' | 'loop' | 'end';

export interface ReportEdge {
  from: number;
  /** A step number, or `end` for the flow's finish. */
  to: number | 'end';
  kind: EdgeKind;
  label: string;
}

export interface ReportEvent {
  /** Absent on events from an older autopilot. */
  seq?: number;
  at: string;
  session: string;
  event: string;
  where: string;
  detail: string;
}

export interface ReportModel {
  flow: { id: string; title: string };
  position: { step: number | 'done'; name: string; status: string; subStep: string; retryCount: number; cycle: number };
  steps: ReportStep[];
  edges: ReportEdge[];
  /** Whether the flow has a finish node (it does not loop forever). */
  ends: boolean;
  /**
   * What waits for a person (a decision, a session boundary, a step failed
   * three times, a fork): each option with the command that gives it, the
   * recommendation, and the exact command that answers it.
   */
  openDecision?: {
    kind: PendingKind;
    question: string;
    options: { letter: string; choice: string; command: string }[];
    /** `B: the reason`; absent for a failure. */
    recommendation?: string;
    /** A failure's last reason. */
    reason?: string;
    command: string;
  };
  lastEvents: ReportEvent[];
  generatedAt: string;
  /** How far the acceptance criteria are traced (read by src/app when their file exists): their file and one line, `2 of 3 covered, 1 of 3 tested; untested AC-02, AC-03`. */
  acceptance?: ReportAcceptance;
  /** Each step that walks a task index and has begun: its batches, their tasks and state, and each batch report (relative to the docs folder). */
  batches?: ReportBatches[];
}

export interface ReportBatches {
  step: number;
  name: string;
  rows: { batch: number; tasks: string[]; state: StepState; report: string }[];
}

export interface ReportAcceptance {
  file: string;
  summary: string;
}

export interface ReportInput {
  flow: Flow;
  position: Position;
  /** The journal, oldest first (every event on record). */
  entries: StampedEntry[];
  /** The question waiting for a person (`engine/pending.ts`); a bare decision is read as one. */
  pending?: PendingQuestion;
  openDecision?: Decision;
  now: Date;
  /** How many of the last events to show. */
  lastCount?: number;
  acceptance?: ReportAcceptance;
}

const STEP_EVENTS = new Set(['step_started', 'substep', 'step_completed', 'step_skipped', 'step_failed', 'failure_acknowledged']);

function stateOf(step: number, position: Position, lastEnd: StampedEntry | undefined): StepState {
  const current = position.step === 'done' ? Infinity : position.step;
  if (step < current) return lastEnd?.event === 'step_skipped' ? 'skipped' : 'done';
  if (step > current) return 'not_started';
  switch (position.status) {
    case 'completed':
      return 'done';
    case 'skipped':
      return 'skipped';
    case 'in_progress':
      return 'in_progress';
    case 'failed':
      return 'failed';
    default:
      return 'not_started';
  }
}

function runsText(flow: Flow, n: number): string {
  const runs = flow.steps[n - 1]!.runs;
  return runs.kind === 'optional' ? 'optional' : runs.kind === 'if' ? `if ${runs.pattern} exists` : '';
}

function edgesOf(flow: Flow): ReportEdge[] {
  const edges: ReportEdge[] = [];
  const last = flow.steps.length;
  const onward = (n: number): number | 'end' => (n < last ? n + 1 : 'end');
  for (const step of flow.steps) {
    const then: Then = step.then;
    const n = step.number;
    if (then.kind === 'next') edges.push({ from: n, to: onward(n), kind: n < last ? 'next' : 'end', label: '' });
    else if (then.kind === 'end') edges.push({ from: n, to: 'end', kind: 'end', label: '' });
    else if (then.kind === 'boundary') edges.push({ from: n, to: onward(n), kind: 'boundary', label: 'session boundary' });
    else if (then.kind === 'loop') edges.push({ from: n, to: then.to, kind: 'loop', label: 'next cycle' });
    else {
      const decision = flow.decisions[then.id];
      for (const option of decision?.options ?? []) {
        const label = `${option.letter}) ${option.choice}`;
        edges.push(option.then === 'repeat' ? { from: n, to: n, kind: 'repeat', label } : { from: n, to: onward(n), kind: 'decision', label });
      }
      if (!decision) edges.push({ from: n, to: onward(n), kind: 'decision', label: then.id });
    }
  }
  return edges;
}

function detailOf(e: StampedEntry): string {
  const parts: string[] = [];
  for (const key of ['reason', 'sub_step', 'option', 'choice', 'message', 'by'] as const) {
    const value = readDetail(e, key);
    if (typeof value !== 'string' || value === '' || (key === 'by' && parts.length > 0)) continue;
    parts.push(key === 'option' ? `${value})` : value);
  }
  if (readDetail(e, 'forced') === true) parts.unshift('forced');
  return parts.join(' ').slice(0, 200);
}

/** Who wrote an event: its session, and `(person)` when a person's command did (`actor: person`). */
const who = (e: StampedEntry) => (e.actor === 'person' ? `${e.session} (person)` : e.session);

export function buildReport(input: ReportInput): ReportModel {
  const { flow, position, entries } = input;
  const loop = loopStart(flow);
  // Steps inside a loop count the current cycle's events; steps before it, every cycle's.
  const relevant = (e: StampedEntry, n: number) => e.flow === flow.id && e.step === n && (loop === undefined || n < loop || e.cycle === position.cycle);
  const steps = flow.steps.map((s): ReportStep => {
    const mine = entries.filter((e) => STEP_EVENTS.has(e.event) && relevant(e, s.number));
    const started = mine.find((e) => e.event === 'step_started');
    const ends = mine.filter((e) => e.event === 'step_completed' || e.event === 'step_skipped');
    const lastEnd = ends.at(-1);
    const failures = mine.filter((e) => e.event === 'step_failed').length;
    const lastFailure = mine.findLastIndex((e) => e.event === 'step_failed');
    const triedSince = mine.slice(lastFailure + 1).some((e) => e.event === 'step_started' || e.event === 'step_completed');
    const sessions = [...new Set(mine.filter((e) => !(e.event === 'step_skipped' && e.by === 'condition')).map(who))];
    const state = stateOf(s.number, position, lastEnd);
    return {
      number: s.number,
      name: s.name,
      runs: runsText(flow, s.number),
      state,
      current: position.step === s.number,
      started: started?.at,
      finished: lastEnd && (state === 'done' || state === 'skipped') ? lastEnd.at : undefined,
      attempts: failures + (triedSince ? 1 : 0),
      sessions,
    };
  });
  const decision: PendingQuestion | undefined =
    input.pending ??
    (input.openDecision
      ? {
          kind: 'decision',
          step: position.step,
          name: position.name,
          question: input.openDecision.question,
          options: input.openDecision.options.map((o) => ({ letter: o.letter, choice: o.choice, command: decideCommand(o.letter) })),
          recommendation: input.openDecision.recommendation,
          command: decideCommand(input.openDecision.recommendation.letter),
        }
      : undefined);
  const lastEvents = entries.slice(-(input.lastCount ?? 10)).map((e) => ({
    ...(typeof e.seq === 'number' ? { seq: e.seq } : {}),
    at: e.at,
    session: who(e),
    event: e.event,
    where: e.step === 'done' ? `${e.flow}: done` : `step ${e.step} ${e.name}`,
    detail: detailOf(e),
  }));
  return {
    flow: { id: flow.id, title: flow.title },
    position: {
      step: position.step,
      name: position.name,
      status: position.status,
      subStep: position.subStep,
      retryCount: position.retryCount,
      cycle: position.cycle,
    },
    steps,
    edges: edgesOf(flow),
    ends: flow.steps.some((s) => s.then.kind === 'end') || flow.steps.at(-1)?.then.kind === 'next',
    openDecision: decision && {
      kind: decision.kind,
      question: decision.question,
      options: decision.options.map((o) => ({ letter: o.letter, choice: o.choice, command: o.command })),
      recommendation: decision.recommendation && `${decision.recommendation.letter}: ${decision.recommendation.reason}`,
      reason: decision.reason,
      command: decision.command,
    },
    lastEvents,
    generatedAt: isoTime(input.now),
    acceptance: input.acceptance,
    ...batchesOf(flow, position, entries, steps),
  };
}

/**
 * The batches of each step that walks a task index, from the journal: the
 * last `batch_started` of the step (in its latest cycle) pins them, each
 * `batch_completed` since marks one done, and the pointer's sub-step names
 * the one in progress (or failed).
 */
function batchesOf(flow: Flow, position: Position, entries: readonly StampedEntry[], steps: ReportStep[]): { batches?: ReportBatches[] } {
  const out: ReportBatches[] = [];
  for (const step of flow.steps) {
    if (!step.batches) continue;
    const started = entries.findLast((e) => e.flow === flow.id && e.step === step.number && e.event === 'batch_started');
    const plan = started ? readDetail(started, 'batches') : undefined;
    if (!started || !Array.isArray(plan)) continue;
    const cycle = started.cycle;
    const done = new Set(
      entries
        .filter((e) => e.flow === flow.id && e.step === step.number && e.cycle === cycle && e.event === 'batch_completed')
        .map((e) => readDetail(e, 'batch')),
    );
    const here = position.step === step.number && position.cycle === cycle ? readSubStep(position.subStep) : undefined;
    const finished = steps[step.number - 1]?.state === 'done';
    const rows = (plan as unknown[]).map((tasks, i) => {
      const batch = i + 1;
      let state: StepState = 'not_started';
      if (finished || done.has(batch)) state = 'done';
      else if (here?.kind === 'batch' && here.batch === batch)
        state = position.status === 'failed' ? 'failed' : position.status === 'in_progress' ? 'in_progress' : 'not_started';
      return { batch, tasks: Array.isArray(tasks) ? tasks.map(String) : [], state, report: batchReport(step.batches!, batch, cycle) };
    });
    out.push({ step: step.number, name: step.name, rows });
  }
  return out.length > 0 ? { batches: out } : {};
}
