/**
 * next, done, fail, skip, decide, ack, substep — for every front end. The
 * shell around the pure step plan (`engine/step-plan.ts`): validate the
 * arguments, gather what the plan needs inside the one transaction, write it,
 * make the progress commit it asks for, and build the view.
 */
import { DECISIVE } from '../engine/repeat.js';
import { decideStep, aimAt, isAimed, planStep, skillStateWanted, type StepInput } from '../engine/step-plan.js';
import { exitCodeOf, type Event, type Transition } from '../engine/transitions.js';
import { InputError } from '../errors.js';
import { stepByNumber, withCycle } from '../flow/model.js';
import { latestAbout } from '../io/journal-head.js';
import { hashFiles, stepFiles } from '../io/gather-outputs.js';
import { stepOutputs } from './found-on-disk.js';
import type { Evidence } from '../engine/evidence.js';
import type { Finding } from '../evidence/types.js';
import type { Target } from '../engine/repeat.js';
import type { JournalEntry } from '../formats/journal-line.js';
import type { Repo } from '../io/repo.js';
import { join } from 'node:path';
import { outputsForStep, skillOutputs, type DeclaredOutputs } from './skill-outputs.js';
import { holderText } from '../io/lock.js';
import { displayPath } from '../io/repo.js';
import { skillDisplayPath, skillFile } from '../io/skills.js';
import type { Written } from './commit.js';
import type { Context } from './context.js';
import { flowChangeNotice } from './flows.js';
import { peekPosition, type Loaded } from './load-state.js';
import { boundarySummary } from './boundary-summary.js';
import { gitForCommits, owedCommit, startTree, worthACommit } from './progress-commit.js';
import { skillPosition } from './skill-position.js';
import { pointerAt, transact, type Opened } from './transaction.js';
import { validateEvent } from './validate-event.js';
import { buildView, type View } from './view.js';
import { isoTime } from '../timestamp.js';

export interface StepRequest {
  event: Event;
  /** `--step N`: the step the command is for; by default the current one when the command starts. */
  step?: number;
  /** `--take-over`: take the lease from another session (journaled). */
  takeOver?: boolean;
  /** `--commit`: the progress commit asked for, refused where git cannot take one (by default it is made where git can). */
  commit?: boolean;
}

