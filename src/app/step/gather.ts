/**
 * Stage 1 of a step command (docs/architecture.md, "The step pipeline"):
 * every read the decision needs, done before anything is decided. The state
 * read under the lock (pointer, journal, flow, folder), the journal's last
 * word on the aimed step and its last failure, and, for `done`, the aimed
 * step's declared outputs with what this attempt ran. Nothing is written.
 */
import { join } from 'node:path';
import { DECISIVE, type Target } from '../../engine/repeat.js';
import { aimAt, type StepInput } from '../../engine/step-plan.js';
import { evidenceFor, type Evidence } from '../../engine/evidence.js';
import type { Event } from '../../engine/transitions.js';
import { stepByNumber, withCycle, type Step } from '../../flow/model.js';
import type { Position } from '../../formats/pointer/position.js';
import { readSubStep } from '../../formats/pointer/sub-step.js';
import { latestAbout } from '../../io/journal-head.js';
import { lastCheckpointAt } from '../../io/checkpoint-files.js';
import { stepOutputs } from '../found-on-disk.js';
import type { Repo } from '../../io/repo.js';
import { skillDisplayPath } from '../../io/skills.js';
import type { Context } from '../context.js';
import { flowChangeNotice } from '../flows.js';
import { gatherBatches } from '../task-batches.js';
import { indexEditNotice, reportOf } from '../../engine/task-batches.js';
import type { Loaded } from '../load-state.js';
import { outputsForStep, skillOutputs, type DeclaredOutputs } from '../skill-outputs.js';

/** A skill's declared outputs, read once a command (a step's skill is asked about by several stages). */
export type OutputsOf = (repo: Repo, skill: string) => Promise<DeclaredOutputs | undefined>;

export function outputsReader(): OutputsOf {
  const seen = new Map<string, Promise<DeclaredOutputs | undefined>>();
  return (repo, skill) => {
    let found = seen.get(skill);
    if (!found) seen.set(skill, (found = skillOutputs(repo, skill)));
    return found;
  };
}

/** Who asks and how: what the shell knows of the command beyond the event. */
export interface Asker {
  step?: number;
  peeked?: StepInput['peeked'];
  ctx: Context;
  staleMs: number;
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
  return input;
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
      ...(loaded.flowChange ? { flowChange: flowChangeNotice(loaded) } : {}),
      ...(loaded.fork ? { fork: loaded.fork } : {}),
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
  };
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
