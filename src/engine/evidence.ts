/**
 * What the disk says about each step of one cycle. Gathered at the edge
 * (`io/gather-evidence.ts`), read here by the pure rules.
 */
import { isPerCycle, type Flow, type Step } from '../flow/model.js';

export interface PatternEvidence {
  /** The pattern under the docs folder, `{cycle}` already filled in. */
  pattern: string;
  /** Files that match (relative to the docs folder); empty when none. */
  matches: string[];
}

export interface StepEvidence {
  step: number;
  patterns: PatternEvidence[];
  /** For a conditional step: whether its condition holds. */
  conditionMet?: boolean;
  /** A journaled skip, or a completion a person forced without artifacts. */
  waiver?: 'skipped' | 'forced';
  /**
   * An optional step with no file of its own that the run is known to have
   * passed without a journal (`inferPassed`): why, in words. It counts as a
   * skip, and the first command that writes journals it (`by: inferred`).
   */
  inferred?: string;
  /** When the step is being repeated (a decision said so): the files that existed as the round began. */
  roundBaseline?: string[];
  /** Files that match but lead out of the repository (a symlink): they do not count. */
  outside?: string[];
  /** Files that match but are empty: they prove nothing. */
  empty?: string[];
}

export interface Evidence {
  cycle: number;
  /** Indexed by step number - 1. */
  steps: StepEvidence[];
}

export function hasArtifacts(ev: StepEvidence): boolean {
  return ev.patterns.length > 0 && ev.patterns.every((p) => p.matches.length > 0);
}

/** Some, not necessarily all, of the step's artifacts exist. */
export function isTouched(ev: StepEvidence): boolean {
  return ev.patterns.some((p) => p.matches.length > 0);
}

export function missingPatterns(ev: StepEvidence): string[] {
  return ev.patterns.filter((p) => p.matches.length === 0).map((p) => p.pattern);
}

export function conditionFalse(step: Step, ev: StepEvidence): boolean {
  return step.runs.kind === 'if' && ev.conditionMet === false;
}

/** Settled: nothing left to do for this step in this cycle, on the evidence. */
export function isSettled(step: Step, ev: StepEvidence): boolean {
  return hasArtifacts(ev) || ev.waiver !== undefined || ev.inferred !== undefined || conditionFalse(step, ev);
}

/**
 * Optional steps the run passed without leaving a record (a run the seed's
 * prompt-driven autopilot made, a lost journal, a hand edit): an optional
 * step that has no file of its own, and no journaled skip, counts as skipped
 * when the run is known to be past it —
 * - a later step of the same cycle has files;
 * - the step lies before a looping flow's loop, and the run is in its second
 *   cycle or later (the first cycle's loop start has its files);
 * - `claimedAt`: a pointer the journal does not back stands past it, and
 *   every step before that pointer that is not optional is settled (the
 *   pointer is then the only record of the run, and an optional step is one
 *   the run may pass with a word).
 * Pure: returns the evidence with `inferred` set on those steps.
 */
export function inferPassed(flow: Flow, evidence: Evidence, claimedAt?: number): Evidence {
  const steps = flow.steps.map((step) => evidenceFor(evidence, step.number));
  const loopsFrom = flow.steps.find((s) => s.then.kind === 'loop')?.then;
  const claimed = claimedAt !== undefined && flow.steps.every((s) => s.number >= claimedAt || s.runs.kind === 'optional' || isSettled(s, steps[s.number - 1]!));
  let changed = false;
  const out = flow.steps.map((step, i) => {
    const ev = steps[i]!;
    if (step.runs.kind !== 'optional' || isTouched(ev) || isSettled(step, ev)) return ev;
    const later = flow.steps.find((s) => s.number > step.number && isTouched(steps[s.number - 1]!));
    let why: string | undefined;
    if (later) why = `step ${later.number} (${later.name}) has files`;
    else if (evidence.cycle > 1 && loopsFrom?.kind === 'loop' && step.number < loopsFrom.to && !isPerCycle(step)) why = `the run is in cycle ${evidence.cycle}`;
    else if (claimed && step.number < claimedAt) why = `the pointer stands at ${claimedAt > flow.steps.length ? 'done' : `step ${claimedAt}`}`;
    if (!why) return ev;
    changed = true;
    return { ...ev, inferred: why };
  });
  return changed ? { cycle: evidence.cycle, steps: out } : evidence;
}

export function evidenceFor(evidence: Evidence, step: number): StepEvidence {
  return evidence.steps[step - 1] ?? { step, patterns: [] };
}

/** Every file that matches the step's patterns. */
export function allMatches(ev: StepEvidence): string[] {
  return ev.patterns.flatMap((p) => p.matches);
}
