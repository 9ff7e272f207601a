/**
 * The tests are the project's tests, and autopilot saw them run (issue 29,
 * point 4), through the built CLI in real git repositories whose test command
 * is real (`node --test`, behind `npm test`): `init` finds it and writes it as
 * `verify:`, the run pins it with what it runs, and a report's Result counts
 * only a run of it that `autopilot exec` observed in this attempt, exit 0, at
 * least one test, its totals read from the runner's own summary, nothing
 * outside the docs folder changed since it began. Each attack an agent has
 * (a run of another command, a script that echoes a green summary, a test
 * command edited to one, a run of no test, numbers or a command the run did
 * not give, code changed after the run) is refused; a person's word
 * (`repin`, `--accept-failures`) is what moves past them.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autopilot, autopilotWith, read, tempRepo, type Run } from '../helpers/cli.js';
import { commit, git, newRepo, write } from '../helpers/git.js';
import { filledTemplate } from '../helpers/templates.js';

const REPORT = '_docs/03_implementation/refactor_report.md';
const PASSING =
  "const test = require('node:test');\nconst assert = require('node:assert');\ntest('adds', () => assert.equal(require('../src/books.js').add(1, 2), 3));\n";
const FAILING =
  "const test = require('node:test');\nconst assert = require('node:assert');\ntest('adds', () => assert.equal(require('../src/books.js').add(1, 2), 4));\n";

/** A flow of two steps whose first, Refactor, writes a report that holds a test result. */
const TIDY = [
  '---',
  'id: tidy',
  'title: Tidy',
  'scan_order: 9',
  'description: One refactor step, then notes.',
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
  '| 1 | Refactor | always | `refactor` | 1 Hot spots · 2 Refactor under tests · 3 Report | `03_implementation/refactor_report.md` | next |',
  '| 2 | Notes | always | `update-docs` | 1 Notes | `02_document/changes/notes.md` | end |',
  '',
].join('\n');

/** npm's own chatter (an update notice) would only slow the runs down. */
const QUIET = { npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };

/**
 * A project with a first commit: `npm test` runs `node --test` over one
 * passing test, git ignores `coverage/`; `autopilot init --flow tidy`
 * run and committed, and step 1 (Refactor) started.
 */
function project(scripts: Record<string, string> = { test: 'node --test' }, tests: Record<string, string> = { 'test/books.test.js': PASSING }): string {
  const dir = newRepo();
  commit(dir, 'a project', {
    'package.json': `${JSON.stringify({ name: 'books', private: true, scripts }, null, 2)}\n`,
    'src/books.js': 'exports.add = (a, b) => a + b;\n',
    '.gitignore': 'node_modules/\ncoverage/\n',
    '.autopilot/flows/tidy.md': TIDY,
    ...tests,
  });
  const init = autopilot(dir, 'init', '--flow', 'tidy');
  expect(init.code, init.stdout + init.stderr).toBe(0);
  git(dir, 'add', '-A');
  commit(dir, 'Set up autopilot');
  expect(autopilot(dir, 'next').code).toBe(0);
  return dir;
}

const exec = (dir: string, ...words: string[]): Run =>
  words.length === 0 ? autopilotWith(QUIET, dir, 'exec') : autopilotWith(QUIET, dir, 'exec', '--', ...words);

/** The refactor report, its template filled, its Result as given. */
function writeReport(dir: string, result: { command: string; exit: string; totals: string }): void {
  const text = filledTemplate('refactor', 'templates/refactor_report.md', REPORT)
    .replace(/^Command: .*$/m, `Command: ${result.command}`)
    .replace(/^Exit code: .*$/m, `Exit code: ${result.exit}`)
    .replace(/^Totals: .*$/m, `Totals: ${result.totals}`);
  write(dir, REPORT, text);
}

const HONEST = { command: 'npm test', exit: '0', totals: '1 passed, 0 failed' };

/** `done` and what it says; the step is completed only on exit 0. */
function done(dir: string, ...args: string[]): { code: number; said: string; completed: boolean } {
  const run = autopilot(dir, 'done', ...args);
  const completed = read(dir, '_docs/_autopilot/journal.jsonl').includes('"event":"step_completed"');
  return { code: run.code, said: run.stdout + run.stderr, completed };
}

