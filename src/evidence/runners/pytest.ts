/**
 * pytest's last line: `==== 1 failed, 2 passed, 1 skipped in 0.89s ====`
 * (`-q` drops the rules: `1 failed, 2 passed in 0.69s`), `no tests ran in
 * 0.01s` when none did. An error (a test that could not be set up or
 * collected) counts as failed, as does an unexpected pass of a test marked to
 * fail (`xpassed` under `strict`, which pytest already counts as failed); an
 * expected failure (`xfailed`) counts as skipped.
 */
import { countsByWord, lastIndex, sumOf, totalsFrom, type Reader } from './read.js';

const SUMMARY = /^=*\s*((?:\d+ [a-z]+(?:, )?)+|no tests ran) in \d+(?:\.\d+)?s\b.*?=*\s*$/;

export const pytest: Reader = (lines) => {
  const at = lastIndex(lines, (l) => SUMMARY.test(l));
  if (at < 0) return undefined;
  const counts = countsByWord(SUMMARY.exec(lines[at]!)![1]!);
  const passed = sumOf(counts, 'passed', 'xpassed');
  const failed = sumOf(counts, 'failed', 'error', 'errors');
  return { runner: 'pytest', totals: totalsFrom(passed, failed, sumOf(counts, 'skipped', 'xfailed')), end: at };
};
