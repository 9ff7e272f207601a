/**
 * Rule 1 and 2 of the contract: the pointer is cross-checked against the
 * evidence on disk, and where they disagree the evidence decides. Pure.
 */
import { checkpointBefore, loopStart, stepByNumber, type Flow, type Step } from '../formats/flow/model.js';
import type { Finding } from '../evidence/types.js';
import { DONE_NAME, type Position } from '../formats/pointer/position.js';
import {
  allMatches,
  conditionFalse,
  evidenceFor,
  hasArtifacts,
  inferPassed,
  isSettled,
  isTouched,
  missingPatterns,
  type Evidence,
  type StepEvidence,
} from './evidence.js';
import { RECONCILE_MAX_HOPS } from '../limits.js';

export type Source = 'state' | 'folder' | 'git';

export interface Drift {
  kind:
    | 'missing-evidence'
    | 'ahead-on-disk'
    | 'finished-step'
    | 'name'
    | 'cycle'
    | 'rebuilt'
    | 'behind-journal'
    | 'journal-behind'
    /** The pointer names an event and the journal holds none (emptied or deleted). */
    | 'journal-gone'
    | 'hand-edit'
    | 'from-git'
    /** The pointer does not parse: the journal's last position stands in (rule 2), before git. */
    | 'from-journal'
    | 'merge-resolved'
    /** The journal holds a merge not yet settled: its fork decides where the work stands (`engine/fork.ts`). */
    | 'journal-fork'
    | 'inferred-skip'
    | 'read-as'
    /** A hand edit of the pointer past a gate a person owns, held until `autopilot adopt` (`engine/gates.ts`); or one just dropped. */
    | 'held-edit'
    /** The pinned acceptance criteria edited (one dropped or rewritten), held until `autopilot adopt` (`engine/criteria.ts`). */
    | 'held-criteria';
  step: number | 'done';
  message: string;
}

export interface Reconciled {
  position: Position;
  drift: Drift[];
  source: Source;
  /** Work the folder shows done that the journal never heard of: how far the walk over it went, and why it stopped (`walkFolder`). */
  walk?: Walk;
}

/** Why a walk over work found on disk stopped where it did. */
export type WalkStop =
  /** The step's Then is a decision: the walk completes it and the question waits for a person. */
  | { kind: 'decision'; step: number }
  /** The step's Then is a session boundary: the walk completes it and stops at the boundary, before the next step. */
  | { kind: 'boundary'; after: number }
  /** The flow takes a checkpoint before this step: the walk stops before it, so the checkpoint is taken as it starts. */
  | { kind: 'checkpoint'; step: number }
  /** The step's files do not pass the checks `done` gives them: the walk stops there, and the agent does the step. */
  | { kind: 'findings'; step: number; findings: Finding[] }
  /** The step is not settled on disk (some or none of its files): the work stands there. */
  | { kind: 'unsettled'; step: number }
  /** A step a decision repeats whose round has no new file: the round's work is still to do. */
  | { kind: 'round'; step: number }
  /** Every step is settled: the flow is done, or the next cycle begins. */
  | { kind: 'end' };

export interface Walk {
  /** The steps completed by folder, in order, each in its cycle: journaled `step_completed` `by: folder`. */
  found: { step: number; cycle: number }[];
  stop: WalkStop;
}

export interface ReconcileOptions {
  /**
   * The pointer is not what the journal last recorded (hand-written, in the
   * seed's format, edited, or its journal lost): it is the only record of
   * the run, so the optional steps it stands past count as passed
   * (`inferPassed`).
   */
  claimed?: boolean;
  /** A session boundary reached at the pointer waits for its answer: the folder never walks past it (`walkFolder`). */
  waiting?: boolean;
}

/** The first step that is not settled on disk, or undefined when every step is. */
export function firstUnsettled(flow: Flow, evidence: Evidence): Step | undefined {
  return flow.steps.find((step) => !isSettled(step, evidenceFor(evidence, step.number)));
}

function anyTouchedAfter(flow: Flow, evidence: Evidence, after: number): boolean {
  return flow.steps.some((s) => s.number > after && isTouched(evidenceFor(evidence, s.number)));
}

export function atStep(flow: Flow, step: Step, cycle: number, status: Position['status'] = 'not_started'): Position {
  return { flow: flow.id, step: step.number, name: step.name, status, subStep: '0', retryCount: 0, cycle };
}

