/**
 * next, done, fail, skip, decide, ack, substep — for every front end. The
 * step pipeline, in run order, one file a stage under `app/step/`
 * (docs/architecture.md, "The step pipeline"):
 *
 * 1. gather (`step/gather.ts`): every read the decision needs;
 * 2. decide (`engine/step-plan.ts` `decideStep`, pure); a batch it would
 *    record done first has the work tree looked at (`step/code-change.ts`)
 *    and is decided again with what changed;
 * 3. the attempt (`step/attempt.ts`): the reads only the decision can ask
 *    for (the work tree as a step starts, the files' hashes, the skill's state);
 * 4. plan (`engine/step-plan.ts` `planStep`, pure);
 * 5. write (`step/write.ts`): the one write, which returns what it touched;
 * 6. answer (`step/answer.ts`).
 */
import { decideStep, isAimed, planStep } from '../engine/step-plan.js';
import type { Event } from '../engine/transitions.js';
import { stepByNumber } from '../flow/model.js';
import type { Written } from './commit.js';
import type { Context } from './context.js';
import { peekPosition } from './load-state.js';
import { gitForCommits, worthCommitting } from './progress-commit.js';
import { outputsForStep } from './skill-outputs.js';
import { gatherAttempt } from './step/attempt.js';
import { batchCode, withCode } from './step/code-change.js';
import { codeNotice } from '../engine/batch-code.js';
import { stepAnswer, type StepAnswer } from './step/answer.js';
import { batchTemplatesOf, gatherStep, outputsReader, templatesOf } from './step/gather.js';
import { judgedTexts } from './step/judged.js';
import { stepWrite } from './step/write.js';
import { transact, type Opened } from './transaction.js';
import { validateEvent } from './validate-event.js';

export interface StepRequest {
  event: Event;
  /** `--step N`: the step the command is for; by default the current one when the command starts. */
  step?: number;
  /** `--take-over`: take the lease from another session (journaled). */
  takeOver?: boolean;
  /** `--commit`: the progress commit asked for, refused where git cannot take one (by default it is made where git can). */
  commit?: boolean;
}

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

export async function runStep(ctx: Context, request: StepRequest): Promise<StepResult> {
  const event = validateEvent(request.event);
  const person = byPerson(event, request.takeOver === true);
  const spec = {
    flows: 'cache' as const,
    ...(person ? { person: true as const } : { drives: { takeOver: request.takeOver === true } }),
    prepare: async ({ repo, settings }: Opened) => ({
      // The step the agent was handed, read before the lock: only a command aimed at one step needs it.
      peeked: request.step === undefined && isAimed(event) ? peekPosition(repo) : undefined,
      // Refused before anything is written: a progress commit asked for where none can be made. By default, git where it is.
      commits: await gitForCommits(repo, request.commit === true, settings.commit),
    }),
  };
  const { result } = await transact(ctx, spec, async (tx) => {
    const loaded = await tx.state();
    // A skill changed since the run pinned it is judged by its pinned declaration.
    const outputsOf = outputsReader(loaded.skills);
    const { commits, peeked } = tx.prepared;
    const asker = {
      ...(request.step !== undefined ? { step: request.step } : {}),
      ...(peeked ? { peeked } : {}),
      ...(tx.lease ? { lease: tx.lease } : {}),
      ctx: tx.ctx,
      staleMs: tx.settings.staleMs,
      verify: tx.settings.verify,
      followThrough: tx.settings.followThrough,
      person,
    };
    const input = await gatherStep(loaded, event, asker, outputsOf);
    let decided = decideStep(input);
    // A batch the decision would record done: what the work tree shows changed since it began, then decided again with it.
    const code = await batchCode(loaded, input.state.evidence, decided, commits, tx.settings.commit);
    if (code) {
      input.state.evidence = withCode(input.state.evidence, code);
      decided = decideStep(input);
    }
    const attempt = await gatherAttempt(loaded, event, decided, commits, outputsOf, tx.settings);
    const plan = planStep(input, attempt.decided, attempt.skill);
    if (attempt.notice) plan.notices.push(attempt.notice);
    const batchDone = plan.transition.entries.find((e) => e.event === 'batch_completed');
    const said = batchDone?.event === 'batch_completed' ? codeNotice(code?.facts, batchDone.batch) : undefined;
    if (said) plan.notices.push(said);
    const { position } = plan.transition;
    const worked = plan.transition.outcome.kind === 'work' && typeof position.step === 'number' ? stepByNumber(loaded.flow, position.step) : undefined;
    const declared = worked ? await outputsOf(loaded.repo, worked.skill) : undefined;
    // A batch handed out: its report's template first, then the step's own.
    const templates = worked
      ? [...batchTemplatesOf(loaded.repo, declared, worked, position), ...templatesOf(loaded.repo, outputsForStep(declared, worked), position.cycle)]
      : [];
    // What `done`'s judges read: its commit holds those bytes, not the files as they are when it is made.
    const judged = event.type === 'done' ? judgedTexts(loaded.repo, input.state.evidence) : [];
    // Git is opened for the commit only where the plan is worth one (a step resumed starts none).
    const opened = commits && worthCommitting(plan.transition.entries, plan.entries) ? await commits.open() : undefined;
    const { plan: write, git } = stepWrite(loaded, plan, opened, tx.lock, ctx.now(), judged);
    return {
      ...(git ? { git, strict: git.strict, blocked: git.blocked } : {}),
      judged,
      plan: write,
      answer: (written: Written) =>
        stepAnswer(event, loaded, plan, { templates, evidence: input.state.evidence, ...(tx.lease ? { lease: tx.lease } : {}) }, written),
    };
  });
  return result;
}
