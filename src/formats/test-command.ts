/**
 * The project's own test command, found in the files that name it (issue
 * 29, point 4): `init` writes it as `verify:`, and a step that needs it looks
 * again when none was found. In order: `scripts.test` in package.json (run
 * by the package manager its lock file names), pytest (its configuration, or
 * a project file that names it), `go test ./...` (go.mod), `cargo test`
 * (Cargo.toml), `make test` (a Makefile with a `test:` target). Pure: the
 * caller hands in the texts of the files at the project's root.
 */

/** The text of a regular file at the project's root, or undefined where there is none. */
export type ReadRootFile = (name: string) => string | undefined;

export interface FoundTestCommand {
  command: string;
  /** Where it was found, as a person reads it: `scripts.test in package.json`. */
  where: string;
}

/** What `npm init` writes as `scripts.test`: not a test command. */
const NPM_PLACEHOLDER = /no test specified/;

/** The files looked at, as a message names them when none holds a test command. */
export const LOOKED_AT =
  "package.json's scripts.test, pytest (pytest.ini, pyproject.toml, setup.cfg, tox.ini, conftest.py), go.mod, Cargo.toml, a Makefile test: target";

function packageScript(read: ReadRootFile): FoundTestCommand | undefined {
  const text = read('package.json');
  if (text === undefined) return undefined;
  let test: unknown;
  try {
    test = (JSON.parse(text) as { scripts?: { test?: unknown } } | null)?.scripts?.test;
  } catch {
    return undefined;
  }
  if (typeof test !== 'string' || test.trim() === '' || NPM_PLACEHOLDER.test(test)) return undefined;
  const manager = read('pnpm-lock.yaml') !== undefined ? 'pnpm' : read('yarn.lock') !== undefined ? 'yarn' : 'npm';
  return { command: `${manager} test`, where: "package.json's scripts.test" };
}

function pytest(read: ReadRootFile): FoundTestCommand | undefined {
  const configs: [string, RegExp][] = [
    ['pytest.ini', /^/],
    ['pyproject.toml', /^\[tool\.pytest/m],
    ['setup.cfg', /^\[tool:pytest\]/m],
    ['tox.ini', /^\[pytest\]/m],
    ['conftest.py', /^/],
    ['pyproject.toml', /\bpytest\b/],
    ['requirements-dev.txt', /^pytest\b/m],
    ['requirements.txt', /^pytest\b/m],
  ];
  for (const [name, names] of configs) {
    const text = read(name);
    if (text !== undefined && names.test(text)) return { command: 'pytest', where: name };
  }
  return undefined;
}

/** A Makefile with a `test:` target. */
function makeTest(read: ReadRootFile): FoundTestCommand | undefined {
  for (const name of ['GNUmakefile', 'makefile', 'Makefile']) {
    const text = read(name);
    if (text !== undefined && /^test\s*:(?!=)/m.test(text)) return { command: 'make test', where: `the test: target of ${name}` };
  }
  return undefined;
}

export function findTestCommand(read: ReadRootFile): FoundTestCommand | undefined {
  return (
    packageScript(read) ??
    pytest(read) ??
    (read('go.mod') !== undefined ? { command: 'go test ./...', where: 'go.mod' } : undefined) ??
    (read('Cargo.toml') !== undefined ? { command: 'cargo test', where: 'Cargo.toml' } : undefined) ??
    makeTest(read)
  );
}
