/**
 * `uninstall` takes out exactly what `init` put in, and `reset` (a person's)
 * starts a run over with the old pointer and journal kept aside (issue 25,
 * point 2). Real git repositories, the built command line.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autopilot } from '../helpers/cli.js';
import { ROOT } from '../helpers/engine.js';
import { git, newRepo, repoWith } from '../helpers/git.js';

interface UninstallJson {
  files: { path: string; action: string; why?: string }[];
  docs: { path: string; state: string };
}

function install(dir: string): void {
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(ROOT, join(dir, 'node_modules', 'md-autopilot'));
  symlinkSync('../md-autopilot/bin/autopilot.js', join(dir, 'node_modules', '.bin', 'autopilot'));
}

/** A project with a person's own versions of the shared files, committed. */
function project(): string {
  return repoWith({
    'package.json': '{ "name": "mine" }\n',
    '.gitignore': 'node_modules/\ndist/\n',
    '.gitattributes': '*.png binary\n',
    'CLAUDE.md': '# My project\n\nBe brief.\n',
    'AGENTS.md': '# Agents\n\nRun `npm test` before you commit.\n',
    '.mcp.json': `${JSON.stringify({ mcpServers: { other: { command: 'other' } } }, null, 2)}\n`,
    '.claude/settings.json': `${JSON.stringify({ permissions: { allow: ['Bash(ls)'] }, hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo bye' }] }] } }, null, 2)}\n`,
    '.codex/config.toml': 'model = "o4"\n',
  });
}

describe('uninstall', () => {
  it('after init --hooks and a first next: 13 files removed or edited back, the repository byte for byte as it was committed', () => {
    const dir = project();
    install(dir);
    expect(autopilot(dir, 'init', '--hooks').code).toBe(0);
    expect(autopilot(dir, 'next').code).toBe(0);
    expect(git(dir, 'status', '--porcelain')).not.toBe('');
    const r = autopilot(dir, 'uninstall', '--remove-docs', '--json');
    expect(r.code).toBe(0);
    const out = r.json<UninstallJson>();
    expect(out.files).toHaveLength(13);
    expect(
      out.files
        .filter((f) => f.action === 'edited')
        .map((f) => f.path)
        .sort(),
    ).toEqual(['.claude/settings.json', '.codex/config.toml', '.gitattributes', '.gitignore', '.mcp.json', 'AGENTS.md', 'CLAUDE.md'].sort());
    expect(out.docs).toEqual({
      path: '_docs',
      state: 'removed',
      removed: [
        '_docs/_autopilot/cache/index-checked',
        '_docs/_autopilot/cache/journal-chain.json',
        '_docs/_autopilot/journal.jsonl',
        '_docs/_autopilot/lease.json',
        '_docs/_autopilot_state.md',
      ],
      kept: [],
    });
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    for (const folder of ['.cursor', '.autopilot', '.codex/rules', '.claude/commands']) expect(existsSync(join(dir, folder)), folder).toBe(false);
  });

  it('keeps a file changed since init wrote it (said, with why) and the docs folder without --remove-docs; again: 0 files', () => {
    const dir = newRepo();
    install(dir);
    autopilot(dir, 'init');
    autopilot(dir, 'next');
    const mine = `${readFileSync(join(dir, '.claude/commands/autopilot.md'), 'utf8')}\nAlso: be brief.\n`;
    writeFileSync(join(dir, '.claude/commands/autopilot.md'), mine);
    const r = autopilot(dir, 'uninstall');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^! \.claude\/commands\/autopilot\.md +left as it is: changed since autopilot wrote it$/m);
    expect(r.stdout).toContain('Kept _docs/');
    expect(readFileSync(join(dir, '.claude/commands/autopilot.md'), 'utf8')).toBe(mine);
    expect(existsSync(join(dir, '_docs/_autopilot_state.md'))).toBe(true);
    const again = autopilot(dir, 'uninstall', '--json').json<UninstallJson>();
    expect(again.files).toEqual([{ path: '.claude/commands/autopilot.md', action: 'left', why: 'changed since autopilot wrote it' }]);
  });

  it('recognises what init wrote before the package was installed (this copy by its path): 12 files, nothing left', () => {
    const dir = newRepo();
    autopilot(dir, 'init');
    install(dir);
    const out = autopilot(dir, 'uninstall', '--json').json<UninstallJson>();
    expect(out.files.filter((f) => f.action === 'left')).toEqual([]);
    expect(out.files).toHaveLength(12);
    expect(readdirSync(dir).sort()).toEqual(['.git', 'node_modules']);
  });

  it('a setup file that links out of the repository: exit 2 naming it, and 0 files removed or edited', () => {
    const dir = newRepo();
    const outside = newRepo();
    autopilot(dir, 'init');
    writeFileSync(join(outside, 'CLAUDE.md'), 'Outside.\n');
    rmSync(join(dir, 'CLAUDE.md'));
    symlinkSync(join(outside, 'CLAUDE.md'), join(dir, 'CLAUDE.md'));
    const before = readdirSync(dir).sort();
    const r = autopilot(dir, 'uninstall', '--remove-docs');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('CLAUDE.md');
    expect(readdirSync(dir).sort()).toEqual(before);
    expect(readFileSync(join(outside, 'CLAUDE.md'), 'utf8')).toBe('Outside.\n');
  });

  it('where nothing was set up: says so, exit 0, writes nothing', () => {
    const dir = repoWith({ 'README.md': '# x\n' });
    const r = autopilot(dir, 'uninstall');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Nothing of autopilot’s setup was found.');
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  });
});

