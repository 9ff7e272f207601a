/**
 * The totals of a test run, read from the runner's own output (issue 29,
 * point 4): one reader a runner family, each knowing only its own summary.
 * Where several find one (a command that runs two runners, or TAP that node
 * also summarises), the summary that ends last wins. An output none of them
 * reads has no totals: `done` refuses it, naming the runners read here
 * (`RUNNERS`). Colour codes are removed first. Pure.
 */
import { cargo } from './cargo.js';
import { goTest } from './go.js';
import { jest } from './jest.js';
import { junit } from './junit.js';
import { mocha } from './mocha.js';
import { nodeTest } from './node.js';
import { pytest } from './pytest.js';
import type { Reader, RunnerTotals } from './read.js';
import { tap } from './tap.js';
import { vitest } from './vitest.js';

/** Every reader, in the order a tie is settled (a summary ending on the same line). */
const READERS: readonly Reader[] = [junit, nodeTest, vitest, jest, mocha, pytest, cargo, goTest, tap];

/** The runners whose output autopilot reads, as a refusal names them. */
export const RUNNERS = 'node --test (spec, TAP, JUnit), vitest, jest, mocha, pytest, go test, cargo test, any TAP producer and JUnit XML printed to the output';

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]|\u001b\][^\u0007]*\u0007/g;

/** The runner and its totals, from a run's output; undefined when no reader finds a summary. */
export function readTotals(output: string): RunnerTotals | undefined {
  const lines = output.replace(ANSI, '').split(/\r?\n/);
  let best: RunnerTotals | undefined;
  for (const read of READERS) {
    const found = read(lines);
    if (found && (!best || found.end > best.end)) best = found;
  }
  return best;
}

export type { RunnerTotals } from './read.js';
