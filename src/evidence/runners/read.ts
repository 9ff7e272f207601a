/**
 * What every runner's reader shares: the shape of what it reads out of a
 * run's output (the runner, its totals, the line its summary ends on) and
 * the helpers they use. A reader is a pure function of the output's lines,
 * colour codes already removed.
 */
import type { Totals } from '../types.js';

/** A runner's totals as one reader found them, and the line (0-based) its summary ends on: the latest summary wins. */
export interface RunnerTotals {
  runner: string;
  totals: Totals;
  end: number;
}

/** One runner family's reader: the output's lines → its totals, or undefined when the output holds no summary of its. */
export type Reader = (lines: readonly string[]) => RunnerTotals | undefined;

/** Totals from counts, `skipped` left out when none were. */
export function totalsFrom(passed: number, failed: number, skipped = 0): Totals {
  return skipped > 0 ? { passed, failed, skipped } : { passed, failed };
}

/** The last index in `lines` at which `test` holds, or -1. */
export function lastIndex(lines: readonly string[], test: (line: string) => boolean, before = lines.length): number {
  for (let i = Math.min(before, lines.length) - 1; i >= 0; i--) if (test(lines[i]!)) return i;
  return -1;
}

/** `n word` pairs of a summary line (`3 passed, 1 failed`), each word lower-cased, counts summed by word. */
export function countsByWord(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const m of text.matchAll(/(\d+)\s+([a-z]+)/gi)) {
    const word = m[2]!.toLowerCase();
    counts.set(word, (counts.get(word) ?? 0) + Number(m[1]));
  }
  return counts;
}

/** The sum of the counts of the given words. */
export const sumOf = (counts: Map<string, number>, ...words: string[]) => words.reduce((n, w) => n + (counts.get(w) ?? 0), 0);