describe('reset', () => {
  it('moves the pointer and journal aside under 1 dated name each, starts step 1, and the new journal names them', () => {
    const dir = newRepo();
    install(dir);
    autopilot(dir, 'init', '--flow', 'greenfield');
    autopilot(dir, 'next');
    const pointer = readFileSync(join(dir, '_docs/_autopilot_state.md'), 'utf8');
    const journal = readFileSync(join(dir, '_docs/_autopilot/journal.jsonl'), 'utf8');
    const r = autopilot(dir, 'reset', '--json');
    expect(r.code).toBe(0);
    const out = r.json<{ step: number; status: string; moved_aside: { pointer: string; journal: string } }>();
    expect(out).toMatchObject({ step: 1, status: 'not_started' });
    expect(out.moved_aside.pointer).toMatch(/^_docs\/_autopilot_state\.before-reset-\d{8}T\d{6}Z\.md$/);
    expect(out.moved_aside.journal).toMatch(/^_docs\/_autopilot\/journal\.before-reset-\d{8}T\d{6}Z\.jsonl$/);
    expect(readFileSync(join(dir, out.moved_aside.pointer), 'utf8')).toBe(pointer);
    expect(readFileSync(join(dir, out.moved_aside.journal), 'utf8')).toBe(journal);
    const lines = readFileSync(join(dir, '_docs/_autopilot/journal.jsonl'), 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ seq: 1, event: 'run_started', source: 'reset', actor: 'person', moved_aside: out.moved_aside });
    expect(autopilot(dir, 'next', '--json').json()).toMatchObject({ step: 1, status: 'in_progress' });
  });

  it('init --flow over an existing pointer points at autopilot reset; reset is a person’s: the ask rules name it', () => {
    const dir = newRepo();
    install(dir);
    autopilot(dir, 'init', '--flow', 'greenfield');
    const again = autopilot(dir, 'init', '--flow', 'greenfield');
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('`autopilot reset` (a person) moves the old pointer and journal aside');
    const settings = JSON.parse(readFileSync(join(dir, '.claude/settings.json'), 'utf8')) as { permissions: { ask: string[] } };
    expect(settings.permissions.ask).toContain('Bash(*autopilot* reset*)');
    expect(readFileSync(join(dir, '.codex/rules/autopilot.rules'), 'utf8')).toContain(
      'prefix_rule(pattern=[["node_modules/.bin/autopilot", "./node_modules/.bin/autopilot", "autopilot"], "reset"], decision="prompt")',
    );
  });

  it('with no run and no --flow: exit 2 naming --flow, and nothing moved', () => {
    const dir = newRepo();
    const r = autopilot(dir, 'reset');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('autopilot reset --flow <id>');
    expect(existsSync(join(dir, '_docs/_autopilot/journal.jsonl'))).toBe(false);
  });
});