/** Where the pointer goes once `step` has finished, before any stop (boundary, decision) is applied. */
export function successor(flow: Flow, step: Step, cycle: number): Position {
  const then = step.then;
  if (then.kind === 'loop') return atStep(flow, stepByNumber(flow, then.to)!, cycle + 1);
  const next = then.kind === 'end' ? undefined : stepByNumber(flow, step.number + 1);
  if (next) return atStep(flow, next, cycle);
  return { flow: flow.id, step: 'done', name: DONE_NAME, status: 'completed', subStep: '0', retryCount: 0, cycle };
}

/**
 * Issue 23, point 7: the folder never walks past a person. Work found on disk
 * that the journal never heard of (no pointer and no journal, or a pointer
 * behind the folder) is completed step by step from `from` only as far as
 * `done` would have taken it without a person:
 * - a step completed by folder gets the checks `done` gives it: its skill's
 *   declared outputs judged (`ev.judged`, gathered at the edge; undefined
 *   before they are gathered: the first pass only finds which steps to judge),
 *   and a repeated round needs a new file. A step whose files fail stops the
 *   walk there, not started, with the findings;
 * - a step whose Then is a decision is completed, and the walk stops on it:
 *   the question waits for a person;
 * - a step whose Then is a session boundary is completed, and the walk stops
 *   at the boundary, before the next step;
 * - a step the flow takes a checkpoint before is not entered: the walk stops
 *   before it, and the checkpoint is taken as `next` starts it.
 * `fromDone`: the `from` step is already recorded completed or skipped (a
 * pointer waiting at its decision): it is not completed again. Pure.
 */
export function walkFolder(flow: Flow, from: Step, evidence: Evidence, fromDone = false): { position: Position; walk: Walk } {
  const cycle = evidence.cycle;
  const found: Walk['found'] = [];
  const stopAt = (position: Position, stop: WalkStop) => ({ position, walk: { found, stop } });
  for (let step: Step | undefined = from; step;) {
    const ev = evidenceFor(evidence, step.number);
    const recorded = fromDone && step.number === from.number;
    if (!recorded && !isSettled(step, ev))
      return stopAt(atStep(flow, step, cycle, isTouched(ev) ? 'in_progress' : 'not_started'), { kind: 'unsettled', step: step.number });
    // Settled by its own files, not by a skip, a waiver or a false condition: the walk completes it, as `done` would.
    const byFiles = !recorded && hasArtifacts(ev) && ev.waiver === undefined && ev.inferred === undefined && !conditionFalse(step, ev);
    if (byFiles) {
      if (checkpointBefore(flow, step)) return stopAt(atStep(flow, step, cycle), { kind: 'checkpoint', step: step.number });
      if (staleRound(ev)) return stopAt(atStep(flow, step, cycle), { kind: 'round', step: step.number });
      if (ev.judged && ev.judged.length > 0) return stopAt(atStep(flow, step, cycle), { kind: 'findings', step: step.number, findings: ev.judged });
      found.push({ step: step.number, cycle });
    }
    const then = step.then;
    if (then.kind === 'decision') {
      const status = recorded ? 'completed' : byFiles || hasArtifacts(ev) ? 'completed' : 'skipped';
      return stopAt(atStep(flow, step, cycle, status), { kind: 'decision', step: step.number });
    }
    const next = successor(flow, step, cycle);
    if (then.kind === 'boundary') return stopAt(next, { kind: 'boundary', after: step.number });
    if (next.step === 'done' || next.cycle !== cycle) return stopAt(next, { kind: 'end' });
    step = stepByNumber(flow, next.step);
  }
  return stopAt(successor(flow, flow.steps[flow.steps.length - 1]!, cycle), { kind: 'end' });
}

/** A step a decision repeats, whose every file existed as the round began: `done` refuses it (no new artifact). */
function staleRound(ev: StepEvidence): boolean {
  return ev.roundBaseline !== undefined && allMatches(ev).every((file) => ev.roundBaseline!.includes(file));
}

