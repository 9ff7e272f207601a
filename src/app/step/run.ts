/**
 * The step pipeline's one shape (docs/architecture.md, "The step pipeline"),
 * as unified-engine lays out its file pipeline: every stage is a `Stage`,
 * which takes the run as the stages before it left it and returns it with
 * its own fields added; `runStages` runs one list of them (`STEP_STAGES`,
 * `step/stages.ts`) in order, each once, never back.
 *
 * Before `plan`, the read stages may refine the decision (`decided`: the
 * code a batch changed, the trees and hashes its entries carry). From `plan`
 * on the plan is final: frozen, and what a later stage needs is a field of it.
 */
import type { Problem } from '../../errors.js';
import type { CodeFacts } from '../../engine/batch-code.js';
import type { SkillState, StepInput, StepPlan } from '../../engine/step-plan.js';
import type { Event, Transition } from '../../engine/transitions.js';
import type { Position } from '../../formats/pointer/position.js';
import type { Written } from '../transaction/commit.js';
import type { WriteFacts } from '../transaction/final-plan.js';
import type { Loaded } from '../transaction/load-state.js';
import type { CommitGit, CommitGitOpener } from '../git/progress-commit.js';
import type { DeclaredOutputs } from '../transaction/skill-outputs.js';
import type { Decision, Tx } from '../transaction/transact.js';
import type { Repo } from '../../io/repo.js';
import type { View } from '../views/view.js';

export interface StepRequest {
  event: Event;
  /** `--step N`: the step the command is for; by default the current one when the command starts. */
  step?: number;
  /** `--take-over`: take the lease from another session (journaled). */
  takeOver?: boolean;
  /** `--commit`: the progress commit asked for, refused where git cannot take one (by default it is made where git can). */
  commit?: boolean;
}

/** What a step command knows before the lock: the step the agent was handed, and git for its progress commits. */
export interface StepPrepared {
  peeked?: Position;
  commits?: CommitGitOpener;
}

/** A skill's declared outputs, read once a command (a step's skill is asked about by several stages). */
export type OutputsOf = (repo: Repo, skill: string) => Promise<DeclaredOutputs | undefined>;

/** The code a batch changed, as the work tree shows it (`step/code.ts`). */
export interface CodeSeen {
  /** The step whose batch it is. */
  step: number;
  facts: CodeFacts;
}

/** What the attempt stage read for the plan (`step/attempt.ts`). */
export interface AttemptRead {
  /** The skill's own state file where `next` sends the agent (`skillStateWanted`). */
  skill: SkillState;
  /** A step that needs the project's tests starts, and no test command is known: the person is to be asked. */
  notice?: string;
  /** Git, opened for the progress commit the plan owes, where it can be. */
  git?: CommitGit;
  /** The work tree when the step (or batch) this command finishes began, as the journal recorded it. */
  startTree?: string;
  /** Why the skill file of the step the agent is sent to work in cannot be handed out. */
  skillProblem?: Problem;
  /** The declared outputs of that step, for the templates `next` names. */
  declared?: DeclaredOutputs;
  /** The reads the transaction's write of the plan needs (`tx.readForWrite`). */
  facts: WriteFacts;
}

/** The step plan as final: every stage's notices in, in order. */
export type FinalStepPlan = Readonly<Omit<StepPlan, 'notices'>> & { readonly notices: readonly string[] };

/** What the plan stage made (`step/plan.ts`): final, frozen. */
export interface PlannedStep {
  readonly step: FinalStepPlan;
  /** What the write stage hands the transaction: the plan to write, with the progress commit it owes. */
  readonly decision: Readonly<Decision>;
  /** The templates of the step the agent is sent to: a batch's report's first, then the step's own. */
  readonly templates: readonly { file: string; template: string }[];
}

export interface StepAnswer {
  view: View;
  exit: number;
  written: Written;
}

/** One step command as it crosses the stages: each field is set by one stage, named beside it. */
export interface StepRun {
  readonly tx: Tx<StepPrepared>;
  readonly event: Event;
  readonly request: StepRequest;
  /** A person's word on the run (`byPerson`): it neither takes nor renews a lease. */
  readonly person: boolean;
  /** gather */
  readonly loaded?: Loaded;
  readonly outputsOf?: OutputsOf;
  readonly input?: StepInput;
  /** decide; refined by code and attempt */
  readonly decided?: Transition;
  /** code */
  readonly code?: CodeSeen;
  /** attempt */
  readonly attempt?: AttemptRead;
  /** plan */
  readonly plan?: PlannedStep;
  /** write */
  readonly written?: Written;
  /** commit */
  readonly committed?: Written;
  /** answer */
  readonly answer?: StepAnswer;
}

/** A stage of the step pipeline: the run in, the run out with the stage's fields added. */
export interface Stage {
  readonly name: string;
  run(run: StepRun): StepRun | Promise<StepRun>;
}

/** Hears each stage as it starts, with the run as it enters it: a test's record of the order. */
export type StageObserver = (stage: string, run: StepRun) => void;

/** Runs the stages in the list's order, each once. */
export async function runStages(stages: readonly Stage[], start: StepRun, observe?: StageObserver): Promise<StepRun> {
  let run = start;
  for (const stage of stages) {
    observe?.(stage.name, run);
    run = await stage.run(run);
  }
  return run;
}

type Reached<K extends keyof StepRun> = StepRun & { readonly [Q in K]-?: NonNullable<StepRun[Q]> };

/** The run with the fields a stage reads, set by the stages before it: a stage run out of order is a bug, said so. */
export function reached<K extends keyof StepRun>(run: StepRun, stage: string, ...fields: K[]): Reached<K> {
  for (const field of fields)
    if (run[field] === undefined) throw new Error(`the step pipeline's ${stage} stage needs ${field}, set by a stage before it (STEP_STAGES' order)`);
  return run as Reached<K>;
}
