/**
 * The totals of a run read from the runner's own output (issue 29, point 4),
 * for the runners installed here: node's test runner, vitest, pytest and
 * cargo test are run for real on a small suite of four tests (2 pass, 1
 * skipped, 1 fails: node and pytest; vitest adds a todo). Real child
 * processes of other tools, seconds each, so an end-to-end test; the shapes
 * of the runners not installed here are read in
 * test/unit/evidence/runner-totals.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTotals } from '../../src/evidence/runners/index.js';
import { ROOT } from '../helpers/engine.js';

const folder = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));
/** stdout and stderr as `autopilot exec` keeps them: both, in one stream. */
const output = (command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) => {
  const run = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120_000 });
  return `${run.stdout}\n${run.stderr}`;
};
const has = (bin: string) => spawnSync(bin, ['--version'], { encoding: 'utf8' }).status === 0;

describe('real runners, run here: 2 passed, 1 failed, 1 skipped read from each', () => {
  const node = () => {
    const dir = folder('autopilot-node-test-');
    mkdirSync(join(dir, 'test'));
    writeFileSync(
      join(dir, 'test', 'a.test.js'),
      [
        "const test = require('node:test');",
        "const assert = require('node:assert');",
        "test('one', () => assert.ok(true));",
        "test('two', () => assert.ok(true));",
        "test('skipped', { skip: true }, () => {});",
        "test('fails', () => assert.equal(1, 2));",
      ].join('\n'),
    );
    return dir;
  };

  it.each(['spec', 'tap', 'junit'])('node --test --test-reporter=%s: 2 passed, 1 failed, 1 skipped', (reporter) => {
    const read = readTotals(output(process.execPath, ['--test', `--test-reporter=${reporter}`], node()));
    expect(read?.totals).toEqual({ passed: 2, failed: 1, skipped: 1 });
  });

  it('node --test --test-reporter=dot prints no summary: no totals', () => {
    expect(readTotals(output(process.execPath, ['--test', '--test-reporter=dot'], node()))).toBeUndefined();
  });

  it('node --test with no tests: 0 passed, 0 failed (a run of none)', () => {
    const dir = folder('autopilot-node-none-');
    expect(readTotals(output(process.execPath, ['--test'], dir))?.totals).toEqual({ passed: 0, failed: 0 });
  });

  const vitestSuite = () => {
    const dir = folder('autopilot-vitest-');
    writeFileSync(
      join(dir, 'a.test.mjs'),
      [
        "import { test, expect } from 'vitest';",
        "test('one', () => expect(1).toBe(1));",
        "test('two', () => expect(1).toBe(1));",
        "test.skip('skipped', () => {});",
        "test('fails', () => expect(1).toBe(2));",
      ].join('\n'),
    );
    return dir;
  };

  it.each([['default'], ['junit'], ['tap'], ['tap-flat'], ['verbose']])(
    'vitest run --reporter=%s: 2 passed, 1 failed, 1 skipped',
    (reporter) => {
      const dir = vitestSuite();
      const read = readTotals(
        output(join(ROOT, 'node_modules', '.bin', 'vitest'), ['run', '--root', dir, `--reporter=${reporter}`], dir, { FORCE_COLOR: '1' }),
      );
      expect(read?.totals).toEqual({ passed: 2, failed: 1, skipped: 1 });
    },
    60_000,
  );

  it.skipIf(!has('pytest'))(
    'pytest, pytest -q and the JUnit XML pytest --junitxml writes: 2 passed, 1 failed, 1 skipped',
    () => {
      const dir = folder('autopilot-pytest-');
      writeFileSync(
        join(dir, 'test_a.py'),
        [
          'import pytest',
          'def test_one(): assert True',
          'def test_two(): assert True',
          '@pytest.mark.skip',
          'def test_skipped(): pass',
          'def test_fails(): assert 1 == 2',
          '',
        ].join('\n'),
      );
      const env = { PYTHONDONTWRITEBYTECODE: '1' };
      for (const args of [
        ['-p', 'no:cacheprovider'],
        ['-q', '-p', 'no:cacheprovider'],
      ])
        expect(readTotals(output('pytest', args, dir, env))?.totals, args.join(' ')).toEqual({ passed: 2, failed: 1, skipped: 1 });
      output('pytest', ['-q', '-p', 'no:cacheprovider', `--junitxml=${join(dir, 'junit.xml')}`], dir, env);
      expect(readTotals(readFileSync(join(dir, 'junit.xml'), 'utf8'))).toMatchObject({ runner: 'JUnit XML', totals: { passed: 2, failed: 1, skipped: 1 } });
    },
    60_000,
  );

  it.skipIf(!has('cargo'))(
    'cargo test: the unit tests, an integration test file and the doc-tests summed (3 binaries: 3 passed, 1 failed, 1 ignored)',
    () => {
      const dir = folder('autopilot-cargo-');
      writeFileSync(join(dir, 'Cargo.toml'), '[package]\nname = "totals"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n');
      mkdirSync(join(dir, 'src'));
      mkdirSync(join(dir, 'tests'));
      writeFileSync(
        join(dir, 'src', 'lib.rs'),
        [
          '/// ```',
          '/// assert_eq!(totals::add(1, 1), 2);',
          '/// ```',
          'pub fn add(a: i32, b: i32) -> i32 { a + b }',
          '#[cfg(test)]',
          'mod tests {',
          '    #[test] fn one() { assert_eq!(super::add(1, 1), 2); }',
          '    #[test] #[ignore] fn ignored() {}',
          '    #[test] fn fails() { assert_eq!(super::add(1, 1), 3); }',
          '}',
          '',
        ].join('\n'),
      );
      writeFileSync(join(dir, 'tests', 'it.rs'), '#[test] fn integration() { assert_eq!(totals::add(2, 2), 4); }\n');
      // --no-fail-fast: the binaries after the failing one still run, so all three summaries are there.
      const read = readTotals(output('cargo', ['test', '--offline', '--no-fail-fast'], dir, { CARGO_TARGET_DIR: join(dir, 'target') }));
      expect(read).toMatchObject({ runner: 'cargo test', totals: { passed: 3, failed: 1, skipped: 1 } });
    },
    120_000,
  );
});
