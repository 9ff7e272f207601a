/**
 * TAP (the Test Anything Protocol, any producer: `vitest --reporter=tap`,
 * node's TAP reporter, `tape`, `prove`): the plan `1..N` and a line a test,
 * `ok 3 - name` or `not ok 4 - name`, a `# SKIP` or `# TODO` directive
 * counting it as skipped. Subtests are indented under their parent; only the
 * leaves count (a parent's line only sums up its children), whether the
 * producer prints the children after the parent's line (vitest) or before it
 * (node, after a `# Subtest:` comment). A `Bail out!` counts the outer tests
 * never run as failed.
 */
import { totalsFrom, type Reader } from './read.js';

const PLAN = /^(\s*)1\.\.(\d+)\b/;
const TEST = /^(\s*)(not )?ok\b(?:\s+\d+)?[^#]*(?:#\s*(skip|todo)\S*)?/i;

interface TapLine {
  at: number;
  indent: number;
  plan?: number;
  result?: 'passed' | 'failed' | 'skipped';
}

function tapLines(lines: readonly string[]): TapLine[] {
  const out: TapLine[] = [];
  lines.forEach((line, at) => {
    const plan = PLAN.exec(line);
    if (plan) return out.push({ at, indent: plan[1]!.length, plan: Number(plan[2]) });
    const test = TEST.exec(line);
    if (test) out.push({ at, indent: test[1]!.length, result: test[3] ? 'skipped' : test[2] ? 'failed' : 'passed' });
  });
  return out;
}

export const tap: Reader = (lines) => {
  const tapped = tapLines(lines);
  const outerPlan = tapped.findLast((l) => l.plan !== undefined && l.indent === 0);
  if (!outerPlan) return undefined;
  const deeper = (i: number, j: number) => j >= 0 && j < tapped.length && tapped[j]!.indent > tapped[i]!.indent;
  // Children after their parent (vitest) or before it (node): one style a stream.
  const after = tapped.some((l, i) => l.result && deeper(i, i + 1));
  const counts = { passed: 0, failed: 0, skipped: 0 };
  let outer = 0;
  tapped.forEach((l, i) => {
    if (!l.result) return;
    if (l.indent === 0) outer++;
    if (!(after ? deeper(i, i + 1) : deeper(i, i - 1))) counts[l.result]++;
  });
  if (outer === 0 && outerPlan.plan! > 0) return undefined;
  const missing = Math.max(0, outerPlan.plan! - outer);
  return { runner: 'TAP', totals: totalsFrom(counts.passed, counts.failed + missing, counts.skipped), end: tapped.at(-1)!.at };
};
