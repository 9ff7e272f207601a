/** Which flow a folder with no pointer starts, decided from real files by the built-in flows' detection rules. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { detectFlow } from '../../../src/io/gather-evidence.js';
import { openRepo } from '../../../src/io/repo.js';
import { builtInFlow } from '../../helpers/engine.js';

const flows = [builtInFlow('existing-code'), builtInFlow('greenfield')].sort((a, b) => a.scanOrder - b.scanOrder);
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A folder holding these files (a trailing `/` makes an empty folder), and the flow detected in it. */
function detected(files: string[], docs?: string): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'autopilot-detect-'));
  made.push(dir);
  mkdirSync(join(dir, '.git'));
  for (const rel of files) {
    if (rel.endsWith('/')) mkdirSync(join(dir, rel), { recursive: true });
    else {
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      writeFileSync(join(dir, rel), `content of ${rel}\n`);
    }
  }
  return detectFlow(openRepo(docs ? { dir, docs } : { dir }), flows)?.id;
}

/** What `npm install --save-dev md-autopilot` leaves in an empty folder. */
const NPM_INSTALL = [
  'package.json',
  'package-lock.json',
  'node_modules/.package-lock.json',
  'node_modules/md-autopilot/bin/autopilot.js',
  'node_modules/.bin/',
];

describe('detectFlow with the built-in flows', () => {
  it.each([
    ['an empty folder', []],
    ['autopilot just installed with npm', NPM_INSTALL],
    ['a build manifest of any kind, and nothing else', ['pyproject.toml', 'go.mod', 'Cargo.toml', 'pom.xml', 'Gemfile', 'app.csproj']],
    ['documents and configuration only', ['README.md', 'LICENSE', 'docs/notes.md', '.github/workflows/ci.yml', '.eslintrc.js', 'config/settings.json']],
    ['an empty source folder', ['package.json', 'src/']],
    ['source two folders down only', ['package.json', 'tools/scripts/run.py']],
    ['autopilot installed after `init`', [...NPM_INSTALL, 'AGENTS.md', '.claude/commands/autopilot.md', '.gitignore']],
  ])('%s → greenfield', (_, files) => {
    expect(detected(files)).toBe('greenfield');
  });

  it.each([
    ['package.json and src/index.js', ['package.json', 'src/index.js']],
    ['autopilot installed into a Node project', [...NPM_INSTALL, 'index.js']],
    ['a Python script with no manifest', ['main.py']],
    ['a Python package one folder down', ['pyproject.toml', 'mypkg/__init__.py']],
    ['a Go module with its code under cmd/', ['go.mod', 'cmd/server/main.go']],
    ['a Rust crate', ['Cargo.toml', 'src/main.rs']],
    ['a Java project', ['pom.xml', 'src/main/java/App.java']],
    ['a Rails app', ['Gemfile', 'app/models/user.rb']],
    ['a C# project', ['app.csproj', 'Program.cs']],
    ['TypeScript under lib/', ['lib/index.ts']],
    ['shell scripts', ['scripts/deploy.sh']],
    ['documentation of existing code, and nothing else', ['_docs/02_document/architecture.md']],
  ])('%s → existing-code', (_, files) => {
    expect(detected(files)).toBe('existing-code');
  });

  it('a greenfield problem statement wins over source files', () => {
    expect(detected(['package.json', 'src/index.js', '_docs/00_problem/problem.md'])).toBe('greenfield');
  });

  it('reads `{docs}` as the docs folder given', () => {
    expect(detected(['notes/02_document/architecture.md'], 'notes')).toBe('existing-code');
    expect(detected(['src/index.js', 'notes/00_problem/problem.md'], 'notes')).toBe('greenfield');
  });
});
