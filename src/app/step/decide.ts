/**
 * Stage `decide` of the step pipeline: what the command does, from what
 * `gather` read (`engine/step-plan.ts` `decideStep`, pure): a command aimed
 * at a step the work has left is refused, a repeat of a command that took
 * effect already is recognised, otherwise the rules apply
 * (`engine/transitions.ts`). Reads nothing, writes nothing.
 */
import { decideStep } from '../../engine/step-plan.js';
import { reached, type Stage } from './run.js';

export const decide: Stage = {
  name: 'decide',
  run: (run) => ({ ...run, decided: decideStep(reached(run, 'decide', 'input').input) }),
};
