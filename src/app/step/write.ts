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
import { judgedBlobs, owedCommit, type CommitGit } from '../progress-commit.js';
import type { JudgedText } from './judged.js';
import { pointerAt } from '../transaction.js';
import type { Transition } from '../../engine/transitions.js';

export interface StepWrite {
  plan: Plan;
  /** Git for the progress commit the plan owes, when it owes one; `blocked`: why git cannot take it now (it stays owed). */
  git?: Pick<CommitGit, 'handle' | 'state' | 'strict' | 'blocked'>;
}

/**
 * `commits`: git, opened by the command where the plan is worth a commit
 * (`worthCommitting`); `judged`: the files `done`'s judges read, with their
 * text: the commit the plan owes holds them as judged.
 */
export function stepWrite(
  loaded: Loaded,
  plan: StepPlan,
  commits: CommitGit | undefined,
  lock: Lock,
  now: Date,
  judged: readonly JudgedText[] = [],
): StepWrite {
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
  // Owed where git cannot take it now too (a detached HEAD: rule 11), and said then; never before a first commit (`status` says so).
  const blobs = judgedBlobs(judged, commits?.handle.objectFormat);
  const owed =
    commits && !commits.unborn ? owedCommit(loaded, flow, transition, commits.mode, startTreeOf(loaded, transition), plan.entries, blobs) : undefined;
  return {
    git: commits && owed ? { handle: commits.handle, state: commits.state, strict: commits.strict, blocked: commits.blocked } : undefined,
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
