/** `autopilot repin`: adopt the flow file as it is now for the run under way (journaled), unless the current step would vanish. */
import { entry } from '../formats/journal-line.js';
import { pinnedCopy, repinProblem } from '../engine/pin.js';
import { InputError } from '../errors.js';
import { FLOW_FIX_HINT } from './invalid-flows.js';
import type { Position } from '../formats/pointer/position.js';
import type { Context } from './context.js';
import { pointerAt, transact } from './transaction.js';

export interface RepinResult {
  /** The steps that changed; empty when the run already used the file as it is. */
  changes: string[];
  position: Position;
}

export async function runRepin(ctx: Context): Promise<RepinResult> {
  // A person's command (rule 6): it moves the run under the lock, but leaves the lease to the conversations.
  const { result } = await transact(ctx, { flows: 'cache', person: true }, async (tx) => {
    const loaded = await tx.state();
    const position = loaded.reconciled.position;
    const change = loaded.flowChange;
    if (!change) return { plan: { entries: [] }, answer: () => ({ changes: [], position }) };
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
    return {
      plan: {
        entries: [entry('run_repinned', moved, details)],
        pointer: pointerAt({ ...loaded, flow: current }, moved),
        flowHash: current.hash,
        key: `repin:${current.id}`,
      },
      answer: () => ({ changes: change.changes, position: moved }),
    };
  });
  return result;
}
