/**
 * What a command shows, gathered once and rendered twice: as JSON for an
 * agent, as a few lines of text for a person.
 */
import { evidenceFor, type Evidence } from '../../engine/evidence.js';
import type { AcCoverage } from '../../evidence/ac-coverage.js';
import type { Finding } from '../../evidence/types.js';
import { nextFreeName } from '../../engine/next-name.js';
import { findMatches } from '../../io/find-matches.js';
import { EVIDENCE_MATCH_LIMIT } from '../../limits.js';
import type { Drift, Source } from '../../engine/reconcile.js';
import type { Outcome } from '../../engine/transitions.js';
import { InputError } from '../../errors.js';
import { stepByNumber, withCycle, type Decision, type Flow, type Step } from '../../formats/flow/model.js';
import { forkDecision, type SideName, type SideSummary } from '../../engine/fork.js';
import type { RunLine } from './run-line.js';
import type { Repo } from '../../io/repo.js';
import { skillDisplayPath, skillFile } from '../../io/skills.js';
import type { Position } from '../../formats/pointer/position.js';
import type { LastAction } from '../../formats/pointer/parse-pointer.js';
import type { LeaseStatus } from '../transaction/lease-view.js';
import type { Loaded } from '../transaction/load-state.js';
import { DEFAULT_SESSION } from '../transaction/context.js';
import type { PendingBoundary } from '../../engine/boundary.js';
import type { PendingQuestion } from '../../engine/pending.js';

import type { BatchStatus } from '../../engine/task-batches.js';

export interface WorkOrder {
  skill: string;
  skillExists: boolean;
  /** Patterns to satisfy, as paths from the repository root (`_docs/...`). */
  doneWhen: string[];
  /** Where a pattern names a numbered file not yet written this round: the next free name to write (`_docs/01_solution/solution_draft_03.md`). */
  write: string[];
  /** The files of `doneWhen` that exist already and count for this round: where a resumed step picks up. */
  have: string[];
}

/** A batch of the task index, as `next` hands it out and `done` reports it (paths from the repository root). */
export interface BatchView {
  batch: number;
  of: number;
  tasks: { id: string; name: string; file?: string; criteria: string[] }[];
  /** The batch's report: the file `done` checks. */
  report: string;
  /** The index the batches come from. */
  index: string;
  /** Resuming: the batch's tasks its report on disk already names. */
  reported?: string[];
  /** `done`: the batch this command finished, when it moved to the next one. */
  finished?: { batch: number; tasks: string[] };
}

export interface View {
  command: string;
  repo: Repo;
  flow: Flow;
  position: Position;
  source: Source;
  drift: Drift[];
  /** Whether the drift was repaired and journaled (every command but `status`). */
  repaired: boolean;
  evidence: Evidence;
  /** The pointer's `## Last Action`, as read before this command. */
  lastAction?: LastAction;
  /** `next` that began a session (it took the lease): the short status goes above the next step (seed 001, re-entry). */
  reentry?: boolean;
  outcome?: Outcome;
  work?: WorkOrder;
  /** In a step that walks a task index: the batch handed out (`next`) or begun after one finished (`done`). */
  batch?: BatchView;
  /** `next` sending the agent to work: each output its skill declares with a template, and that template. */
  templates?: { file: string; template: string }[];
  /** Folders another run's steps wrote that this step reads: a named run's repository Document output (docs/runs.md). */
  reads?: string[];
  /** `next` sending the agent to a step found done on disk whose files fail the checks `done` gives them: what they found. */
  findings?: Finding[];
  /** The step this command acted on, when it moved the pointer. */
  acted?: Step;
  reason?: string;
  /** The option a `decide` chose, as `A) choice`. */
  answer?: string;
  /**
   * A stop (a decision, a boundary) shown again to a command that finished
   * nothing: its step was finished before (a repeated `done`), and the
   * question still waits.
   */
  again?: true;
  /** Steps the engine passed over because their condition does not hold. */
  passedOver?: { step: number; name: string; reason: string }[];
  /** `status`: who holds the lease, and any guard that cannot work here (said every time). */
  lease?: LeaseStatus;
  guards?: string[];
  /** The journal's last sequence number. */
  journalSeq?: number;
  /** Things said once at re-entry (the last session's next target not followed, a session gone stale). */
  notices?: string[];
  /** The progress commit this command made. */
  committed?: string;
  /** The checkpoint this command took (before a step the flow marks, at a boundary, at a third failure): its id. */
  checkpoint?: string;
  /** `status`: a progress commit the journal says is owed (its event's seq): the next command that writes makes it. */
  owedCommit?: number;
  /** `status`: that commit's steps (`step 1 Problem completed (event 6)`) and the files it holds (rule 11: named until made). */
  owed?: { about: string; files: string[]; holds: string };
  /** `status`: why git cannot be the third source here, when it cannot. */
  gitOff?: string;
  /** `status`: whether step commands make progress commits here, and why not. */
  commits?: { on: boolean; reason?: string };
  /** `status`: the current step's batches, when it walks a task index. */
  batches?: { batch: number; tasks: string[]; status: BatchStatus }[];
  /** `status`: how far the acceptance criteria are traced (covered by tasks, tested), when their file exists. */
  acceptance?: AcCoverage;
  /** `status`: the question waiting for a person (a decision, a boundary, a failure, a fork), with the command that answers it. */
  pending?: PendingQuestion;
  /** Every run of the repository, where it holds more than the one shown (`status`; no git asked). */
  runs?: RunLine[];
  /** A boundary waiting for its answer. */
  boundary?: PendingBoundary;
  /** A boundary a person answered A: the conversation that reached it stops there, a new one goes on. */
  stopped?: PendingBoundary;
  /** What the step before a boundary produced, for the boundary's summary. */
  summary?: BoundarySummary;
  /** A merge the journal holds whose sides disagree, waiting for a person (rule 11). */
  fork?: { reasons: string[]; sides: Record<SideName, SideSummary>; decision: Decision };
}

