/**
 * What `init` sets up for agents (the MCP server in Claude Code's and
 * Cursor's configs, the SessionStart hook), the hook run the way Claude Code
 * runs it, and the `/autopilot` text.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUTOPILOT_COMMAND, AGENTS_SECTION, CLAUDE_COMMAND } from '../../src/app/agent-instructions.js';
import { autopilot, read, tempRepo, write, type NextJson } from '../helpers/cli.js';
import { ROOT } from '../helpers/engine.js';

const BIN = join(ROOT, 'bin', 'autopilot.js');

function hook(dir: string, stdin: string, envFile: string | undefined) {
  const env: NodeJS.ProcessEnv = { ...process.env, AUTOPILOT_SESSION: '' };
  delete env.CLAUDE_ENV_FILE;
  const started = Date.now();
  const run = spawnSync(process.execPath, [BIN, 'hook', 'session-start'], {
    cwd: dir,
    input: stdin,
    encoding: 'utf8',
    env: envFile ? { ...env, CLAUDE_ENV_FILE: envFile } : env,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr, ms: Date.now() - started };
}

describe('autopilot hook session-start', () => {
  it('names the conversation in $CLAUDE_ENV_FILE and prints the status, well under a second', () => {
    const dir = tempRepo();
    autopilot(dir, 'init', '--flow', 'greenfield');
    const envFile = join(tempRepo(), 'claude.env');
    writeFileSync(envFile, 'export OTHER=1\n');
    const run = hook(dir, JSON.stringify({ session_id: 'c0ffee-42', hook_event_name: 'SessionStart', source: 'startup' }), envFile);
    expect(run.code).toBe(0);
    expect(run.ms).toBeLessThan(1000);
    expect(readFileSync(envFile, 'utf8')).toBe('export OTHER=1\nexport AUTOPILOT_SESSION=c0ffee-42\n');
    expect(run.stdout).toContain('autopilot session: c0ffee-42');
    expect(run.stdout).toContain('Step      1 of 10 · Problem');
    expect(run.stdout.trim().split('\n').length).toBeLessThanOrEqual(8);
    // The session it names is the one later commands carry.
    expect(autopilot(dir, 'next', '--json', '--session', 'c0ffee-42').code).toBe(0);
    expect(autopilot(dir, 'status', '--json', '--session', 'c0ffee-42').json<{ lease: { mine: boolean } }>().lease.mine).toBe(true);
  });

  it('never blocks a session: bad input, no env file, an unwritable one — a note, and exit 0', () => {
    const dir = tempRepo();
    for (const [stdin, envFile] of [
      ['not json', join(dir, 'x.env')],
      [JSON.stringify({ session_id: 'a b; rm -rf /' }), join(dir, 'x.env')],
      [JSON.stringify({ session_id: 'ok-1' }), undefined],
      [JSON.stringify({ session_id: 'ok-2' }), join(dir, 'no', 'such', 'folder', 'x.env')],
    ] as const) {
      const run = hook(dir, stdin, envFile);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^autopilot/);
    }
    expect(() => read(dir, 'x.env')).toThrow();
  });
});

describe('init for agents', () => {
  it('registers the MCP server beside the servers already there, and adds the hook once, keeping the user keys', () => {
    const dir = tempRepo();
    write(dir, '.mcp.json', JSON.stringify({ mcpServers: { other: { command: 'other-server', args: ['--x'] } }, extra: true }));
    write(
      dir,
      '.claude/settings.json',
      JSON.stringify({ permissions: { allow: ['Bash(ls)'] }, hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo bye' }] }] } }),
    );
    const first = autopilot(dir, 'init', '--hooks', '--json');
    expect(first.code, first.stdout).toBe(0);
    expect(first.json<{ created: string[] }>().created).toEqual(expect.arrayContaining(['.mcp.json', '.cursor/mcp.json', '.claude/settings.json']));

    const mcp = JSON.parse(read(dir, '.mcp.json')) as { mcpServers: Record<string, { command: string; args: string[] }>; extra: boolean };
    expect(mcp.extra).toBe(true);
    expect(mcp.mcpServers.other).toEqual({ command: 'other-server', args: ['--x'] });
    // No node_modules/.bin here: node with the absolute path of the running bin, never npx.
    expect(mcp.mcpServers.autopilot).toEqual({ command: 'node', args: [BIN, 'mcp'] });
    expect(JSON.parse(read(dir, '.cursor/mcp.json'))).toEqual({ mcpServers: { autopilot: { command: 'node', args: [BIN, 'mcp'] } } });

    const settings = JSON.parse(read(dir, '.claude/settings.json')) as { permissions: unknown; hooks: Record<string, { hooks: { command: string }[] }[]> };
    expect(settings.permissions).toEqual({ allow: ['Bash(ls)'] });
    expect(settings.hooks.Stop).toHaveLength(1);
    expect(settings.hooks.SessionStart).toHaveLength(1);
    expect(settings.hooks.SessionStart![0]!.hooks[0]!.command).toBe(`node ${BIN} hook session-start`);

    const before = ['.mcp.json', '.cursor/mcp.json', '.claude/settings.json'].map((f) => read(dir, f));
    const again = autopilot(dir, 'init', '--hooks', '--json');
    expect(again.json<{ created: string[] }>().created).toEqual([]);
    expect(['.mcp.json', '.cursor/mcp.json', '.claude/settings.json'].map((f) => read(dir, f))).toEqual(before);
  });

  it('without --hooks, no settings file; an installed autopilot is named by its repository path', () => {
    const dir = tempRepo();
    mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(ROOT, join(dir, 'node_modules', 'md-autopilot'));
    symlinkSync('../md-autopilot/bin/autopilot.js', join(dir, 'node_modules', '.bin', 'autopilot'));
    expect(autopilot(dir, 'init').code).toBe(0);
    expect(() => read(dir, '.claude/settings.json')).toThrow();
    expect(JSON.parse(read(dir, '.mcp.json'))).toEqual({ mcpServers: { autopilot: { command: 'node_modules/.bin/autopilot', args: ['mcp'] } } });
    // The skill the agent is told to read: short, relative, stable, even through the link.
    expect(autopilot(dir, 'next', '--json').json<NextJson>().skill).toBe('node_modules/md-autopilot/skills/problem/SKILL.md');
  });

  it('refuses a config that is not JSON, naming it, and writes nothing', () => {
    const dir = tempRepo();
    write(dir, '.cursor/mcp.json', '{ "mcpServers": ');
    const run = autopilot(dir, 'init', '--json');
    expect(run.code).toBe(2);
    expect(run.json<{ error: { file: string } }>().error.file).toBe('.cursor/mcp.json');
    expect(() => read(dir, '.mcp.json')).toThrow();
  });

  it('the /autopilot text stays under 2 KB and covers the JSON stops, the exit codes and the MCP tools', () => {
    for (const text of [AUTOPILOT_COMMAND, CLAUDE_COMMAND, AGENTS_SECTION]) expect(Buffer.byteLength(text)).toBeLessThan(2048);
    for (const phrase of ['decision.question', 'recommendation', 'decide <letter>', '--step N', '- 1:', '- 4:', 'MCP tools']) {
      expect(AUTOPILOT_COMMAND).toContain(phrase);
    }
  });
});
