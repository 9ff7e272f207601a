/**
 * The project's tests as a step's report stands on them (issue 29, point 4),
 * for the bench: a git repository whose tests are `node --test` over 20
 * passing tests (`verify: node --test`), a flow whose one step, Refactor,
 * writes a report holding a test result, started, the report written as a
 * green run of those tests says. A copy of it answers `autopilot exec`
 * (the run, observed) then `autopilot done` (the report judged against it,
 * the step committed), once.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BenchFailure } from './harness.js';
import { filledTemplate } from '../test/helpers/templates.js';

export const VERIFY_TESTS = 20;

const FLOW = [
  '---',
  'id: tidy',
  'title: Tidy',
  'scan_order: 9',
  'description: One refactor step.',
  'detect:',
  '  any: ["{docs}/03_implementation"]',
  '---',
  '',
  '# Tidy',
  '',
  '## Step Reference Table',
  '',
  '| Step | Name | Runs | Skill | Sub-steps | Done when | Then |',
  '|---|---|---|---|---|---|---|',
  '| 1 | Refactor | always | `refactor` | 1 Hot spots · 2 Refactor under tests · 3 Report | `03_implementation/refactor_report.md` | end |',
  '',
].join('\n');

/** The repository at the Refactor step with its report written: what each sample copies. */
export function verifyProject(cli: string, dir: string): void {
  const put = (rel: string, text: string) => {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  };
  const sh = (command: string, args: string[]) => {
    const r = spawnSync(command, args, { cwd: dir, encoding: 'utf8', env: { ...process.env, AUTOPILOT_SESSION: 'bench' } });
    if (r.status !== 0) throw new BenchFailure(`verify: ${command} ${args.join(' ')} exited ${r.status}: ${r.stderr}${r.stdout}`);
  };
  mkdirSync(dir, { recursive: true });
  sh('git', ['init', '-q']);
  sh('git', ['config', 'user.name', 'Bench']);
  sh('git', ['config', 'user.email', 'bench@example.invalid']);
  sh('git', ['config', 'commit.gpgSign', 'false']);
  put('src/books.js', 'exports.add = (a, b) => a + b;\n');
  const tests = Array.from({ length: VERIFY_TESTS }, (_, i) => `test('adds ${i}', () => assert.equal(add(${i}, 1), ${i + 1}));`);
  put(
    'test/books.test.js',
    ["const test = require('node:test');", "const assert = require('node:assert');", "const { add } = require('../src/books.js');", ...tests, ''].join('\n'),
  );
  put('.autopilot/flows/tidy.md', FLOW);
  put('.autopilot/config.yml', 'verify: node --test\n');
  sh('git', ['add', '-A']);
  sh('git', ['commit', '-q', '-m', 'a project']);
  sh(process.execPath, [cli, 'init', '--flow', 'tidy']);
  sh('git', ['add', '-A']);
  sh('git', ['commit', '-q', '-m', 'Set up autopilot']);
  sh(process.execPath, [cli, 'next']);
  const report = filledTemplate('refactor', 'templates/refactor_report.md', 'refactor_report.md')
    .replace(/^Command: .*$/m, 'Command: node --test')
    .replace(/^Exit code: .*$/m, 'Exit code: 0')
    .replace(/^Totals: .*$/m, `Totals: ${VERIFY_TESTS} passed, 0 failed`);
  put('_docs/03_implementation/refactor_report.md', report);
}