/** The summary at a session boundary (docs/state-and-journal.md, "Session boundaries"): read from the decompose step's task table, or why it could not be and what the agent fixes. */
export type BoundarySummary = { file: string; tasks: number; batches: number; points: number } | { file: string; problem: string; fix: string };

export function currentStep(view: Pick<View, 'flow' | 'position'>): Step | undefined {
  return typeof view.position.step === 'number' ? stepByNumber(view.flow, view.position.step) : undefined;
}

/** A step's patterns as paths from the repository root, `{cycle}` filled in: `_docs/02_tasks/cycle-2/_index.md`. */
export function doneWhenPaths(repo: Repo, step: Step, cycle: number): string[] {
  return step.doneWhen.map((p) => `${repo.docsName}/${withCycle(p, cycle)}`);
}

/**
 * Refuses (exit 2) a skill file the agent should not be handed: not a regular
 * file, or over the size limit. `evidence`: what the disk holds for the step,
 * read with the state (its files that count for this round, and the names a
 * numbered pattern has taken).
 */
export function workOrder(repo: Repo, step: Step, cycle: number, evidence: Evidence): WorkOrder {
  const skill = skillFile(repo, step.skill);
  if (skill.problem) throw new InputError(skill.problem);
  const ev = evidence.cycle === cycle ? evidenceFor(evidence, step.number) : undefined;
  // Another cycle's evidence says nothing of this one's files: read them (a `next` that begins a cycle).
  const patterns =
    ev?.patterns ??
    step.doneWhen.map((p) => ({
      pattern: withCycle(p, cycle),
      matches: findMatches(repo.docs, withCycle(p, cycle), EVIDENCE_MATCH_LIMIT, { root: repo.root, refused: () => undefined }),
    }));
  const baseline = new Set(ev?.roundBaseline ?? []);
  const counts = (file: string) => !baseline.has(file);
  const inDocs = (file: string) => `${repo.docsName}/${file}`;
  return {
    skill: skillDisplayPath(repo, skill.path),
    skillExists: skill.exists,
    doneWhen: doneWhenPaths(repo, step, cycle),
    write: patterns.flatMap((p) => {
      const name = p.matches.some(counts) ? undefined : nextFreeName(p.pattern, p.matches);
      return name ? [inDocs(name)] : [];
    }),
    have: patterns.flatMap((p) => p.matches.filter(counts).map(inDocs)),
  };
}

export function buildView(command: string, loaded: Loaded, position: Position, outcome?: Outcome, extra: Partial<View> = {}): View {
  const view: View = {
    command,
    repo: loaded.repo,
    flow: loaded.flow,
    position,
    source: loaded.reconciled.source,
    drift: loaded.reconciled.drift,
    repaired: command !== 'status',
    evidence: loaded.evidence,
    lastAction: loaded.pointer?.lastAction,
    boundary: loaded.boundary,
    // Reached by the default session, the stop was said once, by the answer: nobody is held, so nothing is shown.
    stopped: loaded.stopped?.session === DEFAULT_SESSION ? undefined : loaded.stopped,
    ...(loaded.fork?.verdict.kind === 'disagree'
      ? { fork: { reasons: loaded.fork.verdict.reasons, sides: loaded.fork.verdict.sides, decision: forkDecision(loaded.fork.verdict) } }
      : {}),
    outcome,
    ...extra,
  };
  const step = currentStep(view);
  if (outcome?.kind === 'work' && step) view.work = workOrder(loaded.repo, step, position.cycle, loaded.evidence);
  return view;
}
