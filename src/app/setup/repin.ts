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
import { pointerAt, transact } from '../transaction/transact.js';
import type { Loaded } from '../transaction/load-state.js';
import { gatherBatches } from '../transaction/task-batches.js';
import { atBatch, batchStarted } from '../../engine/task-batches.js';
import { stepByNumber } from '../../flow/model.js';
import { readSubStep } from '../../formats/pointer/sub-step.js';
import { skillsPinned, withSkillsPinned } from '../transaction/skill-pins.js';
import type { JournalEntry } from '../../formats/journal-line.js';
import type { Plan, Written } from '../transaction/commit.js';
import { repinVerify, type VerifyAsked } from './repin-verify.js';

export interface RepinResult {
  /** The steps that changed; empty when the run already used the file as it is. */
  changes: string[];
  position: Position;
}

export async function runRepin(ctx: Context, tests: VerifyAsked = {}): Promise<RepinResult> {
  // A person's command (rule 6): it moves the run under the lock, but leaves the lease to the conversations.
  const { result } = await transact(ctx, { flows: 'cache', person: true }, async (tx) => {
    const loaded = await tx.state();
    const { repo } = loaded;
    const position = loaded.reconciled.position;
    // The project's test command (app/setup/repin-verify.ts): adopted beside whatever the flow's repin does.
    const verify = repinVerify(loaded, tx.settings, position, tests);
    const withTests = <T extends { plan: Plan; answer: (w: Written) => RepinResult }>(done: T): T =>
      verify
        ? {
            ...done,
            plan: {
              ...done.plan,
              entries: [...done.plan.entries, verify.entry],
              files: verify.file ? [verify.file] : [],
              pointer: done.plan.pointer ?? pointerAt(loaded, position),
            },
            answer: (w: Written) => {
              const r = done.answer(w);
              return { ...r, changes: [...r.changes, verify.change] };
            },
          }
        : done;
    const change = loaded.flowChange;
    // Skills changed since the run pinned them: adopted as they read now, journaled as the person's.
    const skillChanges = loaded.skills?.changed?.changes ?? [];
    if (!change) {
      // The flow is as pinned; a task index edited mid-step is adopted too (its batches), when the current step walks one.
      const batches = repinBatches(loaded, position);
      const skills = skillChanges.length > 0 ? await skillsPinned(repo, loaded.flow) : undefined;
      if (!batches && !skills) return withTests({ plan: { entries: [] } as Plan, answer: () => ({ changes: [], position }) });
      const moved = batches?.position ?? position;
      const entries = batches ? [batches.entry] : [];
      return withTests({
        plan: {
          entries: skills ? withSkillsPinned(entries, moved, skills, skillChanges) : entries,
          pointer: pointerAt(loaded, moved),
          flowHash: loaded.flow.hash,
          skillsHash: skills?.skills_hash,
          key: `repin:${loaded.flow.id}`,
        } as Plan,
        answer: () => ({ changes: [...skillChanges, ...(batches ? [batches.change] : [])], position: moved }),
      });
    }
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
    const current = change.current;
    const step = typeof position.step === 'number' ? current.steps[position.step - 1] : undefined;
    const moved: Position = step ? { ...position, name: step.name } : position;
    const details = { from_hash: loaded.flow.hash, flow_hash: current.hash, changed: change.changes, pinned: pinnedCopy(current) };
    // The skills are pinned again with the flow: its steps may name others, and any that changed are adopted too.
    const skills = await skillsPinned(repo, current);
    return withTests({
      plan: {
        entries: [entry('run_repinned', moved, { ...details, ...skills })],
        pointer: pointerAt({ ...loaded, flow: current }, moved),
        flowHash: current.hash,
        skillsHash: skills.skills_hash,
        key: `repin:${current.id}`,
      } as Plan,
      answer: () => ({ changes: [...change.changes, ...skillChanges], position: moved }),
    });
  });
  return result;
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
