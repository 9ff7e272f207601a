/**
 * JUnit XML, as a runner prints it (`vitest --reporter=junit`, `pytest
 * --junitxml=/dev/stdout`, `node --test --test-reporter=junit`, jest-junit):
 * the outermost `<testsuite>` elements' `tests`, `failures`, `errors` and
 * `skipped` attributes, summed (nested suites are counted by their parent);
 * where no suite carries them, the `<testsuites>` element's; where neither
 * does, the `<testcase>` elements themselves, one with a `<failure>` or
 * `<error>` failed, one with `<skipped>` skipped. Read with a scan of the
 * tags, not an XML parser: the output is only counted, never trusted further.
 */
import { totalsFrom, type Reader, type RunnerTotals } from './read.js';

const TAG = /<(\/?)(testsuites|testsuite|testcase|failure|error|skipped)\b([^>]*?)(\/?)>/g;

const attribute = (attrs: string, name: string): number | undefined => {
  const m = new RegExp(`\\b${name}\\s*=\\s*["'](\\d+)["']`).exec(attrs);
  return m ? Number(m[1]) : undefined;
};

export const junit: Reader = (lines) => {
  const text = lines.join('\n');
  if (!/<testsuites?\b/.test(text)) return undefined;
  const suites = { tests: 0, failed: 0, skipped: 0, seen: false };
  let outer: { tests: number; failed: number; skipped: number } | undefined;
  const cases = { passed: 0, failed: 0, skipped: 0 };
  let depth = 0;
  let current: 'passed' | 'failed' | 'skipped' | undefined;
  let endAt = -1;
  for (const m of text.matchAll(TAG)) {
    const [, close, name, attrs = '', selfClosing] = m;
    endAt = m.index + m[0].length;
    if (name === 'testsuites' && !close) {
      const tests = attribute(attrs, 'tests');
      if (tests !== undefined)
        outer = { tests, failed: (attribute(attrs, 'failures') ?? 0) + (attribute(attrs, 'errors') ?? 0), skipped: attribute(attrs, 'skipped') ?? 0 };
    } else if (name === 'testsuite') {
      if (close) depth--;
      else {
        const tests = attribute(attrs, 'tests');
        if (depth === 0 && tests !== undefined) {
          suites.seen = true;
          suites.tests += tests;
          suites.failed += (attribute(attrs, 'failures') ?? 0) + (attribute(attrs, 'errors') ?? 0);
          suites.skipped += attribute(attrs, 'skipped') ?? 0;
        }
        if (!selfClosing) depth++;
      }
    } else if (name === 'testcase') {
      if (close || selfClosing) {
        cases[current ?? 'passed']++;
        current = undefined;
      } else current = 'passed';
    } else if (current && !close) {
      if (name === 'skipped') current = 'skipped';
      else if (current !== 'skipped') current = 'failed';
    }
  }
  const end = text.slice(0, endAt).split('\n').length - 1;
  const read = (t: { tests: number; failed: number; skipped: number }): RunnerTotals => ({
    runner: 'JUnit XML',
    totals: totalsFrom(Math.max(0, t.tests - t.failed - t.skipped), t.failed, t.skipped),
    end,
  });
  if (suites.seen) return read(suites);
  if (outer) return read(outer);
  const counted = cases.passed + cases.failed + cases.skipped;
  return counted > 0 ? { runner: 'JUnit XML', totals: totalsFrom(cases.passed, cases.failed, cases.skipped), end } : undefined;
};
