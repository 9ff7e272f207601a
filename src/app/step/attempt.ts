/**
 * Stage `attempt` of the step pipeline: the reads that only the decision can
 * ask for. A step that starts gets the work tree's snapshot (its progress
 * commit holds what changed from then on); an attempt or a round that begins
 * gets the step's files and their hashes (`done` tells this attempt's work by
 * them); a batch that begins gets its report's hash when one is on disk
 * already; `next` sending the agent to work gets the skill's own state file;
 * a run with no test command pinned takes one as a step starts, where one is
 * known (`app/transaction/verify.ts`). Then what the plan will need, as the pure planner
 * says it will (`planStep`, asked ahead): git for the progress commit it owes
 * (opened only then: a step resumed starts no git), the work tree as the
 * step it finishes began, the skill file and the templates of the step it
 * sends the agent to, and the transaction's own reads for the write.
 * Nothing is written: these are details on the decided entries, and facts.
 */
import { planStep, skillStateWanted, type SkillState, type StepInput } from '../../engine/step-plan.js';
import type { Event, Transition } from '../../engine/transitions.js';
import { stepByNumber } from '../../formats/flow/model.js';
import type { JournalEntry } from '../../formats/journal-line.js';
import { hashFiles, stepFiles } from '../../io/gather-outputs.js';
import { latestAbout } from '../../io/journal-head.js';
import { skillFile } from '../../io/skills.js';
import type { Loaded } from '../transaction/load-state.js';
import { outputsForStep } from '../transaction/skill-outputs.js';
import { startTree, worthCommitting, type CommitGitOpener } from '../git/progress-commit.js';
import { skillPosition } from '../transaction/skill-position.js';
import { reportHashOnDisk } from '../transaction/task-batches.js';
import type { Settings } from '../../formats/settings.js';
import type { Position } from '../../formats/pointer/position.js';
import { NAME_IT, pinEntry, pinOf, pinToTake } from '../transaction/verify.js';
import { checksOf } from '../../evidence/index.js';
import { ownTreeForCode } from './own-tree.js';
import { reached, type AttemptRead, type OutputsOf, type Stage, type StepRun } from './run.js';

/** Stage `attempt`: the decision with its entries' details, and what the plan will need read. */
export const attempt: Stage = {
  name: 'attempt',
  run: async (run) => {
    const { tx, loaded, event, outputsOf, input } = reached(run, 'attempt', 'loaded', 'outputsOf', 'input', 'decided');
    const { commits } = tx.prepared;
    const { decided, skill, notice } = await gatherAttempt(loaded, event, run.decided!, commits, outputsOf, tx.settings);
    const ahead = await forThePlan(run, input, decided, skill);
    return { ...run, decided, attempt: { skill, notice, ...ahead } };
  },
};

async function gatherAttempt(
  loaded: Loaded,
  event: Event,
  decided: Transition,
  commits: CommitGitOpener | undefined,
  outputsOf: OutputsOf,
  settings: Pick<Settings, 'verify'>,
): Promise<{ decided: Transition; skill: SkillState; notice?: string }> {
  // A step starting on a run with no test command pinned: it takes one now, where one is known (the settings', or found).
  let notice: string | undefined;
  if (decided.entries.some(starts)) ({ transition: decided, notice } = await withVerifyPin(loaded, decided, settings, outputsOf));
  // A code step starting where another run is mid-step with uncommitted code: refused, with the line for a work tree of its own.
  if (decided.entries.some(starts)) await ownTreeForCode(loaded, decided, outputsOf);
  // A step starting: its commit will hold what changed in the work tree from now on.
  const git = commits?.mode === 'work' && decided.entries.some(starts) ? await commits.open() : undefined;
  if (git) decided = withStartTree(decided, await startTree(git.handle));
  // An attempt beginning (or a round): the step's files as they are, so `done` can tell this attempt's work.
  decided = await withHashes(loaded, decided, outputsOf);
  // A batch beginning: its report as it is on disk, so `done` can tell a report written before the batch.
  decided = withReportHash(loaded, decided);
  const wanted = skillStateWanted(event, decided);
  const skill = wanted === undefined ? undefined : await skillPosition(loaded.repo, stepByNumber(loaded.flow, wanted)!, decided.position.cycle);
  return { decided, skill, notice };
}

