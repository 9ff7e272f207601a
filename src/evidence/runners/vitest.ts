/**
 * vitest's closing lines: `Test Files  1 failed | 3 passed (4)` then
 * `Tests  7 failed | 12 passed | 1 skipped | 2 todo (22)`. Only the `Tests`
 * line counts tests; a todo counts as skipped.
 */
import { countsByWord, lastIndex, sumOf, totalsFrom, type Reader } from './read.js';

const TESTS = /^\s*Tests\s{2,}(\d+\s+(?:passed|failed|skipped|todo)\b.*?)\s*\(\d+\)\s*$/;

export const vitest: Reader = (lines) => {
  const at = lastIndex(lines, (l) => TESTS.test(l));
  if (at < 0) return undefined;
  const counts = countsByWord(TESTS.exec(lines[at]!)![1]!);
  return { runner: 'vitest', totals: totalsFrom(sumOf(counts, 'passed'), sumOf(counts, 'failed'), sumOf(counts, 'skipped', 'todo')), end: at };
};
