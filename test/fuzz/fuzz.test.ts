/**
 * A bounded fuzz run in `npm test`: a few thousand cases in process and a
 * couple of hundred CLI runs, random seed each time (FUZZ_SEED=… replays one).
 * The long run is `npm run fuzz -- --cases 100000 [--seed S] [--target NAME]`.
 */
import { expect, it } from 'vitest';
import { closingLine, failureLines } from './harness.js';
import { fuzz, randomSeed } from './run.js';

const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : randomSeed();
const CASES = 2_500;

it(`finds no crash and no case over one second (seed ${seed})`, { timeout: 240_000 }, async () => {
  const counts = await fuzz({ seed, cases: CASES });
  console.log(closingLine(counts, seed));
  expect(failureLines(counts, seed), `replay with FUZZ_SEED=${seed}`).toEqual([]);
  expect(counts.crashes).toBe(0);
  expect(counts.slow).toBe(0);
});