describe('init finds the project’s test command', () => {
  const kinds: [string, Record<string, string>, string][] = [
    ['package.json scripts.test', { 'package.json': JSON.stringify({ scripts: { test: 'vitest run' } }) }, 'npm test'],
    ['pytest', { 'pyproject.toml': '[project]\nname = "p"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n' }, 'pytest'],
    ['go', { 'go.mod': 'module example.com/p\n\ngo 1.22\n' }, 'go test ./...'],
    ['cargo', { 'Cargo.toml': '[package]\nname = "p"\nversion = "0.1.0"\n' }, 'cargo test'],
    ['make', { Makefile: 'test:\n\t./run-tests\n' }, 'make test'],
  ];

  it(`in ${kinds.length} kinds of project, writes it as verify: and says where it found it (text and --json): ${kinds.length} of ${kinds.length}`, () => {
    for (const [kind, files, command] of kinds) {
      const dir = tempRepo();
      for (const [path, text] of Object.entries(files)) write(dir, path, text);
      const json = autopilot(dir, 'init', '--json');
      expect(json.code, kind).toBe(0);
      expect(json.json<{ verify: { command: string; found_in: string } }>().verify, kind).toMatchObject({ command, found_in: expect.any(String) });
      expect(read(dir, '.autopilot/config.yml'), kind).toMatch(new RegExp(`^verify: ${command.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
      // Again: the line is kept, and the text says which command the reports are held to.
      const again = autopilot(dir, 'init');
      expect(again.stdout, kind).toContain(`Tests:   \`${command}\` (verify: in .autopilot/config.yml)`);
    }
  });

  it('a new project with none: said, a placeholder written, filled in by a later init once the project has one', () => {
    const dir = tempRepo();
    const first = autopilot(dir, 'init');
    expect(first.stdout).toContain('Tests:   none found yet');
    expect(read(dir, '.autopilot/config.yml')).toContain('# verify: <command>');
    write(dir, 'package.json', JSON.stringify({ scripts: { test: 'node --test' } }));
    const second = autopilot(dir, 'init', '--json');
    expect(second.json<{ verify: unknown }>().verify).toEqual({ command: 'npm test', found_in: "package.json's scripts.test" });
    expect(read(dir, '.autopilot/config.yml')).not.toContain('# verify: <command>');
    // uninstall takes the block out again: the settings held nothing else of a person's, so they go.
    expect(autopilot(dir, 'uninstall').code).toBe(0);
    expect(existsSync(join(dir, '.autopilot/config.yml'))).toBe(false);
  });
});

describe('a report’s Result counts only a run of the project’s tests that autopilot saw', () => {
  it('the honest walk: `autopilot exec` runs npm test, the report copies its lines, done completes the step (1 of 1)', () => {
    const dir = project();
    const run = exec(dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("the project's tests, totals read from node --test's summary");
    // The run's own output is passed on, on stderr (through a file of the cache: a sandbox can lose a pipe's).
    expect(run.stderr).toMatch(/^# pass 1$/m);
    expect(run.stdout).toContain('Command: npm test\nExit code: 0\nTotals: 1 passed, 0 failed');
    writeReport(dir, HONEST);
    const result = done(dir);
    expect(result.code, result.said).toBe(0);
    expect(result.completed).toBe(true);
  });

  it('`autopilot exec -- true` and a report claiming 3 passed while the project’s tests fail: refused, 0 of 2 reports complete the step', () => {
    const dir = project({ test: 'node --test' }, { 'test/books.test.js': FAILING });
    expect(exec(dir, 'true').code).toBe(0);
    const said: string[] = [];
    for (const command of ['true', 'npm test']) {
      writeReport(dir, { command, exit: '0', totals: '3 passed, 0 failed' });
      const result = done(dir);
      expect(result.code).toBe(2);
      expect(result.completed).toBe(false);
      said.push(result.said);
    }
    for (const text of said)
      expect(text).toContain("autopilot saw no run of the project's tests (`npm test`) in this attempt of the step (it ran `true`, which is not)");
  });

  it('a script that echoes a green summary, run in place of the tests: refused; 0 of 1', () => {
    const dir = project({ test: 'node --test' }, { 'test/books.test.js': FAILING });
    write(dir, 'green.sh', 'echo "# tests 3"; echo "# pass 3"; echo "# fail 0"\n');
    const run = exec(dir, 'sh', 'green.sh');
    // The echo is read as a summary, but it is not the project's tests.
    expect(run.stdout).toContain("not the project's tests (`npm test`)");
    writeReport(dir, { command: 'sh green.sh', exit: '0', totals: '3 passed, 0 failed' });
    const result = done(dir);
    expect(result.code).toBe(2);
    expect(result.said).toContain("autopilot saw no run of the project's tests (`npm test`)");
  });

  it('the test script edited to echo a green summary: exec and done refused naming the change, until a person’s repin (2 refused, then 1 adopted)', () => {
    const dir = project();
    write(
      dir,
      'package.json',
      `${JSON.stringify({ name: 'books', private: true, scripts: { test: 'echo "# tests 3" && echo "# pass 3" && echo "# fail 0"' } })}\n`,
    );
    const run = exec(dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('what `npm test` runs changed since the run pinned it: package.json scripts.test changed');
    writeReport(dir, { command: 'npm test', exit: '0', totals: '3 passed, 0 failed' });
    const refused = done(dir);
    expect(refused.code).toBe(2);
    expect(refused.said).toContain('what `npm test` runs changed since the run pinned it (package.json scripts.test changed)');
    // A person adopts it: their word, journaled.
    const repin = autopilot(dir, 'repin', '--json');
    expect(repin.code, repin.stderr).toBe(0);
    expect(repin.json<{ changes: string[] }>().changes).toEqual(["the project's tests: `npm test` as it is now (package.json scripts.test changed)"]);
    expect(exec(dir).code).toBe(0);
    expect(done(dir).code).toBe(0);
  });

  it('the settings naming another command mid-run: the run keeps its pinned one until a person repins (exec runs npm test, not the edit)', () => {
    const dir = project();
    const config = read(dir, '.autopilot/config.yml').replace(/^verify: .*$/m, 'verify: echo "# tests 9" && echo "# pass 9" && echo "# fail 0"');
    write(dir, '.autopilot/config.yml', config);
    git(dir, 'add', '-A');
    commit(dir, 'an edit of the settings');
    const run = exec(dir);
    expect(run.stdout).toContain('Command: npm test\nExit code: 0\nTotals: 1 passed, 0 failed');
  });

  it('numbers and a command the run did not give: 2 reports refused, each naming both', () => {
    const dir = project();
    expect(exec(dir).code).toBe(0);
    writeReport(dir, { command: 'npm test', exit: '0', totals: '3 passed, 0 failed' });
    const numbers = done(dir);
    expect(numbers.code).toBe(2);
    expect(numbers.said).toMatch(/the report says 3 passed, 0 failed; the run autopilot saw \(journal event \d+\) says 1 passed, 0 failed/);
    writeReport(dir, { command: 'npx vitest run', exit: '0', totals: '1 passed, 0 failed' });
    const command = done(dir);
    expect(command.code).toBe(2);
    expect(command.said).toMatch(
      /the report says the command was `npx vitest run`; the project's tests are `npm test`, and that is the run autopilot saw \(journal event \d+\)/,
    );
    expect(command.completed).toBe(false);
  });

  it('a run of zero tests is not green: refused; a person accepting it is journaled (1 refused, 1 accepted)', () => {
    const dir = project({ test: 'node --test' }, {});
    const run = exec(dir);
    expect(run.code).toBe(0);
    writeReport(dir, { command: 'npm test', exit: '0', totals: '0 passed, 0 failed' });
    const refused = done(dir);
    expect(refused.code).toBe(2);
    expect(refused.said).toContain('`npm test` ran no test');
    const accepted = done(dir, '--accept-failures', '--reason', 'the suite is written in the next step');
    expect(accepted.code, accepted.said).toBe(0);
    expect(read(dir, '_docs/_autopilot/journal.jsonl')).toMatch(/"event":"step_completed".*"accepted_failures":true/);
  });

  it('an output with no totals autopilot reads: refused naming the runners it reads; a person may accept it', () => {
    const dir = project({ test: 'node --test --test-reporter=dot' });
    const run = exec(dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Totals: (none: autopilot reads the summary of node --test');
    writeReport(dir, { command: 'npm test', exit: '0', totals: '1 passed, 0 failed' });
    const refused = done(dir);
    expect(refused.code).toBe(2);
    expect(refused.said).toContain('autopilot read no totals in the output of `npm test`');
    expect(refused.said).toContain('vitest, jest, mocha, pytest, go test, cargo test');
    expect(done(dir, '--accept-failures', '--reason', 'the dot reporter is the team’s choice').code).toBe(0);
  });

  it('a tracked file changed after the run began: refused naming it; what git ignores and the docs folder do not count (1 refused, 1 accepted)', () => {
    const dir = project();
    expect(exec(dir).code).toBe(0);
    writeReport(dir, HONEST);
    writeFileSync(join(dir, 'src/books.js'), 'exports.add = (a, b) => a - b;\n');
    const refused = done(dir);
    expect(refused.code).toBe(2);
    expect(refused.said).toMatch(/`src\/books\.js` changed after the run autopilot saw \(journal event \d+\) began/);
    // Put back, and what the runner writes and git ignores (coverage/) after the run: the run stands.
    writeFileSync(join(dir, 'src/books.js'), 'exports.add = (a, b) => a + b;\n');
    write(dir, 'coverage/lcov.info', 'TN:\n');
    const accepted = done(dir);
    expect(accepted.code, accepted.said).toBe(0);
  });

  it('an untracked file outside the docs folder written after the run counts as a change too (1 refused)', () => {
    const dir = project();
    expect(exec(dir).code).toBe(0);
    writeReport(dir, HONEST);
    write(dir, 'src/shelf.js', 'exports.shelf = [];\n');
    const refused = done(dir);
    expect(refused.code).toBe(2);
    expect(refused.said).toContain('`src/shelf.js` changed after the run');
  });
});

describe('a project with no test command: a person names it', () => {
  /** A greenfield-like project: no package.json, no test command anywhere. */
  function bare(): string {
    const dir = newRepo();
    commit(dir, 'a project', { 'README.md': 'books\n', '.autopilot/flows/tidy.md': TIDY });
    expect(autopilot(dir, 'init', '--flow', 'tidy').code).toBe(0);
    git(dir, 'add', '-A');
    commit(dir, 'Set up autopilot');
    // The step starts; its report needs a run of the tests, and none is known: the person is to be asked.
    const next = autopilot(dir, 'next', '--json');
    expect(next.code).toBe(0);
    expect(next.json<{ notices: string[] }>().notices).toEqual([expect.stringContaining('ask the person to name it, `autopilot repin --verify "<command>"`')]);
    return dir;
  }

  it('next, exec and done say to ask the person; `repin --verify` names the command, written to the settings and pinned (3 asked, then 1 completed)', () => {
    const dir = bare();
    const run = exec(dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Ask the person to name it: `autopilot repin --verify "<command>"`');
    writeReport(dir, HONEST);
    const asked = done(dir);
    expect(asked.code).toBe(2);
    expect(asked.said).toContain('autopilot knows no test command for this project');
    write(dir, 'package.json', `${JSON.stringify({ name: 'books', private: true, scripts: { test: 'node --test' } })}\n`);
    write(dir, 'src/books.js', 'exports.add = (a, b) => a + b;\n');
    write(dir, 'test/books.test.js', PASSING);
    const named = autopilot(dir, 'repin', '--verify', 'npm test');
    expect(named.code, named.stderr).toBe(0);
    expect(read(dir, '.autopilot/config.yml')).toMatch(/^verify: npm test$/m);
    expect(read(dir, '_docs/_autopilot/journal.jsonl')).toMatch(/"actor":"person".*"event":"verify_pinned".*"command":"npm test"/);
    expect(exec(dir).code).toBe(0);
    expect(done(dir).code).toBe(0);
  });

  it('`repin --verify none --reason` lets the Result stand on the report’s words; without a reason it is refused', () => {
    const dir = bare();
    expect(autopilot(dir, 'repin', '--verify', 'none').code).toBe(2);
    expect(autopilot(dir, 'repin', '--verify', 'none', '--reason', 'a documentation site: nothing to test').code).toBe(0);
    writeReport(dir, { command: 'none', exit: '0', totals: '0 passed, 0 failed' });
    const result = done(dir);
    expect(result.code, result.said).toBe(0);
  });
});
