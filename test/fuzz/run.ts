/** One fuzz run over the registered targets, shared by the test (a bounded run) and `npm run fuzz` (a long one). */
import { add, allocate, emptyCounts, runTarget, type Counts } from './harness.js';
import { TARGETS } from './targets/index.js';

export interface RunOptions {
  seed: number;
  cases: number;
  /** The index of the first case (to replay one case: `first` with `cases: 1`). */
  first?: number;
  /** Only this target, with all the cases. */
  target?: string;
  /** Called after each target, for progress. */
  progress?: (target: string, counts: Counts, ms: number) => void;
}

export async function fuzz(options: RunOptions): Promise<Counts> {
  const targets = options.target ? TARGETS.filter((t) => t.name === options.target) : TARGETS;
  if (targets.length === 0) throw new Error(`no fuzz target ${options.target}; known: ${TARGETS.map((t) => t.name).join(', ')}`);
  const shares = options.target ? new Map(targets.map((t) => [t, options.cases])) : allocate(targets, options.cases);
  let total = emptyCounts();
  for (const target of targets) {
    const started = performance.now();
    const counts = await runTarget(target, {
      seed: options.seed,
      cases: shares.get(target)!,
      ...(options.first !== undefined ? { first: options.first } : {}),
    });
    options.progress?.(target.name, counts, performance.now() - started);
    total = add(total, counts);
  }
  return total;
}

export const randomSeed = () => Math.floor(Math.random() * 2 ** 31);
