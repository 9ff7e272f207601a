/**
 * What the disk says about each step of one cycle. Gathered at the edge
 * (`io/gather-evidence.ts`), read here by the pure rules.
 */
import type { Step } from '../flow/model.js';

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
  return hasArtifacts(ev) || ev.waiver !== undefined || conditionFalse(step, ev);
}

export function evidenceFor(evidence: Evidence, step: number): StepEvidence {
  return evidence.steps[step - 1] ?? { step, patterns: [] };
}

/** Every file that matches the step's patterns. */
export function allMatches(ev: StepEvidence): string[] {
  return ev.patterns.flatMap((p) => p.matches);
}
