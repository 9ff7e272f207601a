/**
 * Stage `plan` of the step pipeline: everything the command writes and says,
 * from what the stages before it read, without reading or writing anything
 * (`engine/step-plan.ts` `planStep`, then the write it makes). The notices of
 * every stage in order (the planner's, the attempt's, the code a batch
 * changed, a lock taken over, a pointer kept); the files `done`'s judges
 * read, which its commit holds as judged (`step/judged.ts`); the progress
 * commit the plan owes, as the last journal entry; a pointer that did not
 * parse kept byte for byte before it is replaced; the templates of the step
 * the agent is sent to. A skill file the agent must not be handed refuses
 * the work order here, before anything is written. The plan is final: it is
 * frozen, and no stage after changes it.
 */
import { codeNotice } from '../../engine/batch-code.js';
import { planStep, type StepPlan } from '../../engine/step-plan.js';
import { InputError } from '../../errors.js';
import { stepByNumber } from '../../formats/flow/model.js';
import { holderText, type Lock } from '../../io/lock.js';
import { displayPath } from '../../io/repo.js';
import { isoTime } from '../../timestamp.js';
import type { Plan } from '../transaction/commit.js';
import { pointerAt } from '../transaction/final-plan.js';
import type { Loaded } from '../transaction/load-state.js';
import { judgedBlobs, owedCommit } from '../git/progress-commit.js';
import { outputsForStep } from '../transaction/skill-outputs.js';
import type { Decision } from '../transaction/transact.js';
import { batchTemplatesOf, templatesOf } from './gather.js';
import { judgedTexts } from '../git/judged.js';
import { reached, type AttemptRead, type CodeSeen, type PlannedStep, type Stage } from './run.js';

/** Stage `plan`: the step plan and its write, final. */
export const plan: Stage = {
  name: 'plan',
  run: (run) => {
    const { tx, loaded, input, decided, attempt, event } = reached(run, 'plan', 'loaded', 'input', 'decided', 'attempt');
    const step = planStep(input, decided, attempt.skill);
    const { transition } = step;
    if (transition.outcome.kind === 'work' && attempt.skillProblem) throw new InputError(attempt.skillProblem);
    const notices = [...step.notices, ...(attempt.notice ? [attempt.notice] : []), ...codeSaid(step, run.code), ...lockSaid(tx.lock)];
    // A pointer that did not parse is kept, byte for byte, before it is rewritten.
    const files: { path: string; text: string }[] = [];
    if (loaded.brokenPointer !== undefined && step.pointer) {
      const backup = loaded.repo.pointerFile.replace(/\.md$/, `.broken-${isoTime(input.now).replaceAll(':', '')}.md`);
      files.push({ path: backup, text: loaded.brokenPointer });
      notices.push(`the unreadable pointer was kept as ${displayPath(backup, loaded.repo.root)}`);
    }
    // What `done`'s judges read: its commit holds those bytes, not the files as they are when it is made.
    const judged = event.type === 'done' ? judgedTexts(loaded.repo, input.state.evidence) : [];
    const decision = writeOf(loaded, step, attempt, judged, files);
    const planned: PlannedStep = {
      step: freeze({ ...step, notices: freeze(notices) }),
      decision: freeze(decision),
      templates: templatesFor(loaded, step, attempt),
    };
    return { ...run, plan: freeze(planned) };
  },
};

/** The plan as the transaction writes it, with the progress commit it owes (owed where git cannot take it now too: rule 11; never before a first commit). */
function writeOf(loaded: Loaded, step: StepPlan, attempt: AttemptRead, judged: Decision['judged'], files: Plan['files'] & object): Decision {
  const { flow } = loaded;
  const { git } = attempt;
  const owed =
    git && !git.unborn
      ? owedCommit(loaded, flow, step.transition, git.mode, attempt.startTree, step.entries, judgedBlobs(judged ?? [], git.handle.objectFormat))
      : undefined;
  const plan: Plan = {
    entries: freeze(owed ? [...step.entries, owed] : step.entries),
    key: step.key,
    flowHash: flow.hash,
    lease: step.lease,
    pointer: step.pointer ? pointerAt(loaded, step.pointer.position, step.pointer.lastAction) : undefined,
    files: files.length > 0 ? files : undefined,
    checkpoint: step.checkpoint,
  };
  const commits = git && owed ? { git: { handle: git.handle, state: git.state }, strict: git.strict, blocked: git.blocked } : {};
  return { plan: freeze(plan), judged, facts: attempt.facts, ...commits };
}

/** A batch done: what the work tree showed of the code it changed (`engine/batch-code.ts`). */
function codeSaid(step: StepPlan, code: CodeSeen | undefined): string[] {
  const done = step.transition.entries.find((e) => e.event === 'batch_completed');
  const said = done?.event === 'batch_completed' ? codeNotice(code?.facts, done.batch) : undefined;
  return said ? [said] : [];
}

/** A person's --take-over broke another machine's lock: whose it was. */
const lockSaid = (lock: Lock): string[] =>
  lock.broken
    .filter((l) => l.reason === 'take-over')
    .map((b) => `took over the lock of a command of another machine (${holderText(b)}); journaled as lock_broken`);

/** The templates `next` names for the step it sends the agent to work in: a batch's report's first, then the step's own. */
function templatesFor(loaded: Loaded, step: StepPlan, attempt: AttemptRead): PlannedStep['templates'] {
  const { position, outcome } = step.transition;
  const worked = outcome.kind === 'work' && typeof position.step === 'number' ? stepByNumber(loaded.flow, position.step) : undefined;
  if (!worked) return [];
  const { repo } = loaded;
  return freeze([
    ...batchTemplatesOf(repo, attempt.declared, worked, position),
    ...templatesOf(repo, outputsForStep(attempt.declared, worked), position.cycle),
  ]);
}

/** Final from here: a stage after the plan that tried to change it would throw. */
const freeze = <T>(value: T): T => Object.freeze(value);