export interface StepResult {
  view: View;
  exit: number;
  written: Written;
}

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
  const outputsOf = outputsReader();
  const { result } = await transact(ctx, spec, async (tx) => {
    const loaded = await tx.state();
    const { repo, flow } = loaded;
    const input = stepInput(loaded, event, request, tx.prepared.peeked, tx.ctx, tx.settings.staleMs, tx.lease);
    const { commits } = tx.prepared;
    const git = commits?.handle;
    // `done` on a step whose skill declares its outputs: what they hold, for the judges.
    if (event.type === 'done') input.state.evidence = await withOutputs(loaded, aimAt(event, request.step, tx.prepared.peeked, loaded.reconciled.position));
    let decided = decideStep(input);
    // A step starting: its commit will hold what changed in the work tree from now on.
    if (git && commits.mode === 'work' && decided.entries.some((e) => e.event === 'step_started')) decided = withStartTree(decided, await startTree(git));
    // An attempt beginning (or a round): the step's files as they are, so `done` can tell this attempt's work.
    decided = await withHashes(loaded, decided, outputsOf);
    const wanted = skillStateWanted(event, decided);
    const skill = wanted === undefined ? undefined : await skillPosition(repo, stepByNumber(flow, wanted)!, decided.position.cycle);
    const plan = planStep(input, decided, skill);
    const { transition } = plan;
    const worked =
      transition.outcome.kind === 'work' && typeof transition.position.step === 'number' ? stepByNumber(flow, transition.position.step) : undefined;
    const templates = worked ? templatesOf(repo, outputsForStep(await outputsOf(repo, worked.skill), worked), transition.position.cycle) : [];
    // A skill file the agent must not be handed (too large, not a file) refuses the work order before anything is written.
    if (transition.outcome.kind === 'work' && typeof transition.position.step === 'number') {
      const problem = skillFile(repo, stepByNumber(flow, transition.position.step)!.skill).problem;
      if (problem) throw new InputError(problem);
    }
    // A person's --take-over broke another machine's lock: say whose it was.
    for (const b of tx.lock.broken.filter((l) => l.reason === 'take-over'))
      plan.notices.push(`took over the lock of a command of another machine (${holderText(b)}); journaled as lock_broken`);
    const files: { path: string; text: string }[] = [];
    // A pointer that did not parse is kept, byte for byte, before it is rewritten.
    if (loaded.brokenPointer !== undefined && plan.pointer) {
      const backup = repo.pointerFile.replace(/\.md$/, `.broken-${isoTime(ctx.now()).replaceAll(':', '')}.md`);
      files.push({ path: backup, text: loaded.brokenPointer });
      plan.notices.push(`the unreadable pointer was kept as ${displayPath(backup, repo.root)}`);
    }
    const owed = commits && !commits.blocked ? owedCommit(loaded, flow, transition, commits.mode, startTreeOf(loaded, transition)) : undefined;
    // By default, a commit git cannot take now is said where one was due (a first commit missing is said by `status`, not here).
    if (commits?.blocked && !commits.unborn && worthACommit(transition.entries))
      plan.notices.push(`no progress commit: ${commits.blocked}; the step is recorded, its files are left as they are`);
    return {
      ...(git && owed ? { git, strict: commits.strict } : {}),
      plan: {
        entries: owed ? [...plan.entries, owed] : plan.entries,
        key: plan.key,
        flowHash: flow.hash,
        ...(plan.lease ? { lease: plan.lease } : {}),
        ...(plan.pointer ? { pointer: pointerAt(loaded, plan.pointer.position, plan.pointer.lastAction) } : {}),
        ...(files.length > 0 ? { files } : {}),
        ...(plan.checkpoint ? { checkpoint: plan.checkpoint } : {}),
      },
      answer: async (written: Written): Promise<StepResult> => {
        const committed = written.progressCommit?.sha;
        const { outcome } = transition;
        const summary =
          outcome.kind === 'boundary' && !outcome.answered ? await boundarySummary(repo, flow, outcome.after, loaded.reconciled.position.cycle) : undefined;
        const view = buildView(event.type, loaded, transition.position, outcome, {
          ...(summary ? { summary } : {}),
          ...(committed ? { committed } : {}),
          ...(written.checkpoint ? { checkpoint: written.checkpoint.id } : {}),
          ...(plan.answer ? { answer: plan.answer } : {}),
          ...(shownAgain(event, transition) ? { again: true as const } : {}),
          ...(plan.acted ? { acted: plan.acted } : {}),
          ...(plan.reason ? { reason: plan.reason } : {}),
          ...(plan.passedOver.length > 0 ? { passedOver: plan.passedOver } : {}),
          ...(plan.notices.length + (written.notices?.length ?? 0) > 0 ? { notices: [...plan.notices, ...(written.notices ?? [])] } : {}),
          ...(templates.length > 0 ? { templates } : {}),
          ...walkFindings(loaded, transition),
          // The first `next` of a session (it took the lease rather than renewing it) re-enters: the short status comes with it.
          ...(event.type === 'next' && tx.lease?.kind === 'take' ? { reentry: true } : {}),
        });
        return { view, exit: exitCodeOf(outcome), written };
      },
    };
  });
  return result;
}

/** `next` sent to the step where a walk over work found on disk stopped because its files fail the checks: what they found. */
function walkFindings(loaded: Loaded, transition: Transition): { findings?: Finding[] } {
  const stop = loaded.reconciled.walk?.stop;
  if (transition.outcome.kind !== 'work' || stop?.kind !== 'findings' || stop.step !== transition.position.step) return {};
  return { findings: stop.findings };
}

/** A decision or a boundary that a command other than `next` reached without finishing a step: it was finished before. */
function shownAgain(event: Event, transition: Transition): boolean {
  if (event.type === 'next' || (transition.outcome.kind !== 'decision' && transition.outcome.kind !== 'boundary')) return false;
  if (transition.outcome.kind === 'boundary' && transition.outcome.answered) return false;
  return !transition.entries.some((e) => e.event === 'step_completed' || e.event === 'step_skipped' || e.event === 'boundary_answered');
}

/** A skill's declared outputs, read once a command (a step's skill is asked about by `withHashes` and the view alike). */
function outputsReader(): (repo: Repo, skill: string) => Promise<DeclaredOutputs | undefined> {
  const seen = new Map<string, Promise<DeclaredOutputs | undefined>>();
  return (repo, skill) => {
    let found = seen.get(skill);
    if (!found) seen.set(skill, (found = skillOutputs(repo, skill)));
    return found;
  };
}

