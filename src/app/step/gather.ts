/**
 * Stage `gather` of the step pipeline (docs/architecture.md, "The step
 * pipeline"): every read the decision needs, done before anything is
 * decided. The state read under the lock (pointer, journal, flow, folder),
 * the journal's last word on the aimed step and its last failure, and, for
 * `done`, the aimed step's declared outputs with what this attempt ran.
 * Nothing is written.
 */
import { join } from 'node:path';
import { DECISIVE, type Target } from '../../engine/repeat.js';
import { aimAt, type StepInput } from '../../engine/step-plan.js';
import { evidenceFor, type Evidence } from '../../engine/evidence.js';
import type { Event } from '../../engine/transitions.js';
import { stepByNumber, withCycle, type Step } from '../../formats/flow/model.js';
import type { Position } from '../../formats/pointer/position.js';
import { readSubStep } from '../../formats/pointer/sub-step.js';
import { attemptOpening, latestAbout } from '../../io/journal-head.js';
import type { Opening } from '../../engine/attempt-start.js';
import { criteriaStep } from '../../engine/criteria.js';
import { criteriaNow } from '../transaction/criteria.js';
import { lastCheckpointAt } from '../../io/checkpoint-files.js';
import { stepOutputs } from '../transaction/found-on-disk.js';
import type { Repo } from '../../io/repo.js';
import { skillDisplayPath } from '../../io/skills.js';
import type { Context } from '../transaction/context.js';
import { flowChangeNotice } from '../transaction/flows.js';
import { gatherBatches } from '../transaction/task-batches.js';
import { indexEditNotice, reportOf } from '../../engine/task-batches.js';
import type { Loaded } from '../transaction/load-state.js';
import { runSkillOutputs, skillChangeNotice, type SkillPinState } from '../transaction/skill-pins.js';
import { outputsForStep, type DeclaredOutputs } from '../transaction/skill-outputs.js';
import { checksOf, type CommandRun } from '../../evidence/index.js';
import { commandKey } from '../../evidence/exit-code.js';
import { changedOutsideDocs, verifyFacts, verifyNow } from '../transaction/verify.js';
import type { OutputsOf, Stage } from './run.js';

export type { OutputsOf };

/** Stage `gather`: the state under the lock, a reader of the skills' declarations, and everything the decision reads. */
export const gather: Stage = {
  name: 'gather',
  run: async (run) => {
    const { tx, event, request, person } = run;
    const loaded = await tx.state();
    // A skill changed since the run pinned it is judged by its pinned declaration.
    const outputsOf = outputsReader(loaded.skills);
    const { settings } = tx;
    const asker = {
      step: request.step,
      peeked: tx.prepared.peeked,
      lease: tx.lease,
      ctx: tx.ctx,
      staleMs: settings.staleMs,
      verify: settings.verify,
      followThrough: settings.followThrough,
      person,
    };
    return { ...run, loaded, outputsOf, input: await gatherStep(loaded, event, asker, outputsOf) };
  },
};

/** The reader for a run: a skill changed since the run pinned it gives its pinned declaration (`runSkillOutputs`). */
export function outputsReader(pins: SkillPinState | undefined): OutputsOf {
  const seen = new Map<string, Promise<DeclaredOutputs | undefined>>();
  return (repo, skill) => {
    let found = seen.get(skill);
    if (!found) seen.set(skill, (found = runSkillOutputs(repo, pins, skill)));
    return found;
  };
}

/** Who asks and how: what the shell knows of the command beyond the event. */
export interface Asker {
  step?: number;
  peeked?: StepInput['peeked'];
  ctx: Context;
  staleMs: number;
  /** The settings' `verify:`, for `done`'s test results. */
  verify?: string;
  /** `follow_through: false` in the settings: no follow-through notice. */
  followThrough?: false;
  lease?: StepInput['lease'];
  person: boolean;
}

