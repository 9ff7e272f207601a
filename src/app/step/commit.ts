/**
 * Stage `commit` of the step pipeline: the progress commit the write owes
 * (`tx.commit`, once: `app/git/progress-commit.ts`), made of the files the write
 * touched and those `done`'s judges read as judged; where git cannot take it
 * now, owed and said (rule 11). What was written, with the commit.
 */
import { reached, type Stage } from './run.js';

export const commit: Stage = {
  name: 'commit',
  run: async (run) => {
    const { tx, plan, written } = reached(run, 'commit', 'plan', 'written');
    return { ...run, committed: await tx.commit(plan.decision, written) };
  },
};
