/**
 * The totals of a run read from the runner's own output (issue 29, point 4):
 * jest, mocha and go test, not installed here, from outputs written in the
 * shapes those tools document; TAP and JUnit XML from any producer. An output
 * with a summary autopilot does not read, or none, has no totals. The runners
 * installed here (node's test runner, vitest, pytest, cargo test) are run for
 * real in test/e2e/runner-totals.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { readTotals } from '../../../src/evidence/runners/index.js';

describe('runners not installed here, from outputs in the shapes they document', () => {
  it.each([
    [
      'jest',
      'PASS src/a.test.js\nFAIL src/b.test.js\n\nTest Suites: 1 failed, 1 passed, 2 total\nTests:       1 failed, 1 skipped, 1 todo, 12 passed, 15 total\nSnapshots:   0 total\nTime:        1.2 s\nRan all test suites.',
      { passed: 12, failed: 1, skipped: 2 },
    ],
    ['jest, all green', 'Test Suites: 3 passed, 3 total\nTests:       9 passed, 9 total\nSnapshots:   0 total', { passed: 9, failed: 0 }],
    [
      'mocha',
      '  books\n    ✔ adds a book\n    1) removes a book\n\n\n  12 passing (34ms)\n  2 pending\n  1 failing\n\n  1) books\n       removes a book:',
      { passed: 12, failed: 1, skipped: 2 },
    ],
    ['mocha, all green', '\n  3 passing (5ms)\n\n', { passed: 3, failed: 0 }],
    [
      'go test ./... (one line a package)',
      'ok  \texample.com/books\t0.012s\nFAIL\texample.com/shelf\t0.020s\nok  \texample.com/cli\t(cached)\n?   \texample.com/cmd\t[no test files]\nok  \texample.com/empty\t0.001s [no tests to run]\nFAIL',
      { passed: 2, failed: 1 },
    ],
    [
      'go test -v',
      '=== RUN   TestAdd\n--- PASS: TestAdd (0.00s)\n=== RUN   TestTable\n=== RUN   TestTable/a\n    --- PASS: TestTable/a (0.00s)\n--- PASS: TestTable (0.00s)\n=== RUN   TestSkip\n    a_test.go:9: later\n--- SKIP: TestSkip (0.00s)\n=== RUN   TestFail\n--- FAIL: TestFail (0.00s)\nFAIL\nFAIL\texample.com/books\t0.01s',
      { passed: 2, failed: 1, skipped: 1 },
    ],
    [
      'go test -json',
      [
        '{"Time":"2024-01-01T00:00:00Z","Action":"run","Package":"example.com/books","Test":"TestAdd"}',
        '{"Time":"2024-01-01T00:00:00Z","Action":"pass","Package":"example.com/books","Test":"TestAdd","Elapsed":0}',
        '{"Time":"2024-01-01T00:00:00Z","Action":"pass","Package":"example.com/books","Test":"TestTable/a","Elapsed":0}',
        '{"Time":"2024-01-01T00:00:00Z","Action":"pass","Package":"example.com/books","Test":"TestTable","Elapsed":0}',
        '{"Time":"2024-01-01T00:00:00Z","Action":"fail","Package":"example.com/books","Test":"TestFail","Elapsed":0}',
        '{"Time":"2024-01-01T00:00:00Z","Action":"fail","Package":"example.com/books","Elapsed":0.01}',
      ].join('\n'),
      { passed: 2, failed: 1 },
    ],
    [
      'TAP from any producer',
      'TAP version 13\n1..3\nok 1 - adds\nnot ok 2 - removes\n  ---\n  ...\nok 3 - later # SKIP not yet',
      { passed: 1, failed: 1, skipped: 1 },
    ],
    ['TAP that bailed out: the tests never run count as failed', '1..4\nok 1 - a\nBail out! database gone', { passed: 1, failed: 3 }],
    [
      'JUnit XML with nested suites (counted by their parent)',
      '<?xml version="1.0"?>\n<testsuites>\n<testsuite name="all" tests="5" failures="1" errors="1" skipped="1">\n<testsuite name="inner" tests="2" failures="1"/>\n</testsuite>\n</testsuites>',
      { passed: 2, failed: 2, skipped: 1 },
    ],
    ['pytest with errors and expected failures', '==== 3 passed, 1 error, 2 xfailed, 4 warnings in 0.10s ====', { passed: 3, failed: 1, skipped: 2 }],
    ['pytest that ran none', '============ no tests ran in 0.01s ============', { passed: 0, failed: 0 }],
  ])('%s', (_name, text, totals) => {
    expect(readTotals(text)?.totals).toEqual(totals);
  });

  it('where two runners print a summary, the one that ends last counts (a TAP stream node then sums up)', () => {
    const text = '1..2\nok 1 - a\nok 2 - b\n# tests 2\n# suites 0\n# pass 2\n# fail 0\n# cancelled 0\n# skipped 0\n# todo 0';
    expect(readTotals(text)).toMatchObject({ runner: 'node --test', totals: { passed: 2, failed: 0 } });
  });
});

describe('outputs with no totals autopilot reads: 5 of 5 read as none', () => {
  it.each([
    ['a build', 'built in 2s\n'],
    ['a green summary echoed by a script', '12 passed, 0 failed\n'],
    ['an echo that looks like the report line', 'Totals: 3 passed, 0 failed'],
    ['vitest finding no files', 'No test files found, exiting with code 1\n'],
    ['nothing at all', ''],
  ])('%s', (_name, text) => {
    expect(readTotals(text)).toBeUndefined();
  });
});
