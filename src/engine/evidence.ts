/**
 * What the disk says about each step of one cycle. Gathered at the edge
 * (`io/gather-evidence.ts`), read here by the pure rules.
 */
import {
  draftCopy,
  fresh,
  judgeFile,
  type CommandRun,
  type FileHashes,
  type Finding,
  type OutputDeclaration,
  type TaskFile,
  type VerifyFacts,
} from '../evidence/index.js';
import { isPerCycle, type Flow, type Step } from '../formats/flow/model.js';
import type { BatchFacts } from './task-batches.js';
import { pinnedTemplateFinding } from './pinned-template.js';

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
  /** For `done` on a step whose skill declares its outputs: what they hold (`judgeOutputs`). */
  outputs?: OutputsEvidence;
  /**
   * For a step a walk over work found on disk would complete (`walkFolder`):
   * what the checks `done` gives it found in its files, gathered at the edge
   * (empty: they pass, or its skill declares no outputs). Undefined: not judged yet.
   */
  judged?: Finding[];
  /** For the current step when it walks a task index batch by batch: its batches, and for `done` the current one's report. */
  batches?: BatchFacts;
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

/**
 * What the files of a step whose skill declares its outputs hold, gathered
 * for `done` (`io/gather-outputs.ts`): each output's files with their text,
 * the template, what the judges need beside them, and what the journal says
 * of this attempt (the files as it began, the commands it ran).
 */
export interface OutputsEvidence {
  skill: string;
  /** The SKILL.md that declares the outputs, as shown. */
  skillFile: string;
  outputs: {
    output: OutputDeclaration;
    /** The template's text, when it could be read. */
    template?: string;
    /** The task template, for a task index (`task-index`), when it could be read. */
    taskTemplate?: string;
    /** The template is not the one the run pinned (docs/state-and-journal.md, "Pinned runs"): what changed, in words. */
    templateChanged?: string;
    files: { file: string; text?: string; problem?: string; siblings?: string[]; taskFiles?: Record<string, TaskFile> }[];
  }[];
  /** `00_problem/acceptance_criteria.md`, when a judge needs it and it exists. */
  acceptance?: string;
  /** The step's evidence files now (its Done-when matches and its outputs'), each with a hash of what a reader sees of it (as the journal records them). */
  hashes: FileHashes;
  /** The same files with a hash of their exact text: how journals before recorded them. */
  exact?: FileHashes;
  /** This attempt, as the journal recorded its start: the files then (when recorded), its number, the commands it ran. */
  attempt?: { baseline?: FileHashes; number: number; runs: CommandRun[] };
  /** In a round a decision repeats: the files as the round began, with their hashes (when recorded). */
  round?: FileHashes;
  /** The project's test command a test result is held to (gathered for `done`). */
  verify?: VerifyFacts;
}

/** Every finding about a step's declared outputs, and whether its files are fresh. `acceptFailures`: a person accepted failed tests. */
export function judgeOutputs(ev: OutputsEvidence, step: Pick<Step, 'number' | 'name'>, acceptFailures = false): Finding[] {
  const findings: Finding[] = [];
  const earlier = ev.round ?? {};
  for (const { output, template, taskTemplate, templateChanged, files } of ev.outputs) {
    // A template changed since the run pinned its skills judges nothing until a person adopts it.
    if (templateChanged !== undefined) findings.push(pinnedTemplateFinding(output.file, templateChanged));
    if (files.length === 0) {
      findings.push({
        check: 'file',
        file: output.file,
        message: `no file matches \`${output.file}\``,
        write: `the file${output.template ? `, from the template ${output.template} beside ${ev.skillFile}` : ''}`,
      });
      continue;
    }
    for (const f of files) {
      if (f.problem !== undefined) {
        findings.push({ check: 'file', file: f.file, message: f.problem, write: 'a readable file within the size limit' });
        continue;
      }
      // An earlier round's draft was judged in its round; `fresh` holds it unchanged.
      if (Object.hasOwn(earlier, f.file) || f.text === undefined) continue;
      if (ev.round) findings.push(...draftCopy({ file: f.file, text: f.text }, earlierDrafts(files, earlier), template));
      findings.push(
        ...judgeFile({
          output,
          file: f.file,
          text: f.text,
          skill: ev.skill,
          template,
          acceptance: ev.acceptance,
          siblings: f.siblings,
          taskFiles: f.taskFiles,
          taskTemplate,
          runs: ev.attempt?.runs ?? [],
          verify: ev.verify,
          acceptFailures,
        }),
      );
    }
  }
  findings.push(
    ...fresh({
      files: ev.hashes,
      exact: ev.exact,
      baseline: ev.attempt?.baseline,
      attempt: ev.attempt?.number,
      round: ev.round,
      step: `step ${step.number} (${step.name})`,
    }),
  );
  return findings;
}

/** The drafts of an output that existed as the round began, with their text. */
function earlierDrafts(files: OutputsEvidence['outputs'][number]['files'], round: FileHashes): { file: string; text: string }[] {
  return files.flatMap((f) => (Object.hasOwn(round, f.file) && f.text !== undefined ? [{ file: f.file, text: f.text }] : []));
}