/** Why a walk stopped, in words. */
export function walkStopText(flow: Flow, stop: WalkStop): string {
  const name = (n: number) => `step ${n} (${stepByNumber(flow, n)!.name})`;
  switch (stop.kind) {
    case 'decision':
      return `${name(stop.step)} is followed by a decision, which waits for a person`;
    case 'boundary':
      return `${name(stop.after)} ends at a session boundary`;
    case 'checkpoint':
      return `${name(stop.step)} starts with a checkpoint`;
    case 'findings':
      return `the files of ${name(stop.step)} do not pass its checks (${stop.findings.length} problem${stop.findings.length === 1 ? '' : 's'})`;
    case 'unsettled':
      return `${name(stop.step)} is not done on disk`;
    case 'round':
      return `${name(stop.step)} is being repeated and this round has no new file`;
    case 'end':
      return 'every step is settled';
  }
}

/** Where the disk alone says the work stands. */
export function scanPosition(flow: Flow, evidence: Evidence): Position {
  const first = firstUnsettled(flow, evidence);
  if (!first) return successor(flow, flow.steps[flow.steps.length - 1]!, evidence.cycle);
  const previous = stepByNumber(flow, first.number - 1);
  // A finished step followed by a decision, and nothing after it begun: the question is still open.
  if (previous?.then.kind === 'decision' && !anyTouchedAfter(flow, evidence, previous.number)) {
    const status = hasArtifacts(evidenceFor(evidence, previous.number)) ? 'completed' : 'skipped';
    return atStep(flow, previous, evidence.cycle, status);
  }
  return atStep(flow, first, evidence.cycle, isTouched(evidenceFor(evidence, first.number)) ? 'in_progress' : 'not_started');
}