/** Everything the pure decision reads, gathered. */
export async function gatherStep(loaded: Loaded, event: Event, asker: Asker, outputsOf: OutputsOf): Promise<StepInput> {
  const input = stepInput(loaded, event, asker);
  // `done` on a step whose skill declares its outputs: what they hold, for the judges.
  if (event.type === 'done') input.state.evidence = await withOutputs(loaded, aimAt(event, asker.step, asker.peeked, loaded.reconciled.position), outputsOf);
  // A step that walks its task index batch by batch: its batches, and for `done` the current batch's report.
  if (event.type === 'next' || event.type === 'done') {
    const batches = await withBatches(loaded, input.state.evidence, event.type === 'done', outputsOf);
    input.state.evidence = batches.evidence;
    if (batches.notice) input.state.flowChange = [input.state.flowChange, batches.notice].filter(Boolean).join('; ');
  }
  // `done` on a step whose reports hold a test result: the project's test command, and what changed after its last run.
  if (event.type === 'done') input.state.evidence = await withVerify(loaded, input.state.evidence, asker.verify);
  return input;
}

/**
 * The evidence with the project's test command (pinned, or to be) beside
 * each test result the judges will read — the aimed step's outputs and the
 * current batch's report — and, for the last run of that command in the
 * attempt, the files outside the docs folder changed since it began.
 * Unchanged where no output checks a test result.
 */
async function withVerify(loaded: Loaded, evidence: Evidence, verify: string | undefined): Promise<Evidence> {
  const checked = evidence.steps.some(
    (s) =>
      s.outputs?.outputs.some((o) => checksOf(o.output).includes('exit-code')) ||
      (s.batches?.report && checksOf(s.batches.report.output).includes('exit-code')),
  );
  if (!checked) return evidence;
  const facts = verifyFacts(verifyNow(loaded, { verify }));
  const withChanges = async (runs: CommandRun[]): Promise<CommandRun[]> => {
    const last = facts.command ? runs.filter((r) => commandKey(r.command) === commandKey(facts.command!)).at(-1) : undefined;
    if (!last?.tree) return runs;
    const changedAfter = await changedOutsideDocs(loaded.repo, last.tree);
    return runs.map((r) => (r === last && changedAfter ? { ...r, changedAfter } : r));
  };
  const steps = [];
  for (const s of evidence.steps) {
    const outputs = s.outputs && {
      ...s.outputs,
      verify: facts,
      ...(s.outputs.attempt ? { attempt: { ...s.outputs.attempt, runs: await withChanges(s.outputs.attempt.runs) } } : {}),
    };
    const report = s.batches?.report && { ...s.batches.report, verify: facts, runs: await withChanges(s.batches.report.runs) };
    steps.push({ ...s, ...(outputs ? { outputs } : {}), ...(s.batches && report ? { batches: { ...s.batches, report } } : {}) });
  }
  return { ...evidence, steps };
}

/** The evidence with the current step's batches, when it walks a task index; and a sentence when the index changed under a pinned plan. */
async function withBatches(loaded: Loaded, evidence: Evidence, report: boolean, outputsOf: OutputsOf): Promise<{ evidence: Evidence; notice?: string }> {
  const { repo, flow, reconciled } = loaded;
  const position = reconciled.position;
  const step = typeof position.step === 'number' && position.cycle === evidence.cycle ? stepByNumber(flow, position.step) : undefined;
  if (!step?.batches) return { evidence };
  const declared = report ? await outputsOf(repo, step.skill) : undefined;
  const facts = gatherBatches({ repo, flow: flow.id, step, position, declared, report });
  if (!facts) return { evidence };
  const notice = indexEditNotice(facts);
  const steps = flow.steps.map((s) => (s.number === step.number ? { ...evidenceFor(evidence, s.number), batches: facts } : evidenceFor(evidence, s.number)));
  return { evidence: { ...evidence, steps }, ...(notice ? { notice } : {}) };
}

/** What the pure plan needs from the state read under the lock and the two journal look-ups it may need. */
function stepInput(loaded: Loaded, event: Event, asker: Asker): StepInput {
  const { repo, flow, reconciled } = loaded;
  const { ctx, peeked, lease } = asker;
  const position = reconciled.position;
  const target = aimAt(event, asker.step, peeked, position);
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
      stopped: loaded.stopped,
      ...(loaded.flowChange || loaded.skills?.changed ? { flowChange: changeNotices(loaded) } : {}),
      ...(loaded.fork ? { fork: loaded.fork } : {}),
      criteriaHeld: loaded.criteria,
      heldChanged: loaded.held?.fresh === true || loaded.held?.dismissed === true,
    },
    event,
    ...(asker.step !== undefined ? { step: asker.step } : {}),
    ...(peeked ? { peeked } : {}),
    session: ctx.session,
    ...(ctx.sessionFrom === 'default' ? { unnamed: true } : {}),
    ...(asker.person ? { person: true } : {}),
    now: ctx.now(),
    staleMs: asker.staleMs,
    followThrough: asker.followThrough,
    lastCheckpoint: lastCheckpointAt(repo),
    ...(lease ? { lease } : {}),
    ...(latest ? { latest } : {}),
    ...(typeof failed?.reason === 'string' ? { lastFailure: failed.reason } : {}),
    ...openedAt(loaded, event),
    ...pinnable(loaded, event, target),
  };
}

