/**
 * The totals of a test run, read from its output's closing lines, and from
 * a report's `Totals:` line. Known closing lines, the last one found wins:
 * - vitest `Tests  12 passed | 7 failed (19)`, jest `Tests: 7 failed, 12 passed, 19 total`;
 * - pytest `==== 12 passed, 7 failed, 1 skipped in 0.52s ====`;
 * - the plain `12 passed, 7 failed` (what a report's `Totals:` holds);
 * - go test: its package lines, `ok  	pkg	0.01s` and `FAIL	pkg	0.01s`, one a package.
 * Colour codes are removed first. Pure.
 */
import type { Totals } from './types.js';

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;
const COUNT = /(\d+)\s+(passed|passing|failed|failing|failures?|errors?|skipped|pending|todo)\b/gi;
/** Lines that count files or suites, not tests: vitest's `Test Files`, jest's `Test Suites`. */
const NOT_TESTS = /^\s*Test (Files|Suites)\b/i;
const GO_PACKAGE = /^(ok|FAIL)\s+\S+\s+(\d[\d.]*s|\(cached\))/;

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

/** The totals a command's output closes with; undefined when it names none this knows. */
export function totalsOf(output: string): Totals | undefined {
  const lines = output.replace(ANSI, '').split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (NOT_TESTS.test(line)) continue;
    const counts = countsIn(line);
    if (counts) return counts;
  }
  let ok = 0;
  let fail = 0;
  for (const line of lines) {
    const m = GO_PACKAGE.exec(line);
    if (m?.[1] === 'ok') ok++;
    else if (m) fail++;
  }
  return ok + fail > 0 ? { passed: ok, failed: fail } : undefined;
}

/** Totals as a report writes them: `12 passed, 7 failed` (and `, 1 skipped` when some were). */
export function totalsText(t: Totals): string {
  return `${t.passed} passed, ${t.failed} failed${t.skipped ? `, ${t.skipped} skipped` : ''}`;
}
