/**
 * The flow files a loaded list left out for their problems (seed 004): a run
 * pinned to one goes on with its pinned steps (`load-state.ts` decides);
 * anything else stops on them, as before, with every problem named.
 */
import { InputError, type Problem } from '../../errors.js';
import type { Flow } from '../../formats/flow/model.js';

/** A flow file that holds problems: a run pinned to its flow goes on with its pinned steps; anything else stops on it. */
export interface InvalidFlow {
  id: string;
  file: string;
  problems: Problem[];
}

/** The flow files each loaded list left out for their problems (seed 004: a run keeps its pinned list when its file turns invalid). */
const invalidOf = new WeakMap<Flow[], InvalidFlow[]>();

export const setInvalidFlows = (flows: Flow[], invalid: InvalidFlow[]) => void invalidOf.set(flows, invalid);

export const invalidFlows = (flows: Flow[]): InvalidFlow[] => invalidOf.get(flows) ?? [];

export const FLOW_FIX_HINT = 'Fix the flow file(s) named above; `autopilot check` lists every problem.';

/** The error of flow files that hold problems, as every command gave it before a run could go on without them. */
export const invalidFlowsError = (invalid: InvalidFlow[]) =>
  new InputError(
    invalid.flatMap((f) => f.problems),
    FLOW_FIX_HINT,
  );

/**
 * The error for `--flow ID` where the repository's own file for that flow
 * holds problems (`init --flow bugfix`, `reset --flow bugfix`): each problem
 * with its file and line, rather than "no such flow"; undefined when no such
 * file was left out.
 */
export function brokenFlowError(flows: Flow[], id: string): InputError | undefined {
  const broken = invalidFlows(flows).filter((f) => f.id === id);
  return broken.length > 0 ? invalidFlowsError(broken) : undefined;
}