/** What changed since the run was pinned (its flow file, its skills), in one sentence each. */
function changeNotices(loaded: Loaded): string {
  const said = [loaded.flowChange ? flowChangeNotice(loaded) : undefined, loaded.skills ? skillChangeNotice(loaded.skills) : undefined];
  return said.filter((n): n is string => n !== undefined).join('; ');
}

/** Issue 29 point 7: for a command that works in the current step, how the journal saw the run come into it (only a step in progress asks). */
function openedAt(loaded: Loaded, event: Event): { opened?: Opening } {
  const { position } = loaded.reconciled;
  if (!WORKS_IN_STEP.has(event.type) || position.status !== 'in_progress' || typeof position.step !== 'number') return {};
  const opened = attemptOpening(loaded.repo.journalFile, { flow: loaded.flow.id, cycle: position.cycle, step: position.step });
  return opened ? { opened } : {};
}

const WORKS_IN_STEP = new Set<Event['type']>(['next', 'substep', 'done', 'fail']);

/**
 * Issue 29 point 8: the acceptance criteria as they read now, when this
 * command may complete the step that writes them (`done` aimed at it, or a
 * walk over work found on disk that completes it): pinned with its completion.
 */
function pinnable(loaded: Loaded, event: Event, target: Target | undefined): Pick<StepInput, 'criteriaNow'> {
  const { flow, reconciled } = loaded;
  const cycle = reconciled.position.cycle;
  const step = criteriaStep(flow, cycle);
  if (step === undefined) return {};
  const byDone = event.type === 'done' && target?.step === step && target.cycle === cycle;
  const byWalk = reconciled.walk?.found.some((f) => f.step === step && f.cycle === cycle) === true;
  if (!byDone && !byWalk) return {};
  return { criteriaNow: { cycle, ...criteriaNow(loaded.repo, flow, cycle) } };
}

/**
 * The evidence with the aimed step's declared outputs gathered (`stepOutputs`,
 * as the walk over work found on disk gathers them). Unchanged for a step whose skill declares none, or of another cycle.
 */
async function withOutputs(loaded: Loaded, target: Target | undefined, outputsOf: OutputsOf): Promise<Evidence> {
  const { repo, flow, evidence } = loaded;
  const step = target && target.flow === flow.id && target.cycle === evidence.cycle ? stepByNumber(flow, target.step) : undefined;
  if (!step) return evidence;
  const declared = outputsForStep(await outputsOf(repo, step.skill), step);
  if (!declared) return evidence;
  const outputs = stepOutputs(repo, flow, step, evidence, declared);
  const steps = evidence.steps.map((s) => (s.step === step.number ? { ...s, outputs } : s));
  return { ...evidence, steps };
}

/** What `next` says about each output of the step it sends the agent to: the file and its template. */
export function templatesOf(repo: Repo, declared: DeclaredOutputs | undefined, cycle: number): { file: string; template: string }[] {
  if (!declared) return [];
  return declared.outputs
    .filter((o) => o.template !== undefined)
    .map((o) => ({ file: `${repo.docsName}/${withCycle(o.file, cycle)}`, template: skillDisplayPath(repo, join(declared.dir, o.template!)) }));
}

/** The template of the batch report `next` hands out with a batch, when the skill declares one for the step's report pattern. */
export function batchTemplatesOf(repo: Repo, declared: DeclaredOutputs | undefined, step: Step, position: Position): { file: string; template: string }[] {
  const sub = readSubStep(position.subStep);
  const output = step.batches && declared?.outputs.find((o) => o.file === step.batches!.report && o.template !== undefined);
  if (!output || sub.kind !== 'batch') return [];
  return [{ file: `${repo.docsName}/${reportOf(step, sub.batch, position.cycle)}`, template: skillDisplayPath(repo, join(declared!.dir, output.template!)) }];
}
