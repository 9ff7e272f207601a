/**
 * Stage 5 of a step command: the plan turned into the one write the
 * transaction makes (`app/commit.ts`, which returns every file it touched).
 * The journal entries with the progress commit they owe, the pointer, the
 * lease, a checkpoint, and a pointer that did not parse kept byte for byte
 * before it is replaced. A skill file the agent must not be handed refuses
 * the work order here, before anything is written.
 */
import type { StepPlan } from '../../engine/step-plan.js';
import { InputError } from '../../errors.js';
import { stepByNumber } from '../../flow/model.js';
import { holderText, type Lock } from '../../io/lock.js';
import { latestAbout } from '../../io/journal-head.js';
import { displayPath } from '../../io/repo.js';
import { skillFile } from '../../io/skills.js';
import { isoTime } from '../../timestamp.js';
import type { Plan } from '../commit.js';
import type { Loaded } from '../load-state.js';
import { owedCommit, worthACommit, type CommitGit } from '../progress-commit.js';
import { pointerAt } from '../transaction.js';
import type { Transition } from '../../engine/transitions.js';

export interface StepWrite {
  plan: Plan;
  /** Git for the progress commit the plan owes, when it owes one. */
  git?: { handle: NonNullable<CommitGit['handle']>; strict: boolean };
}

export function stepWrite(loaded: Loaded, plan: StepPlan, commits: CommitGit | undefined, lock: Lock, now: Date): StepWrite {
  const { repo, flow } = loaded;
  const { transition } = plan;
  if (transition.outcome.kind === 'work' && typeof transition.position.step === 'number') {
    const problem = skillFile(repo, stepByNumber(flow, transition.position.step)!.skill).problem;
    if (problem) throw new InputError(problem);
  }
  // A person's --take-over broke another machine's lock: say whose it was.
  for (const b of lock.broken.filter((l) => l.reason === 'take-over'))
    plan.notices.push(`took over the lock of a command of another machine (${holderText(b)}); journaled as lock_broken`);
  const files: { path: string; text: string }[] = [];
  // A pointer that did not parse is kept, byte for byte, before it is rewritten.
  if (loaded.brokenPointer !== undefined && plan.pointer) {
    const backup = repo.pointerFile.replace(/\.md$/, `.broken-${isoTime(now).replaceAll(':', '')}.md`);
    files.push({ path: backup, text: loaded.brokenPointer });
    plan.notices.push(`the unreadable pointer was kept as ${displayPath(backup, repo.root)}`);
  }
  const owed = commits && !commits.blocked ? owedCommit(loaded, flow, transition, commits.mode, startTreeOf(loaded, transition), plan.entries) : undefined;
  // By default, a commit git cannot take now is said where one was due (a first commit missing is said by `status`, not here).
  if (commits?.blocked && !commits.unborn && worthACommit(plan.entries))
    plan.notices.push(`no progress commit: ${commits.blocked}; the step is recorded, its files are left as they are`);
  return {
    ...(commits?.handle && owed ? { git: { handle: commits.handle, strict: commits.strict } } : {}),
    plan: {
      entries: owed ? [...plan.entries, owed] : plan.entries,
      key: plan.key,
      flowHash: flow.hash,
      ...(plan.lease ? { lease: plan.lease } : {}),
      ...(plan.pointer ? { pointer: pointerAt(loaded, plan.pointer.position, plan.pointer.lastAction) } : {}),
      ...(files.length > 0 ? { files } : {}),
      ...(plan.checkpoint ? { checkpoint: plan.checkpoint } : {}),
    },
  };
}

/** The work tree when the step this command finishes started, as its `step_started` recorded it. */
function startTreeOf(loaded: Loaded, transition: Transition): string | undefined {
  // A batch's commit holds what changed since the batch began.
  const batch = transition.entries.find((e) => e.event === 'batch_completed');
  if (batch && typeof batch.step === 'number') {
    const began = latestAbout(loaded.repo.journalFile, { flow: batch.flow, cycle: batch.cycle, step: batch.step }, new Set(['batch_started'] as const));
    if (typeof began?.tree === 'string') return began.tree;
  }
  const finished = transition.entries.find((e) => e.event === 'step_completed' || e.event === 'step_skipped' || e.event === 'step_failed');
  if (!finished || typeof finished.step !== 'number') return undefined;
  const started = latestAbout(loaded.repo.journalFile, { flow: finished.flow, cycle: finished.cycle, step: finished.step }, new Set(['step_started'] as const));
  return typeof started?.tree === 'string' ? started.tree : undefined;
}
