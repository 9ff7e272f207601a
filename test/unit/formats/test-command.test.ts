/**
 * The project's test command found in its files, and what that command runs
 * that the repository holds (pinned with a run, issue 29 point 4).
 */
import { describe, expect, it } from 'vitest';
import { findTestCommand } from '../../../src/formats/test-command.js';
import { sourceChanges, verifySources } from '../../../src/formats/verify-sources.js';

const files = (map: Record<string, string>) => (path: string) => map[path];
const pkg = (scripts: Record<string, string>) => JSON.stringify({ name: 'p', scripts });

describe('findTestCommand', () => {
  it.each([
    ['scripts.test in package.json', { 'package.json': pkg({ test: 'vitest run' }) }, 'npm test'],
    ['with a pnpm lock file', { 'package.json': pkg({ test: 'vitest run' }), 'pnpm-lock.yaml': '' }, 'pnpm test'],
    ['with a yarn lock file', { 'package.json': pkg({ test: 'jest' }), 'yarn.lock': '' }, 'yarn test'],
    ["npm init's placeholder is no test command", { 'package.json': pkg({ test: 'echo "Error: no test specified" && exit 1' }) }, undefined],
    ['pytest configured in pyproject.toml', { 'pyproject.toml': '[project]\nname = "p"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n' }, 'pytest'],
    ['pytest.ini', { 'pytest.ini': '[pytest]\n' }, 'pytest'],
    ['pytest named in requirements-dev.txt', { 'requirements-dev.txt': 'black\npytest>=8\n' }, 'pytest'],
    ['go.mod', { 'go.mod': 'module example.com/p\n' }, 'go test ./...'],
    ['Cargo.toml', { 'Cargo.toml': '[package]\nname = "p"\n' }, 'cargo test'],
    ['a Makefile with a test: target', { Makefile: 'build:\n\tcc a.c\n\ntest: build\n\t./a.out --self-test\n' }, 'make test'],
    ['a Makefile whose test is a variable', { Makefile: 'test := 1\n' }, undefined],
    ['package.json first, before a Makefile', { 'package.json': pkg({ test: 'node --test' }), Makefile: 'test:\n\tnpm test\n' }, 'npm test'],
    ['nothing', {}, undefined],
    ['a package.json that is not JSON', { 'package.json': '{ nope' }, undefined],
  ])('%s', (_name, map, command) => {
    expect(findTestCommand(files(map))?.command).toBe(command);
  });
});

describe('verifySources', () => {
  it('npm test pins scripts.pretest, scripts.test, scripts.posttest and the script file they run by name (4 pieces)', () => {
    const map = { 'package.json': pkg({ pretest: 'tsc', test: 'bash scripts/test.sh' }), 'scripts/test.sh': 'node --test\n' };
    const sources = verifySources('npm test', files(map));
    expect(Object.keys(sources).sort()).toEqual([
      'package.json scripts.posttest',
      'package.json scripts.pretest',
      'package.json scripts.test',
      'scripts/test.sh',
    ]);
    expect(sources['package.json scripts.posttest']).toBeNull();
  });

  it("a runner's arguments are not pinned: the test files of `node --test test/a.test.js` stay the step's to edit", () => {
    const map = { 'package.json': pkg({ test: 'node --test test/a.test.js' }), 'test/a.test.js': 'x' };
    expect(Object.keys(verifySources('npm test', files(map)))).not.toContain('test/a.test.js');
  });

  it('a script that runs another script, and a program run by its path, are followed', () => {
    const map = { 'package.json': pkg({ test: 'npm run unit && ./tools/e2e.sh', unit: 'node tools/unit.js' }), 'tools/e2e.sh': 'e2e', 'tools/unit.js': 'unit' };
    expect(Object.keys(verifySources('npm test', files(map)))).toEqual(expect.arrayContaining(['package.json scripts.unit', 'tools/e2e.sh', 'tools/unit.js']));
  });

  it('make test pins its rule and its prerequisites’ rules', () => {
    const map = { Makefile: 'build:\n\tcc a.c\n\ntest: build\n\t./a.out --self-test\n' };
    expect(Object.keys(verifySources('make test', files(map)))).toEqual(['Makefile test:', 'Makefile build:']);
  });

  it('a path out of the repository is never read', () => {
    const seen: string[] = [];
    verifySources('bash ../elsewhere/test.sh && /bin/true', (path) => (seen.push(path), undefined));
    expect(seen).toEqual(['package.json', 'GNUmakefile', 'makefile', 'Makefile']);
  });

  it('the changes, in words: 1 changed, 1 new, 1 gone, the rest the same', () => {
    const before = verifySources('npm test', files({ 'package.json': pkg({ test: 'vitest run', posttest: 'echo done' }) }));
    const after = verifySources('npm test', files({ 'package.json': pkg({ test: 'echo "3 passed"', pretest: 'true' }) }));
    expect(sourceChanges(before, after)).toEqual([
      'package.json scripts.posttest is gone',
      'package.json scripts.pretest is new',
      'package.json scripts.test changed',
    ]);
    expect(sourceChanges(before, before)).toEqual([]);
  });
});
