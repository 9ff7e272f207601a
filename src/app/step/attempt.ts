/**
 * Stage 3 of a step command: the reads that only the decision can ask for.
 * A step that starts gets the work tree's snapshot (its progress commit
 * holds what changed from then on); an attempt or a round that begins gets
 * the step's files and their hashes (`done` tells this attempt's work by
 * them); a batch that begins gets its report's hash when one is on disk
 * already; `next` sending the agent to work gets the skill's own state file.
 * Nothing is written: these are details on the decided entries.
 */
import { skillStateWanted, type SkillState } from '../../engine/step-plan.js';
import type { Event, Transition } from '../../engine/transitions.js';
import { stepByNumber } from '../../flow/model.js';
import type { JournalEntry } from '../../formats/journal-line.js';
import { hashFiles, stepFiles } from '../../io/gather-outputs.js';
import type { Loaded } from '../load-state.js';
import { outputsForStep } from '../skill-outputs.js';
import { startTree, type CommitGit } from '../progress-commit.js';
import { skillPosition } from '../skill-position.js';
import { reportHashOnDisk } from '../task-batches.js';
import type { OutputsOf } from './gather.js';

export interface Attempt {
  decided: Transition;
  skill: SkillState;
}

export async function gatherAttempt(loaded: Loaded, event: Event, decided: Transition, commits: CommitGit | undefined, outputsOf: OutputsOf): Promise<Attempt> {
  const git = commits?.handle;
  // A step starting: its commit will hold what changed in the work tree from now on.
  if (git && commits.mode === 'work' && decided.entries.some(starts)) decided = withStartTree(decided, await startTree(git));
  // An attempt beginning (or a round): the step's files as they are, so `done` can tell this attempt's work.
  decided = await withHashes(loaded, decided, outputsOf);
  // A batch beginning: its report as it is on disk, so `done` can tell a report written before the batch.
  decided = withReportHash(loaded, decided);
  const wanted = skillStateWanted(event, decided);
  const skill = wanted === undefined ? undefined : await skillPosition(loaded.repo, stepByNumber(loaded.flow, wanted)!, decided.position.cycle);
  return { decided, skill };
}

/** The transition with, on each entry that begins an attempt or a round, the step's files and their hashes (a skill that declares outputs). */
async function withHashes(loaded: Loaded, transition: Transition, outputsOf: OutputsOf): Promise<Transition> {
  const { repo, flow } = loaded;
  const marks = (e: JournalEntry) =>
    e.event === 'step_started' || e.event === 'batch_started' || e.event === 'step_failed' || (e.event === 'decision_answered' && e.then === 'repeat');
  if (!transition.entries.some(marks)) return transition;
  const entries: JournalEntry[] = [];
  for (const e of transition.entries) {
    const step = marks(e) && typeof e.step === 'number' ? stepByNumber(flow, e.step) : undefined;
    const declared = step ? outputsForStep(await outputsOf(repo, step.skill), step) : undefined;
    const hashes = step && declared ? hashFiles(repo, stepFiles(repo, step, e.cycle, declared)) : undefined;
    entries.push(hashes ? ((e.event === 'decision_answered' ? { ...e, round_hashes: hashes } : { ...e, hashes }) as JournalEntry) : e);
  }
  return { ...transition, entries };
}

/** The transition with, on each `batch_started`, the hash of its batch's report when one is on disk already. */
function withReportHash(loaded: Loaded, transition: Transition): Transition {
  if (!transition.entries.some((e) => e.event === 'batch_started')) return transition;
  const entries = transition.entries.map((e) => {
    const step = e.event === 'batch_started' && typeof e.step === 'number' ? stepByNumber(loaded.flow, e.step) : undefined;
    if (e.event !== 'batch_started' || !step?.batches) return e;
    const hash = reportHashOnDisk(loaded.repo, step, e.batch, e.cycle);
    return hash === undefined ? e : { ...e, report_hash: hash };
  });
  return { ...transition, entries };
}

/** The transition with the work tree's snapshot on the entry that starts the step. */
function withStartTree(transition: Transition, tree: string): Transition {
  return { ...transition, entries: transition.entries.map((e) => (starts(e) ? { ...e, tree } : e)) };
}

/** An entry that begins what a progress commit will hold: a step, or a batch of it. */
const starts = (e: JournalEntry) => e.event === 'step_started' || e.event === 'batch_started';
