/**
 * next, done, fail, skip, decide, ack, substep — for every front end: the
 * step pipeline (docs/architecture.md, "The step pipeline") run inside the
 * one transaction. Its stages, one file each under `app/step/`, share one
 * shape (`step/run.ts`) and run in the order of one list (`STEP_STAGES`,
 * `step/stages.ts`): gather, decide, code, attempt, plan, write, commit,
 * answer.
 */
import { isAimed } from '../../engine/step-plan.js';
import type { Event } from '../../engine/transitions.js';
import type { Context } from '../transaction/context.js';
import { peekPosition } from '../transaction/load-state.js';
import { gitForCommits } from '../git/progress-commit.js';
import { reached, runStages, type StageObserver, type StepAnswer, type StepPrepared, type StepRequest } from './run.js';
import { STEP_STAGES } from './stages.js';
import { inTransaction, type Opened, type TransactionSpec } from '../transaction/transact.js';
import { validateEvent } from './validate-event.js';

export type { StepRequest };
export type StepResult = StepAnswer;

/**
 * A person's word on the run (rule 6): an answer (`decide`, `ack`) or an
 * override (`done --force`). It acts on the run, not as a session driving
 * it: never refused for another session's lease, and it neither takes,
 * renews nor releases one, so the conversation waiting for the answer (or a
 * new one) goes on at once. `--take-over` is about the lease itself: with it
 * the command drives.
 */
export const byPerson = (event: Event, takeOver = false): boolean =>
  !takeOver && (event.type === 'decide' || event.type === 'ack' || (event.type === 'done' && event.force !== undefined));

/** A step command, its stages run in `STEP_STAGES`' order; `observe` hears each stage as it starts (tests record the order). */
export async function runStep(ctx: Context, request: StepRequest, observe?: StageObserver): Promise<StepResult> {
  const event = validateEvent(request.event);
  const person = byPerson(event, request.takeOver === true);
  const spec: TransactionSpec<StepPrepared> = {
    flows: 'cache',
    ...(person ? { person: true as const } : { drives: { takeOver: request.takeOver === true } }),
    prepare: async ({ repo, settings }: Opened) => ({
      // The step the agent was handed, read before the lock: only a command aimed at one step needs it.
      peeked: request.step === undefined && isAimed(event) ? peekPosition(repo) : undefined,
      // Refused before anything is written: a progress commit asked for where none can be made. By default, git where it is.
      commits: await gitForCommits(repo, request.commit === true, settings.commit),
    }),
  };
  const run = await inTransaction(ctx, spec, (tx) => runStages(STEP_STAGES, { tx, event, request, person }, observe));
  return reached(run, 'runStep', 'answer').answer;
}
