/**
 * jest's summary: `Tests:       7 failed, 2 skipped, 1 todo, 12 passed, 22 total`
 * (after `Test Suites:`, which counts files). A todo counts as skipped.
 */
import { countsByWord, lastIndex, sumOf, totalsFrom, type Reader } from './read.js';

const TESTS = /^\s*Tests:\s+(.*\b\d+\s+total)\s*$/;

export const jest: Reader = (lines) => {
  const at = lastIndex(lines, (l) => TESTS.test(l));
  if (at < 0) return undefined;
  const counts = countsByWord(TESTS.exec(lines[at]!)![1]!);
  return { runner: 'jest', totals: totalsFrom(sumOf(counts, 'passed'), sumOf(counts, 'failed'), sumOf(counts, 'skipped', 'todo', 'pending')), end: at };
};
