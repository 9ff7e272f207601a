/**
 * Stage `write` of the step pipeline: the plan written, once, by the
 * transaction (`tx.write`: made final by `app/transaction/final-plan.ts`, then
 * `app/transaction/commit.ts`: journal, pointer, lease, files, checkpoint, index, all or
 * nothing). It returns every file it touched, as changesets'
 * `applyReleasePlan` does, for the progress commit to hold.
 */
import { reached, type Stage } from './run.js';

export const write: Stage = {
  name: 'write',
  run: async (run) => ({ ...run, written: await run.tx.write(reached(run, 'write', 'plan').plan.decision) }),
};
