/**
 * A newcomer's stumbles (issue 30, points 9 to 12), each walked as a new
 * user would: the built command line in real folders and real git
 * repositories, run from the folder a person stands in, with a PATH where
 * `autopilot` is not (as on a machine that installed it in one project only).
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempRepo } from '../helpers/cli.js';
import { ROOT } from '../helpers/engine.js';
import { git, identify } from '../helpers/git.js';

const BIN = join(ROOT, 'bin', 'autopilot.js');
/** PATH without test/path (where the other tests find `autopilot`): a bare `autopilot` is not there. */
const PATH = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => !existsSync(join(dir, 'autopilot')))
  .join(delimiter);
const ENV = { ...process.env, PATH, AUTOPILOT_SESSION: '', FORCE_COLOR: undefined, NO_COLOR: undefined };

/** The built command line, run in `cwd` as a person types it there. */
function run(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: { ...ENV, ...env } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** A shell line run in `cwd` (what a person pastes from autopilot's output). */
function sh(cwd: string, line: string) {
  const r = spawnSync('sh', ['-c', line], { cwd, encoding: 'utf8', env: ENV });
  return { code: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

/** Every file below `dir`, relative to it (`.git` left out). */
function filesBelow(dir: string, under = dir): string[] {
  return readdirSync(under, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === '.git') return [];
    const path = join(under, entry.name);
    return entry.isDirectory() ? filesBelow(dir, path) : [path.slice(dir.length + 1)];
  });
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const NPM_ENV = { npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };

/** A program run in `cwd` with the newcomer's PATH. */
function program(cmd: string, args: string[], cwd: string, options: SpawnSyncOptions = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...ENV, ...NPM_ENV }, ...options });
  return { code: r.status ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** A hint that names a bare `autopilot <command>` (not `/autopilot`, `.bin/autopilot`, `-- autopilot`). */
const BARE_HINT =
  /(?<![\w./@$-])(?<!-- )autopilot (-C \S+ )?(status|next|substep|done|fail|skip|exec|decide|ack|init|uninstall|report|check|log|restore|repin|reset|help)\b/;

/** The README, and the fenced block of `kind` that follows `after`. */
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
function blockAfter(after: string, kind: 'sh' | 'text', from = README): string {
  const at = from.indexOf(after);
  expect(at, `README: "${after}"`).toBeGreaterThanOrEqual(0);
  return new RegExp(`\`\`\`${kind}\n([\\s\\S]*?)\`\`\``).exec(from.slice(at))![1]!;
}

/** The `sh` line an answer gives between backquotes after `label` (`Commit the change: \`…\``). */
const quotedAfter = (text: string, label: string) => new RegExp(`${label}\\s*\`([^\`]+)\``).exec(text)?.[1];

describe('point 9: the root, outside git', () => {
  it('a stray _docs/ in the folder above: init in a new folder writes its 12 files there, 0 above', () => {
    const tmp = realpathSync(tempRepo());
    mkdirSync(join(tmp, '_docs'));
    const project = join(tmp, 'my-project');
    mkdirSync(project);
    const r = run(project, ['init', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const created = (JSON.parse(r.stdout) as { created: string[] }).created;
    expect(created).toHaveLength(12);
    for (const file of created) expect(existsSync(join(project, file)), file).toBe(true);
    expect(readdirSync(tmp).sort()).toEqual(['_docs', 'my-project']);
    expect(readdirSync(join(tmp, '_docs'))).toEqual([]);
    expect(r.stderr).toBe('');
  });

  it('a run above (.autopilot/, a pointer): 3 commands from a folder below work there and say so, in text on stderr and as `root` in JSON', () => {
    const tmp = realpathSync(tempRepo());
    expect(run(tmp, ['init', '--flow', 'greenfield']).code).toBe(0);
    const below = join(tmp, 'src', 'deep');
    mkdirSync(below, { recursive: true });
    const said = `autopilot works in ${tmp}, the nearest folder above that holds .autopilot/`;
    const status = run(below, ['status']);
    expect(status.code).toBe(0);
    expect(status.stderr).toContain(said);
    expect(status.stdout).toContain('Step      1 of 10 · Problem');
    const json = run(below, ['next', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ step: 1, root: tmp });
    expect(json.stderr).toBe('');
    const c = run(join(tmp, 'src'), ['-C', 'deep', 'status', '--json']);
    expect(JSON.parse(c.stdout)).toMatchObject({ root: tmp });
    // At the root itself nothing is said, and no `root` is given.
    const here = run(tmp, ['status', '--json']);
    expect(here.stderr).toBe('');
    expect(JSON.parse(here.stdout)).not.toHaveProperty('root');
  });
});

describe('point 10: uninstall says what to commit', () => {
  it('init, committed; uninstall; its commit line run as printed: 12 paths committed, node_modules/ in none of the 3 commits', () => {
    const project = realpathSync(tempRepo());
    git(project, 'init', '--quiet', '--initial-branch=main');
    identify(project);
    writeFileSync(join(project, 'package.json'), '{ "name": "mine" }\n');
    mkdirSync(join(project, 'node_modules', 'left-pad'), { recursive: true });
    writeFileSync(join(project, 'node_modules', 'left-pad', 'index.js'), 'module.exports = 1;\n');
    git(project, 'add', 'package.json');
    git(project, 'commit', '--quiet', '-m', 'A new project');

    const init = run(project, ['init']);
    expect(init.code, init.stderr).toBe(0);
    const setUp = /^Commit: {2}(git add .*)$/m.exec(init.stdout)![1]!;
    expect(sh(project, setUp).code).toBe(0);

    const uninstall = run(project, ['uninstall']);
    expect(uninstall.code, uninstall.stderr).toBe(0);
    const line = quotedAfter(uninstall.stdout, 'Commit the change:');
    expect(line, uninstall.stdout).toMatch(/^git add -A -- .* && git commit -m "Remove autopilot"$/);
    const done = sh(project, line!);
    expect(done.code, done.out).toBe(0);

    const committed = git(project, 'log', '--name-only', '--format=').split('\n').filter(Boolean);
    expect(committed.filter((path) => path.startsWith('node_modules/'))).toEqual([]);
    const removed = git(project, 'show', '--name-only', '--format=', 'HEAD').split('\n').filter(Boolean);
    expect(removed).toHaveLength(12);
    // What is left is what was there before init: node_modules/ untracked again, nothing of autopilot's.
    expect(git(project, 'status', '--porcelain')).toBe('?? node_modules/\n');
  });
});

describe('point 12: check on a binary journal', () => {
  it('40 binary lines: check says 3 and counts the other 37 in one line, naming check --repair; the repair keeps all 40 byte for byte, journaled; then 0 problems', () => {
    const dir = realpathSync(tempRepo());
    expect(run(dir, ['init', '--flow', 'greenfield']).code).toBe(0);
    const journal = join(dir, '_docs/_autopilot/journal.jsonl');
    const garbage = Array.from({ length: 40 }, (_, i) => Buffer.from([0xff, 0xfe, 0x20 + i, 0x00, 0xc3, 0x28, 0x80 + i]));
    writeFileSync(journal, Buffer.concat([readFileSync(journal), ...garbage.flatMap((line) => [line, Buffer.from('\n')])]));

    const check = run(dir, ['check']);
    expect(check.code).toBe(2);
    const lines = check.stdout.trimEnd().split('\n');
    expect(lines.length, check.stdout).toBeLessThanOrEqual(3 * 3 + 3);
    expect(check.stdout).toContain('37 more journal lines are not JSON either (lines 5-41)');
    expect(check.stdout).toContain('binary data, not text');
    expect(lines.at(-1)).toMatch(/check --repair` moves the 40 journal lines that are not JSON aside/);

    const repair = run(dir, ['check', '--repair', '--json']);
    expect(repair.code, repair.stdout).toBe(0);
    const said = JSON.parse(repair.stdout) as { ok: boolean; repaired: { cut_lines: number[]; kept_in: string } };
    expect(said.ok).toBe(true);
    expect(said.repaired.cut_lines).toEqual(Array.from({ length: 40 }, (_, i) => i + 2));
    const kept = readFileSync(join(dir, said.repaired.kept_in));
    expect(kept.equals(Buffer.concat(garbage.flatMap((line, i) => [Buffer.from(`line ${i + 2}: `), line, Buffer.from('\n')])))).toBe(true);
    const events = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { event: string }).event);
    expect(events).toEqual(['run_started', 'journal_repaired']);
    expect(run(dir, ['check']).code).toBe(0);
  });
});

describe('point 11: npx hands every option to autopilot, and hints name the launch that works', () => {
  it('in a fresh project with the tarball installed: --version and -C reach autopilot through `npx --no --`; init, next and status hint 0 bare `autopilot` commands', () => {
    const tmp = realpathSync(tempRepo());
    const packed = program(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], ROOT);
    expect(packed.code, packed.stderr).toBe(0);
    const tarball = join(tmp, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
    const project = join(tmp, 'my-project');
    mkdirSync(join(project, 'src'), { recursive: true });
    expect(program(npm, ['init', '-y'], project).code).toBe(0);
    git(project, 'init', '--quiet', '--initial-branch=main');
    identify(project);
    git(project, 'add', '-A');
    git(project, 'commit', '--quiet', '-m', 'A new project');
    const installed = program(npm, ['install', '--save-dev', tarball, '--offline'], project);
    expect(installed.code, installed.stderr).toBe(0);
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

    // Without `--`, npm reads the options: its own version, not autopilot's.
    expect(program(npx, ['--no', 'autopilot', '--version'], project).stdout.trim()).toBe(program(npm, ['--version'], project).stdout.trim());
    expect(program(npx, ['--no', '--', 'autopilot', '--version'], project).stdout.trim()).toBe(version);
    const elsewhere = program(npx, ['--no', '--', 'autopilot', '-C', 'nowhere', 'status'], project);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain('-C nowhere: no such directory');

    const said: string[] = [];
    const init = program(npx, ['--no', '--', 'autopilot', 'init'], project);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('or `node_modules/.bin/autopilot next` here');
    said.push(init.stdout);
    const next = program(npx, ['--no', '--', 'autopilot', 'next'], join(project, 'src'));
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toContain('npx --no -- autopilot done');
    expect(next.stderr).toContain(`autopilot works in ${project}, the nearest folder above that holds the git repository (.git)`);
    said.push(next.stdout, next.stderr);
    const status = program(npx, ['--no', '--', 'autopilot', 'status'], project);
    expect(status.code).toBe(0);
    said.push(status.stdout);
    for (const text of said) expect(text).not.toMatch(BARE_HINT);
  }, 120_000);
});

describe('point 12: the README, the test guard, a broken flow, docs/README.md', () => {
  it('the README opens with its 2 commands (the demo on _docs-example, npm test) and clones the tool beside the project: 2 paths outside it', () => {
    const first = /```sh\n([\s\S]*?)```/.exec(README)!;
    expect(README.slice(0, first.index).trim()).toBe('# autopilot');
    expect(
      first[1]!
        .split('\n')
        .filter(Boolean)
        .map((line) => line.replace(/\s+#.*$/, '')),
    ).toEqual(['npm ci && npm run demo', 'npm test']);
    const block = blockAfter('## In your own repository', 'sh');
    const project = '/home/me/my-project';
    const clone = /git clone (?:<[^>]+>|\S+) (\S+)/.exec(block)![1]!;
    const tarball = /npm install --save-dev (\S+)/.exec(block)![1]!;
    for (const path of [clone, tarball]) expect(resolve(project, path).startsWith(`${project}/`), path).toBe(false);
  });

  it("the README's sample status is the command's own output on _docs-example (at 10:05, 21 November 2026): 11 lines alike", () => {
    const command = blockAfter('Run it on the example without writing anything:', 'sh').trim().split(/\s+/);
    expect(command.slice(0, 2)).toEqual(['node', 'bin/autopilot.js']);
    const sample = blockAfter('Run it on the example without writing anything:', 'text');
    // The clock the fault tests stand up: the example as it stood two minutes after its last event.
    const offset = Date.parse('2026-11-21T10:05:00Z') - Date.now();
    const r = program(process.execPath, command.slice(1), ROOT, { env: { ...ENV, AUTOPILOT_CLOCK_OFFSET_MS: String(offset) } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(sample);
    expect(sample.trimEnd().split('\n')).toHaveLength(11);
  });

  it('the test guard fails the run (exit 1, the file failed) when a test leaves a stray _docs/ in the temporary folder, though every test passed', () => {
    const tmp = realpathSync(tempRepo());
    const env = Object.fromEntries(Object.entries(ENV).filter(([name]) => !name.startsWith('VITEST')));
    const vitest = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
    const r = program(process.execPath, [vitest, 'run', '--config', 'test/e2e/fixtures/tmp-guard/vitest.config.ts'], ROOT, {
      env: { ...env, TMPDIR: tmp, NO_COLOR: '1' },
    });
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(1);
    expect(r.stdout).toMatch(/Test Files +1 failed/);
    expect(r.stdout).toMatch(/Tests +1 passed/);
    expect(`${r.stdout}${r.stderr}`).toContain(`${join(tmp, '_docs')} appeared during this test file`);
  });

  it('init --flow bugfix with a broken .autopilot/flows/bugfix.md: exit 2 naming its 3 problems with file and line, not "no such flow", and 0 files set up', () => {
    const dir = realpathSync(tempRepo());
    mkdirSync(join(dir, '.autopilot', 'flows'), { recursive: true });
    writeFileSync(join(dir, '.autopilot', 'flows', 'bugfix.md'), '---\nid: bugfix\n---\n# Bugfix\n\n| # | Step |\n|---|---|\n| 1 | Fix |\n');
    const r = run(dir, ['init', '--flow', 'bugfix']);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain('no such flow');
    expect(r.stderr.match(/^\.autopilot\/flows\/bugfix\.md:\d+: /gm)).toHaveLength(3);
    // Only the parsed flows' cache (its problems, ignored by git) is new.
    expect(filesBelow(dir).filter((path) => !path.startsWith('_docs/_autopilot/cache/'))).toEqual(['.autopilot/flows/bugfix.md']);
  });

  it('docs/README.md opens with day one: install, init, status, /autopilot, decide, check, uninstall, before the reading list', () => {
    const docs = readFileSync(join(ROOT, 'docs', 'README.md'), 'utf8');
    const day = docs.slice(docs.indexOf('## Day one'), docs.indexOf('## Reading order'));
    expect(docs.indexOf('## Day one')).toBeLessThan(docs.indexOf('## Reading order'));
    expect(docs.slice(0, docs.indexOf('## Day one')).trim()).toBe("# autopilot's documentation");
    for (const said of [
      'npm install --save-dev md-autopilot',
      'npx --no -- autopilot init',
      'npx --no -- autopilot status',
      '/autopilot',
      'decide A',
      'autopilot check',
      'autopilot uninstall',
    ])
      expect(day, said).toContain(said);
  });
});
