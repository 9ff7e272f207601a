/**
 * `cargo test` runs one test binary after another (the unit tests, each
 * file under `tests/`, the doc-tests), each closing with `test result: ok.
 * 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; …`: the run's
 * totals are their sum. An ignored test counts as skipped.
 */
import { totalsFrom, type Reader } from './read.js';

const RESULT = /^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored;/;

export const cargo: Reader = (lines) => {
  let passed = 0;
  let failed = 0;
  let ignored = 0;
  let end = -1;
  lines.forEach((line, i) => {
    const m = RESULT.exec(line);
    if (!m) return;
    passed += Number(m[1]);
    failed += Number(m[2]);
    ignored += Number(m[3]);
    end = i;
  });
  return end < 0 ? undefined : { runner: 'cargo test', totals: totalsFrom(passed, failed, ignored), end };
};
