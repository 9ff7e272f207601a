/**
 * `autopilot repin`: adopt the flow file, the skills and the current step's
 * task index as they are now for the run under way (journaled as the
 * person's), unless the current step would vanish; and the project's test
 * command, named or changed (`app/setup/repin-verify.ts`).
 */
import { entry } from '../../formats/journal-line.js';
import { pinnedCopy, repinProblem } from '../../engine/pin.js';
import { InputError } from '../../errors.js';
import { FLOW_FIX_HINT } from '../transaction/invalid-flows.js';
import type { Position } from '../../formats/pointer/position.js';
import type { Context } from '../transaction/context.js';
import { pointerAt, transact, type Decided } from '../transaction/transact.js';
import type { FlowChange, Loaded } from '../transaction/load-state.js';
import { gatherBatches } from '../transaction/task-batches.js';
import { atBatch, batchStarted } from '../../engine/task-batches.js';
import { stepByNumber, type Flow } from '../../formats/flow/model.js';
import { readSubStep } from '../../formats/pointer/sub-step.js';
import { skillsPinned, withSkillsPinned } from '../transaction/skill-pins.js';
import type { JournalEntry } from '../../formats/journal-line.js';
import type { Plan, Written } from '../transaction/commit.js';
import { repinVerify, type VerifyAsked, type VerifyRepin } from './repin-verify.js';

export interface RepinResult {
  /** The steps that changed; empty when the run already used the file as it is. */
  changes: string[];
  position: Position;
}

/** A repin's plan and what it says once written. */
type Repinned = Decided<RepinResult>;

export async function runRepin(ctx: Context, tests: VerifyAsked = {}): Promise<RepinResult> {
  // A person's command (rule 6): it moves the run under the lock, but leaves the lease to the conversations.
  const { result } = await transact(ctx, { flows: 'cache', person: true }, async (tx) => {
    const loaded = await tx.state();
    const position = loaded.reconciled.position;
    // The project's test command (app/setup/repin-verify.ts): adopted beside whatever the flow's repin does.
    const verify = repinVerify(loaded, tx.settings, position, tests);
    const change = loaded.flowChange;
    const repinned = change ? await repinChangedFlow(loaded, position, change) : await repinPinnedFlow(loaded, position);
    return verify ? withVerify(repinned, verify, loaded, position) : repinned;
  });
  return result;
}

/** The test command's repin added to the flow's: its entry, the settings file, and a pointer written even when the flow's repin writes none. */
function withVerify(done: Repinned, verify: VerifyRepin, loaded: Loaded, position: Position): Repinned {
  return {
    ...done,
    plan: {
      ...done.plan,
      entries: [...done.plan.entries, verify.entry],
      files: verify.file ? [verify.file] : [],
      pointer: done.plan.pointer ?? pointerAt(loaded, position),
    },
    answer: async (w: Written) => {
      const r = await done.answer(w);
      return { ...r, changes: [...r.changes, verify.change] };
    },
  };
}

/** The flow is as pinned: skills changed since the run pinned them, and a task index edited mid-step (its batches), adopted as they read now. */
async function repinPinnedFlow(loaded: Loaded, position: Position): Promise<Repinned> {
  const skillChanges = loaded.skills?.changed?.changes ?? [];
  const batches = repinBatches(loaded, position);
  const skills = skillChanges.length > 0 ? await skillsPinned(loaded.repo, loaded.flow) : undefined;
  if (!batches && !skills) return { plan: { entries: [] } as Plan, answer: () => ({ changes: [], position }) };
  const moved = batches?.position ?? position;
  const entries = batches ? [batches.entry] : [];
  return {
    plan: {
      entries: skills ? withSkillsPinned(entries, moved, skills, skillChanges) : entries,
      pointer: pointerAt(loaded, moved),
      flowHash: loaded.flow.hash,
      skillsHash: skills?.skills_hash,
      key: `repin:${loaded.flow.id}`,
    } as Plan,
    answer: () => ({ changes: [...skillChanges, ...(batches ? [batches.change] : [])], position: moved }),
  };
}

/** The flow file changed: adopted with the skills it names, unless it no longer parses, is gone, or loses the current step. */
async function repinChangedFlow(loaded: Loaded, position: Position, change: FlowChange): Promise<Repinned> {
  const skillChanges = loaded.skills?.changed?.changes ?? [];
  const current = adoptableFlow(loaded, position, change);
  const step = typeof position.step === 'number' ? current.steps[position.step - 1] : undefined;
  const moved: Position = step ? { ...position, name: step.name } : position;
  const details = { from_hash: loaded.flow.hash, flow_hash: current.hash, changed: change.changes, pinned: pinnedCopy(current) };
  // The skills are pinned again with the flow: its steps may name others, and any that changed are adopted too.
  const skills = await skillsPinned(loaded.repo, current);
  return {
    plan: {
      entries: [entry('run_repinned', moved, { ...details, ...skills })],
      pointer: pointerAt({ ...loaded, flow: current }, moved),
      flowHash: current.hash,
      skillsHash: skills.skills_hash,
      key: `repin:${current.id}`,
    } as Plan,
    answer: () => ({ changes: [...change.changes, ...skillChanges], position: moved }),
  };
}

/** The flow file as it is now, when it can be adopted; else the refusal, naming the file. */
function adoptableFlow(loaded: Loaded, position: Position, change: FlowChange): Flow {
  // A flow file that does not parse cannot be adopted: its problems, each with its line.
  if (change.invalid) throw new InputError(change.invalid, `Nothing was adopted: the run goes on with its pinned steps. ${FLOW_FIX_HINT}`);
  if (!change.current) {
    throw new InputError({
      file: loaded.flow.file,
      message: `the flow file of ${loaded.flow.id} is gone; there is nothing to adopt`,
      expected: 'the flow file back in place, or a new run',
    });
  }
  const problem = repinProblem(position, loaded.flow, change.current);
  if (problem) {
    throw new InputError({
      file: change.current.file,
      message: `repin refused: ${problem}`,
      expected: "a flow file that keeps the current step (or finish this step first, or a person's `autopilot reset` to start the run over)",
      received: change.changes.join('; '),
    });
  }
  return change.current;
}

/**
 * The current step's task index as it reads now, adopted: the batch the run
 * stands at keeps its number, its tasks are the new index's (journaled as a
 * `batch_started` that pins every batch again). Undefined when nothing differs.
 */
function repinBatches(loaded: Loaded, position: Position): { entry: JournalEntry; position: Position; change: string } | undefined {
  const step = typeof position.step === 'number' ? stepByNumber(loaded.flow, position.step) : undefined;
  const sub = readSubStep(position.subStep);
  if (!step?.batches || sub.kind !== 'batch') return undefined;
  const facts = gatherBatches({ repo: loaded.repo, flow: loaded.flow.id, step, position, report: false });
  if (!facts?.edited) return undefined;
  const adopted = { ...facts, plan: facts.edited, pinned: true };
  const batch = Math.min(sub.batch, adopted.plan.length);
  const moved = atBatch(position, adopted, batch);
  const show = (plan: string[][]) => plan.map((b) => `[${b.join(', ')}]`).join(' ');
  return {
    entry: batchStarted(moved, adopted, batch),
    position: moved,
    change: `the batches of ${facts.index}: ${show(facts.plan)} → ${show(adopted.plan)}; the run stands at batch ${batch} of ${adopted.plan.length}`,
  };
}