function describeMissing(step: Step, evidence: Evidence): string {
  const missing = missingPatterns(evidenceFor(evidence, step.number));
  return missing.length > 0 ? `missing ${missing.map((m) => `\`${m}\``).join(', ')}` : 'no artifacts';
}

/** Drift for each optional step passed by inference before `position`: said, and journaled as a skip by the first command that writes. */
function inferredDrift(flow: Flow, evidence: Evidence, position: Position): Drift[] {
  const before = position.step === 'done' ? flow.steps.length + 1 : position.step;
  return flow.steps
    .filter((s) => s.number < before && evidenceFor(evidence, s.number).inferred !== undefined)
    .map((s) => ({
      kind: 'inferred-skip' as const,
      step: s.number,
      message: `step ${s.number} (${s.name}) is optional and has no files, but ${evidenceFor(evidence, s.number).inferred}: the run passed it (an inferred skip)`,
    }));
}

/**
 * Rule 1: the pointer judged by the evidence. Optional steps the run passed
 * without a record count as skipped first (`inferPassed`); the answer says so
 * (`inferred-skip`) and carries the evidence as judged.
 */
export function reconcile(
  flow: Flow,
  pointer: Position | null,
  found: Evidence,
  cycleDrift?: Drift,
  options: ReconcileOptions = {},
): Reconciled & { evidence: Evidence } {
  const claimedAt = options.claimed && pointer ? (pointer.step === 'done' ? flow.steps.length + 1 : pointer.step) : undefined;
  let evidence = inferPassed(flow, found, claimedAt);
  // A pointer in the seed's format that says an optional step was skipped: that is a skip.
  if (pointer && typeof pointer.step === 'number' && pointer.status === 'skipped') {
    const step = stepByNumber(flow, pointer.step)!;
    const ev = evidenceFor(evidence, step.number);
    if (step.runs.kind === 'optional' && !isSettled(step, ev)) {
      const steps = evidence.steps.map((e, i) => (i === step.number - 1 ? { ...e, inferred: 'the pointer says it was skipped' } : e));
      evidence = { cycle: evidence.cycle, steps };
    }
  }
  const judged = judge(flow, pointer, evidence, cycleDrift, options.waiting === true);
  return { ...judged, drift: [...inferredDrift(flow, evidence, judged.position), ...judged.drift], evidence };
}

function judge(flow: Flow, pointer: Position | null, evidence: Evidence, cycleDrift: Drift | undefined, waiting: boolean): Reconciled {
  const drift: Drift[] = cycleDrift ? [cycleDrift] : [];
  if (!pointer) {
    const walked = walkFolder(flow, flow.steps[0]!, evidence);
    return { position: walked.position, drift, source: 'folder', walk: walked.walk };
  }

  const fromFolder = (position: Position, d: Drift): Reconciled => ({ position, drift: [...drift, d], source: 'folder' });
  const first = firstUnsettled(flow, evidence);

  if (pointer.step === 'done') {
    if (!first && loopStart(flow) === undefined) return { position: pointer, drift, source: 'state' };
    const position = scanPosition(flow, evidence);
    return fromFolder(position, {
      kind: 'missing-evidence',
      step: 'done',
      message: first
        ? `the pointer says the flow is done, but step ${first.number} (${first.name}) has ${describeMissing(first, evidence)}`
        : `the pointer says done, but ${flow.id} loops: it goes on at step ${position.step}`,
    });
  }

  const k = pointer.step;
  const current = stepByNumber(flow, k)!;
  const cycle = evidence.cycle;
  const kept = { ...pointer, cycle };

  // A step before the pointer has no evidence: the pointer skipped it. Go back.
  if (first && first.number < k) {
    const touched = isTouched(evidenceFor(evidence, first.number));
    return fromFolder(atStep(flow, first, cycle, touched ? 'in_progress' : 'not_started'), {
      kind: 'missing-evidence',
      step: first.number,
      message: `the pointer is at step ${k} (${current.name}), but step ${first.number} (${first.name}) has ${describeMissing(first, evidence)}; back to step ${first.number}`,
    });
  }

  const currentSettled = isSettled(current, evidenceFor(evidence, k));
  if (currentSettled && !waiting && anyTouchedAfter(flow, evidence, k)) return walkedAhead(flow, pointer, k, current, evidence, drift);
  if (pointer.status === 'completed' || pointer.status === 'skipped') {
    const moved = finishedStep(flow, pointer, k, current, currentSettled, evidence, drift);
    if (moved) return moved;
  }

  if (pointer.name !== current.name) {
    drift.push({ kind: 'name', step: k, message: `step ${k} of ${flow.id} is named "${current.name}", not "${pointer.name}"` });
    return { position: { ...kept, name: current.name }, drift, source: 'state' };
  }
  return { position: kept, drift, source: 'state' };
}

/**
 * The pointer's step is settled and later steps already have artifacts: work
 * went on without the pointer. The walk over it stops before anything a
 * person must see (`walkFolder`).
 */
function walkedAhead(flow: Flow, pointer: Position, k: number, current: Step, evidence: Evidence, drift: Drift[]): Reconciled {
  const kept = { ...pointer, cycle: evidence.cycle };
  const recorded = pointer.status === 'completed' || pointer.status === 'skipped';
  const { position, walk } = walkFolder(flow, current, evidence, recorded);
  // Nothing completed and the walk stands where the pointer does: the pointer stands (the walk says why, e.g. the step's findings).
  if (walk.found.length === 0 && position.step === k && (recorded || walk.stop.kind !== 'decision')) {
    const stays = pointer.name === current.name ? kept : { ...kept, name: current.name };
    return { position: stays, drift, source: 'state', walk };
  }
  const reached = position.step === 'done' ? 'done' : `step ${position.step} (${position.name})`;
  const completed = walk.found.length > 0 ? `; completed by folder: step${walk.found.length === 1 ? '' : 's'} ${walk.found.map((f) => f.step).join(', ')}` : '';
  return {
    position,
    drift: [
      ...drift,
      {
        kind: 'ahead-on-disk',
        step: position.step,
        message: `the pointer is at step ${k} (${current.name}), but the folder shows later work${completed}; the walk stops at ${reached}: ${walkStopText(flow, walk.stop)}`,
      },
    ],
    source: 'folder',
    walk,
  };
}

/** A step the pointer says finished: back to it when its evidence is missing; on to the next step unless a decision keeps it. */
function finishedStep(flow: Flow, pointer: Position, k: number, current: Step, settled: boolean, evidence: Evidence, drift: Drift[]): Reconciled | undefined {
  const cycle = evidence.cycle;
  const fromFolder = (position: Position, d: Drift): Reconciled => ({ position, drift: [...drift, d], source: 'folder' });
  if (!settled) {
    const touched = isTouched(evidenceFor(evidence, k));
    return fromFolder(atStep(flow, current, cycle, touched ? 'in_progress' : 'not_started'), {
      kind: 'missing-evidence',
      step: k,
      message: `the pointer says step ${k} (${current.name}) is ${pointer.status}, but it has ${describeMissing(current, evidence)}`,
    });
  }
  // Only a decision keeps a finished step under the pointer; otherwise the pointer belongs on the next step.
  if (current.then.kind !== 'decision') {
    const next = successor(flow, current, cycle);
    return {
      position: next,
      drift: [
        ...drift,
        {
          kind: 'finished-step',
          step: next.step,
          message: `step ${k} (${current.name}) is ${pointer.status}; the pointer moves on to ${next.step === 'done' ? 'done' : `step ${next.step} (${next.name})`}`,
        },
      ],
      source: 'state',
    };
  }
  return undefined;
}

/**
 * Which cycle of a looping flow the disk and pointer are in. `diskCycle` is
 * the highest cycle whose loop-start step has its artifacts (0 when none).
 * The pointer may be in that cycle, or at the start of the next one.
 */
export function chooseCycle(flow: Flow, pointer: Position | null, diskCycle: number): { cycle: number; drift?: Drift } {
  const loops = loopStart(flow) !== undefined;
  const fallback = loops ? Math.max(diskCycle, 1) : 1;
  if (!pointer) return { cycle: fallback };
  const valid = loops ? pointer.cycle === fallback || pointer.cycle === diskCycle + 1 : pointer.cycle === 1;
  if (valid) return { cycle: pointer.cycle };
  return {
    cycle: fallback,
    drift: {
      kind: 'cycle',
      step: pointer.step,
      message: `the pointer says cycle ${pointer.cycle}, but the folder shows cycle ${fallback}`,
    },
  };
}

/**
 * Rules 1 and 2 end to end: choose the cycle, judge the pointer by that
 * cycle's evidence, and when the folder shows a finished cycle, judge the
 * new cycle by its own evidence — never by the last one's. `evidenceOf` is
 * the shell's reader (or a test's table).
 */
export function locate(
  flow: Flow,
  pointer: Position | null,
  diskCycle: number,
  evidenceOf: (cycle: number) => Evidence,
  options: ReconcileOptions = {},
): Reconciled & { evidence: Evidence } {
  const { cycle, drift } = chooseCycle(flow, pointer, diskCycle);
  let result = reconcile(flow, pointer, evidenceOf(cycle), drift, options);
  // Cycles only grow and a folder holds finitely many, so this ends; the bound guards a broken reader.
  for (let hops = 0; result.position.cycle !== result.evidence.cycle; hops++) {
    if (hops > RECONCILE_MAX_HOPS) throw new Error(`cycle ${result.position.cycle} never settles`);
    const again = reconcile(flow, result.position, evidenceOf(result.position.cycle));
    // The steps passed in the cycle that was left were said there; what counts now is the new cycle.
    const kept = result.drift.filter((d) => d.kind !== 'inferred-skip');
    // A walk that went on into the new cycle: its steps found in both, its stop the new cycle's.
    const found = [...(result.walk?.found ?? []), ...(again.walk?.found ?? [])];
    const stop = again.walk?.stop ?? result.walk?.stop;
    const walk = stop && (found.length > 0 || again.walk) ? { walk: { found, stop } } : {};
    result = { position: again.position, drift: [...kept, ...again.drift], source: result.source, evidence: again.evidence, ...walk };
  }
  return result;
}

/**
 * A pointer whose step name and number disagree, where the name is a step of
 * the flow (a seed-era existing-code pointer counts 13 steps, this flow 14):
 * read by the name, the nearest step of that name to the number, reported.
 * Undefined when they agree or the name is no step of the flow (the number
 * stands, and the name is repaired). Pure.
 */
export function resolveByName(flow: Flow, pointer: Position): { position: Position; drift: Drift } | undefined {
  if (typeof pointer.step !== 'number') return undefined;
  const current = stepByNumber(flow, pointer.step);
  const wanted = pointer.name.trim().toLowerCase();
  if (!current || current.name.toLowerCase() === wanted) return undefined;
  const named = flow.steps.filter((s) => s.name.toLowerCase() === wanted);
  if (named.length === 0) return undefined;
  const at = pointer.step;
  const step = named.reduce((best, s) => (Math.abs(s.number - at) < Math.abs(best.number - at) ? s : best));
  return {
    position: { ...pointer, step: step.number, name: step.name },
    drift: {
      kind: 'read-as',
      step: step.number,
      message: `the pointer says step ${at} "${pointer.name}", but step ${at} of ${flow.id} is ${current.name}: read by the name as step ${step.number} (${step.name}) — a pointer from an older numbering`,
    },
  };
}
