/**
 * `go test`: with `-json`, one event a line (`{"Action":"pass","Test":"TestX",…}`);
 * with `-v`, a line a test (`--- PASS: TestX (0.00s)`, after its `=== RUN`;
 * subtests are indented and not counted again); without either, one line a package: `ok  pkg 0.01s`
 * or `FAIL pkg 0.02s`, so the totals count packages (`[no tests to run]` and
 * `[no test files]` count none).
 */
import { totalsFrom, type Reader } from './read.js';

const JSON_EVENT = /^\{.*"Action":"(pass|fail|skip)".*"Test":"([^"/]+)"/;
const VERBOSE = /^--- (PASS|FAIL|SKIP): /;
const PACKAGE = /^(ok|FAIL)\s+\S+\s+(?:\d[\d.]*s|\(cached\))(.*)$/;

export const goTest: Reader = (lines) => {
  const c = { pass: 0, fail: 0, skip: 0 };
  let end = -1;
  const add = (kind: 'pass' | 'fail' | 'skip', i: number) => {
    c[kind]++;
    end = i;
  };
  // Without -v a failing test still prints its `--- FAIL:` line: a line a test only where `=== RUN` says every test was named.
  const verbose = lines.some((line) => line.startsWith('=== RUN'));
  lines.forEach((line, i) => {
    const json = JSON_EVENT.exec(line);
    if (json) return add(json[1] as 'pass' | 'fail' | 'skip', i);
    const test = verbose ? VERBOSE.exec(line) : null;
    if (test) return add(test[1]!.toLowerCase() as 'pass' | 'fail' | 'skip', i);
  });
  if (end >= 0) return { runner: 'go test', totals: totalsFrom(c.pass, c.fail, c.skip), end };
  lines.forEach((line, i) => {
    const m = PACKAGE.exec(line);
    if (!m) return;
    end = i;
    if (m[1] === 'FAIL') c.fail++;
    else if (!/\[no tests to run\]/.test(m[2]!)) c.pass++;
  });
  return end < 0 ? undefined : { runner: 'go test (one a package)', totals: totalsFrom(c.pass, c.fail), end };
};
