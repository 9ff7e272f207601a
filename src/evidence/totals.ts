/**
 * Totals as a report writes them, on its `Totals:` line: `12 passed, 7
 * failed` (and `, 1 skipped`), read back and written out. What a run's output
 * says is the runners' readers' (`runners/`). Pure.
 */
import type { Totals } from './types.js';

const COUNT = /(\d+)\s+(passed|passing|failed|failing|failures?|errors?|skipped|pending|todo)\b/gi;

/** The counts a line names, when it names a number passed or failed. */
export function countsIn(line: string): Totals | undefined {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let named = false;
  for (const m of line.matchAll(COUNT)) {
    const n = Number(m[1]);
    const word = m[2]!.toLowerCase();
    if (word === 'passed' || word === 'passing') {
      passed += n;
      named = true;
    } else if (word === 'skipped' || word === 'pending' || word === 'todo') skipped += n;
    else {
      failed += n;
      named = true;
    }
  }
  if (!named) return undefined;
  return { passed, failed, ...(skipped > 0 ? { skipped } : {}) };
}

/** Totals as a report writes them: `12 passed, 7 failed` (and `, 1 skipped` when some were). */
export function totalsText(t: Totals): string {
  return `${t.passed} passed, ${t.failed} failed${t.skipped ? `, ${t.skipped} skipped` : ''}`;
}