/**
 * The evidence with the aimed step's declared outputs gathered (`stepOutputs`).
 * Unchanged for a step whose skill declares none, or of another cycle.
 */
async function withOutputs(loaded: Loaded, target: Target | undefined): Promise<Evidence> {
  const { repo, flow, evidence } = loaded;
  const step = target && target.flow === flow.id && target.cycle === evidence.cycle ? stepByNumber(flow, target.step) : undefined;
  if (!step) return evidence;
  const declared = outputsForStep(await skillOutputs(repo, step.skill), step);
  if (!declared) return evidence;
  const outputs = stepOutputs(repo, flow, step, evidence, declared);
  const steps = evidence.steps.map((s) => (s.step === step.number ? { ...s, outputs } : s));
  return { ...evidence, steps };
}

/** The transition with, on each entry that begins an attempt or a round, the step's files and their hashes (a skill that declares outputs). */
async function withHashes(loaded: Loaded, transition: Transition, outputsOf: ReturnType<typeof outputsReader>): Promise<Transition> {
  const { repo, flow } = loaded;
  const marks = (e: JournalEntry) => e.event === 'step_started' || e.event === 'step_failed' || (e.event === 'decision_answered' && e.then === 'repeat');
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

/** What `next` says about each output of the step it sends the agent to: the file and its template. */
function templatesOf(repo: Repo, declared: DeclaredOutputs | undefined, cycle: number): { file: string; template: string }[] {
  if (!declared) return [];
  return declared.outputs
    .filter((o) => o.template !== undefined)
    .map((o) => ({ file: `${repo.docsName}/${withCycle(o.file, cycle)}`, template: skillDisplayPath(repo, join(declared.dir, o.template!)) }));
}

/** The transition with the work tree's snapshot on the entry that starts the step. */
function withStartTree(transition: Transition, tree: string): Transition {
  return { ...transition, entries: transition.entries.map((e) => (e.event === 'step_started' ? { ...e, tree } : e)) };
}

/** The work tree when the step this command finishes started, as its `step_started` recorded it. */
function startTreeOf(loaded: Loaded, transition: Transition): string | undefined {
  const finished = transition.entries.find((e) => e.event === 'step_completed' || e.event === 'step_skipped' || e.event === 'step_failed');
  if (!finished || typeof finished.step !== 'number') return undefined;
  const started = latestAbout(loaded.repo.journalFile, { flow: finished.flow, cycle: finished.cycle, step: finished.step }, new Set(['step_started'] as const));
  return typeof started?.tree === 'string' ? started.tree : undefined;
}

/** What the pure plan needs, gathered from the state read under the lock and the two journal look-ups it may need. */
function stepInput(
  loaded: Loaded,
  event: Event,
  request: StepRequest,
  peeked: StepInput['peeked'],
  ctx: Context,
  staleMs: number,
  lease: StepInput['lease'],
): StepInput {
  const { repo, flow, reconciled } = loaded;
  const position = reconciled.position;
  const target = aimAt(event, request.step, peeked, position);
  const latest = target ? latestAbout(repo.journalFile, target, DECISIVE) : undefined;
  // A failed step shows why, in whichever session asks: the last reason is in the journal.
  const failed =
    position.status === 'failed' && typeof position.step === 'number'
      ? latestAbout(repo.journalFile, { flow: flow.id, cycle: position.cycle, step: position.step }, new Set(['step_failed']))
      : undefined;
  return {
    state: {
      flow,
      pointer: loaded.pointer,
      record: loaded.record,
      reconciled,
      evidence: loaded.evidence,
      ...(loaded.head.record ? { lastRecord: loaded.head.record } : {}),
      ...(loaded.boundary ? { boundary: loaded.boundary } : {}),
      ...(loaded.flowChange ? { flowChange: flowChangeNotice(loaded) } : {}),
      ...(loaded.fork ? { fork: loaded.fork } : {}),
    },
    event,
    ...(request.step !== undefined ? { step: request.step } : {}),
    ...(peeked ? { peeked } : {}),
    session: ctx.session,
    ...(ctx.sessionFrom === 'default' ? { unnamed: true } : {}),
    ...(byPerson(event, request.takeOver === true) ? { person: true } : {}),
    now: ctx.now(),
    staleMs,
    ...(lease ? { lease } : {}),
    ...(latest ? { latest } : {}),
    ...(typeof failed?.reason === 'string' ? { lastFailure: failed.reason } : {}),
  };
}
