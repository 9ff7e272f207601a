/**
 * The step pipeline's stages, in the order every step command runs them
 * (docs/architecture.md, "The step pipeline"): reading the list is reading
 * the algorithm. `gather`, `code` and `attempt` read; `decide` and `plan`
 * are pure; `write` writes; `commit` makes the progress commit; `answer`
 * renders. One shape for all (`Stage`, `step/run.ts`).
 */
import { answer } from './answer.js';
import { attempt } from './attempt.js';
import { code } from './code.js';
import { commit } from './commit.js';
import { decide } from './decide.js';
import { gather } from './gather.js';
import { plan } from './plan.js';
import type { Stage } from './run.js';
import { write } from './write.js';

export const STEP_STAGES: readonly Stage[] = Object.freeze([gather, decide, code, attempt, plan, write, commit, answer]);