/**
 * What the plan will need read, as the pure planner says it will plan: git
 * for the commit it owes (`worthCommitting`), the work tree as the step it
 * finishes began, the skill file and declared outputs of the step it sends
 * the agent to work in, the transaction's reads for the write.
 */
async function forThePlan(run: StepRun, input: StepInput, decided: Transition, skill: SkillState): Promise<Omit<AttemptRead, 'skill' | 'notice'>> {
  const { tx, loaded, outputsOf } = reached(run, 'attempt', 'loaded', 'outputsOf');
  const draft = planStep(input, decided, skill);
  const commits = tx.prepared.commits;
  // Git is opened for the commit only where the plan is worth one (a step resumed starts none).
  const git = commits && worthCommitting(draft.transition.entries, draft.entries) ? await commits.open() : undefined;
  const { transition } = draft;
  const step =
    transition.outcome.kind === 'work' && typeof transition.position.step === 'number' ? stepByNumber(loaded.flow, transition.position.step) : undefined;
  return {
    git,
    startTree: git && !git.unborn ? startTreeOf(loaded, transition) : undefined,
    // A skill file the agent must not be handed: the plan refuses the work order, before anything is written.
    skillProblem: step ? skillFile(loaded.repo, step.skill).problem : undefined,
    declared: step ? await outputsOf(loaded.repo, step.skill) : undefined,
    facts: await tx.readForWrite(draft),
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

/**
 * The transition with the run's test command pinned before the entry that
 * starts a step, where none is and one is known; where none is known and the
 * step's reports hold a test result, the notice that asks for the person.
 */
async function withVerifyPin(
  loaded: Loaded,
  transition: Transition,
  settings: Pick<Settings, 'verify'>,
  outputsOf: OutputsOf,
): Promise<{ transition: Transition; notice?: string }> {
  if (pinOf(loaded)) return { transition };
  const at = transition.entries.findIndex(starts);
  const start = transition.entries[at]!;
  const take = pinToTake(loaded.repo, settings);
  if (!take) {
    const step = typeof start.step === 'number' ? stepByNumber(loaded.flow, start.step) : undefined;
    const declared = step ? await outputsOf(loaded.repo, step.skill) : undefined;
    const tested = declared?.outputs.some((o) => checksOf(o).includes('exit-code'));
    return { transition, notice: tested ? NO_COMMAND : undefined };
  }
  const pin = pinEntry(loaded.repo, positionOf(start), { command: take.command, by: take.by });
  return { transition: { ...transition, entries: [...transition.entries.slice(0, at), pin, ...transition.entries.slice(at)] } };
}

const NO_COMMAND = `this step's reports stand on a run of the project's tests, and autopilot knows no test command for this project (no \`verify:\` in .autopilot/config.yml, none found in its files): ask the person to name it, \`${NAME_IT}\``;

/** The position an entry was written at. */
const positionOf = (e: JournalEntry): Position => ({
  flow: e.flow,
  cycle: e.cycle,
  step: e.step,
  name: e.name,
  status: e.status as Position['status'],
  subStep: '',
  retryCount: e.retry_count,
});

/** The transition with the work tree's snapshot on the entry that starts the step. */
function withStartTree(transition: Transition, tree: string): Transition {
  return { ...transition, entries: transition.entries.map((e) => (starts(e) ? { ...e, tree } : e)) };
}

/** An entry that begins what a progress commit will hold: a step, or a batch of it. */
const starts = (e: JournalEntry) => e.event === 'step_started' || e.event === 'batch_started';
