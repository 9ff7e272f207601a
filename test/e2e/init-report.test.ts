/**
 * What `init` says it did (issue 25, point 1), in real git repositories: a
 * line a file (created, changed, as it was), what to commit and what git
 * ignores, the same as data with `--json`; `node_modules/` ignored where a
 * `package.json` is and nothing ignores it; a warning where the files name a
 * binary that is not installed.
 */
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autopilot } from '../helpers/cli.js';
import { ROOT } from '../helpers/engine.js';
import { git, newRepo, repoWith } from '../helpers/git.js';

interface InitJson {
  files: { path: string; action: string }[];
  created: string[];
  changed: string[];
  kept: string[];
  commit: string[];
  ignored: string[];
  warnings: string[];
}

/** A repository where autopilot is installed as a user installs it. */
function install(dir: string): void {
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(ROOT, join(dir, 'node_modules', 'md-autopilot'));
  symlinkSync('../md-autopilot/bin/autopilot.js', join(dir, 'node_modules', '.bin', 'autopilot'));
}

describe('init says what it did', () => {
  it('in a fresh npm project: 12 files created, a line each, the git add line that commits them (again until they are committed), node_modules/ ignored', () => {
    const dir = repoWith({ 'package.json': '{ "name": "fresh" }\n' });
    install(dir);
    const run = autopilot(dir, 'init');
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    const fileLines = lines.filter((l) => /^[+~=] /.test(l));
    expect(fileLines).toHaveLength(12);
    expect(fileLines.every((l) => /^\+ \S+ +created$/.test(l))).toBe(true);
    expect(run.stdout).not.toContain('already set up');
    expect(run.stdout).not.toContain('! ');
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toMatch(/\nnode_modules\/\n$/);
    // What the Commit line says to run commits exactly what init wrote, and nothing of node_modules.
    const commitLine = lines.find((l) => l.startsWith('Commit:  '))!;
    const added = commitLine
      .replace(/^Commit: {2}git add /, '')
      .replace(/ && git commit .*$/, '')
      .split(' ');
    git(dir, 'add', ...added);
    expect(git(dir, 'status', '--porcelain').trimEnd().split('\n').sort()).toEqual(added.map((f) => `A  ${f}`).sort());
    expect(lines.find((l) => l.startsWith('Ignored: '))).toBe(
      'Ignored: /_docs/_autopilot/cache/ /_docs/_autopilot/lease* /_docs/_autopilot/lock* /_docs/_autopilot/checkpoints/ /_docs/*.autopilot-tmp-* node_modules/ (.gitignore)',
    );

    // Again before the commit: 12 files as they were, still 12 to commit; once committed, none.
    const again = autopilot(dir, 'init', '--json').json<InitJson>();
    expect(again.kept).toHaveLength(12);
    expect([again.created, again.changed]).toEqual([[], []]);
    expect(again.commit.sort()).toEqual([...added].sort());
    git(dir, 'commit', '--quiet', '-m', 'Set up autopilot');
    expect(autopilot(dir, 'init', '--json').json<InitJson>().commit).toEqual([]);
    expect(autopilot(dir, 'init').stdout).toMatch(/^Commit: {2}nothing new/m);
  });

  it('--json: the same as data; a .gitignore that ignores node_modules already gets no second line, and is said changed', () => {
    const dir = repoWith({ 'package.json': '{}\n', '.gitignore': '/node_modules\n', 'CLAUDE.md': '# Mine\n' });
    install(dir);
    const r = autopilot(dir, 'init', '--json').json<InitJson>();
    expect(r.files).toHaveLength(12);
    expect(r.changed.sort()).toEqual(['.gitignore', 'CLAUDE.md']);
    expect(r.created).toHaveLength(10);
    expect(r.commit.sort()).toEqual(r.files.map((f) => f.path).sort());
    expect(r.ignored).not.toContain('node_modules/');
    expect(r.warnings).toEqual([]);
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).not.toContain('node_modules/\n');
    expect(autopilot(dir, 'init').stdout).toMatch(/^= CLAUDE\.md +as it was$/m);
  });

  it('git ignoring node_modules by another rule (a global excludes file) counts: 0 lines added for it', () => {
    const dir = repoWith({ 'package.json': '{}\n' });
    writeFileSync(join(dir, 'excludes'), 'node_modules/\n');
    git(dir, 'config', 'core.excludesFile', join(dir, 'excludes'));
    install(dir);
    expect(autopilot(dir, 'init', '--json').json<InitJson>().ignored).not.toContain('node_modules/');
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).not.toContain('node_modules');
  });

  it('where autopilot is not installed: 1 warning, naming the command the files call and the install that fixes it', () => {
    const dir = newRepo();
    const r = autopilot(dir, 'init', '--json').json<InitJson>();
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(/^autopilot is not installed in this project: the agents' files call it as `node .*bin\/autopilot\.js`/);
    expect(r.warnings[0]).toContain('npm install --save-dev md-autopilot');
    expect(autopilot(dir, 'init').stdout).toMatch(/^! autopilot is not installed in this project/m);
  });

  it('a file that names node_modules/.bin/autopilot where it is missing (installed, then removed): 2 warnings, the files named', () => {
    const dir = newRepo();
    install(dir);
    expect(autopilot(dir, 'init', '--json').json<InitJson>().warnings).toEqual([]);
    // The package removed: the Codex config (kept as a person may have changed it) still calls the binary.
    rmSync(join(dir, 'node_modules'), { recursive: true });
    const r = autopilot(dir, 'init', '--json').json<InitJson>();
    expect(r.warnings).toHaveLength(2);
    expect(r.warnings[0]).toMatch(/^\.codex\/config\.toml run node_modules\/\.bin\/autopilot, which is not installed/);
  });

  it('outside a git repository: says so plainly, what it costs and the fix', () => {
    const dir = newRepo();
    rmSync(join(dir, '.git'), { recursive: true });
    expect(autopilot(dir, 'init').stdout).toContain('Steps are not committed: this folder is not a git repository (`git init` and a first commit');
  });
});
