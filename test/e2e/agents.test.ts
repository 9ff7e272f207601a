/**
 * What `init` sets up for agents (the MCP server in Claude Code's, Cursor's
 * and Codex's configs, the hooks), the hooks run the way Claude Code runs
 * them, and the texts. What the real clients do with them is test/agents/.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentsSection, autopilotCommand, claudeCommand } from '../../src/clients/instructions.js';
import { autopilot, read, tempRepo, write, type NextJson } from '../helpers/cli.js';
import { ROOT } from '../helpers/engine.js';

const BIN = join(ROOT, 'bin', 'autopilot.js');

/** A hook as Claude Code runs it: its JSON on stdin, $CLAUDE_PROJECT_DIR and (SessionStart) $CLAUDE_ENV_FILE set. */
function hook(dir: string, stdin: string, envFile: string | undefined, event = 'session-start') {
  const env: NodeJS.ProcessEnv = { ...process.env, AUTOPILOT_SESSION: '', CLAUDE_PROJECT_DIR: dir };
  delete env.CLAUDE_ENV_FILE;
  const started = Date.now();
  const run = spawnSync(process.execPath, [BIN, 'hook', event], {
    cwd: dir,
    input: stdin,
    encoding: 'utf8',
    env: envFile ? { ...env, CLAUDE_ENV_FILE: envFile } : env,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr, ms: Date.now() - started };
}

describe('autopilot hook session-start', () => {
  it('names a new conversation in $CLAUDE_ENV_FILE with one line however often it runs, and prints the status, well under a second', () => {
    const dir = tempRepo();
    autopilot(dir, 'init', '--flow', 'greenfield');
    const envFile = join(tempRepo(), 'claude.env');
    const start = JSON.stringify({ session_id: 'c0ffee-42', hook_event_name: 'SessionStart', source: 'startup' });
    const run = hook(dir, start, envFile);
    expect(run.code).toBe(0);
    expect(run.ms).toBeLessThan(1000);
    hook(dir, start, envFile);
    expect(readFileSync(envFile, 'utf8')).toBe('export AUTOPILOT_SESSION=c0ffee-42\n');
    expect(run.stdout).toContain('autopilot session: c0ffee-42');
    expect(run.stdout).toContain('Step      1 of 10 · Problem');
    expect(run.stdout).toContain('Continue with /autopilot');
    expect(run.stdout.trim().split('\n').length).toBeLessThanOrEqual(10);
    // The session it names is the one later commands carry.
    expect(autopilot(dir, 'next', '--json', '--session', 'c0ffee-42').code).toBe(0);
    expect(autopilot(dir, 'status', '--json', '--session', 'c0ffee-42').json<{ lease: { mine: boolean } }>().lease.mine).toBe(true);
  });

  it("writes no id on a resume or a fork (Claude Code hands a fork its parent's id), and says who holds the repository when another session does", () => {
    const dir = tempRepo();
    autopilot(dir, 'init', '--flow', 'greenfield');
    expect(autopilot(dir, 'next', '--json', '--session', 'conversation-a').code).toBe(0);
    const envFile = join(tempRepo(), 'claude.env');
    const run = hook(dir, JSON.stringify({ session_id: 'conversation-b', hook_event_name: 'SessionStart', source: 'resume' }), envFile);
    expect(run.code).toBe(0);
    expect(() => readFileSync(envFile, 'utf8')).toThrow();
    expect(run.stdout).toContain('Another session holds this repository (conversation-a');
    expect(run.stdout).toContain('ask the person');
    expect(run.stdout).not.toContain('Continue with /autopilot');
  });

  it('a holder whose conversation has ended is no one to ask: the context says the next command takes over, as it does', () => {
    const dir = tempRepo();
    autopilot(dir, 'init', '--flow', 'greenfield');
    expect(autopilot(dir, 'next', '--json', '--session', 'conversation-a').code).toBe(0);
    // Its conversation's process is gone (a crashed client: no SessionEnd).
    const ended = spawnSync('true');
    const file = join(dir, '_docs/_autopilot/lease.json');
    const lease = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...lease, conversation: { pid: ended.pid, start: '0' } }));
    const run = hook(dir, JSON.stringify({ session_id: 'conversation-b', hook_event_name: 'SessionStart', source: 'startup' }), undefined);
    expect(run.stdout).toContain('The session that held this repository (conversation-a on ');
    expect(run.stdout).toContain('has ended: `next` takes it over (journaled). Continue with /autopilot');
    expect(run.stdout).not.toContain('ask the person');
    expect(autopilot(dir, 'status', '--json', '--session', 'conversation-b').json<{ lease: unknown }>().lease).toMatchObject({ mine: false, gone: true });
    // status wraps its long lines within 80 columns: joined again here.
    expect(autopilot(dir, 'status', '--session', 'conversation-b').stdout.replace(/\n {10}/g, ' ')).toMatch(
      /Driver {4}conversation-a on .* — its conversation has ended: the next step command takes the lease over/,
    );
    expect(autopilot(dir, 'next', '--json', '--session', 'conversation-b').code).toBe(0);
  });

  it('SessionEnd releases the lease of the conversation that ends, and no other', () => {
    const dir = tempRepo();
    autopilot(dir, 'init', '--flow', 'greenfield');
    expect(autopilot(dir, 'next', '--json', '--session', 'conversation-a').code).toBe(0);
    const other = hook(dir, JSON.stringify({ session_id: 'conversation-b', hook_event_name: 'SessionEnd', reason: 'other' }), undefined, 'session-end');
    expect(other.code).toBe(0);
    expect(read(dir, '_docs/_autopilot/lease.json')).toContain('conversation-a');
    const ends = hook(dir, JSON.stringify({ session_id: 'conversation-a', hook_event_name: 'SessionEnd', reason: 'other' }), undefined, 'session-end');
    expect(ends.code).toBe(0);
    expect(ends.stdout).toContain('the lease is released');
    expect(() => read(dir, '_docs/_autopilot/lease.json')).toThrow();
    expect(autopilot(dir, 'next', '--json', '--session', 'conversation-b').code).toBe(0);
  });

  it('never blocks a session: bad input, no env file, an unwritable one — a note, and exit 0', () => {
    const dir = tempRepo();
    for (const [stdin, envFile] of [
      ['not json', join(dir, 'x.env')],
      [JSON.stringify({ session_id: 'a b; rm -rf /' }), join(dir, 'x.env')],
      [JSON.stringify({ session_id: 'ok-1', source: 'startup' }), undefined],
      [JSON.stringify({ session_id: 'ok-2', source: 'startup' }), join(dir, 'no', 'such', 'folder', 'x.env')],
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
    expect(first.json<{ changed: string[] }>().changed).toEqual(expect.arrayContaining(['.mcp.json', '.claude/settings.json']));

    const mcp = JSON.parse(read(dir, '.mcp.json')) as { mcpServers: Record<string, { command: string; args: string[] }>; extra: boolean };
    expect(mcp.extra).toBe(true);
    expect(mcp.mcpServers.other).toEqual({ command: 'other-server', args: ['--x'] });
    // No node_modules/.bin here: node with the absolute path of the running bin, never npx.
    expect(mcp.mcpServers.autopilot).toEqual({ command: 'node', args: [BIN, 'mcp'] });
    expect(JSON.parse(read(dir, '.cursor/mcp.json'))).toEqual({ mcpServers: { autopilot: { command: 'node', args: [BIN, 'mcp'] } } });

    const settings = JSON.parse(read(dir, '.claude/settings.json')) as {
      permissions: { allow: string[]; ask: string[] };
      hooks: Record<string, { hooks: { command: string }[] }[]>;
    };
    expect(settings.permissions.allow).toEqual(['Bash(ls)']);
    // The person's command on the command line; no tool of theirs is served, so no rule names one.
    expect(settings.permissions.ask).toContain('Bash(*autopilot* decide*)');
    expect(settings.permissions.ask.filter((rule) => rule.startsWith('mcp__'))).toEqual([]);
    expect(settings.hooks.Stop).toHaveLength(1);
    expect(settings.hooks.SessionStart).toHaveLength(1);
    expect(settings.hooks.SessionStart![0]!.hooks[0]!.command).toBe(`node ${BIN} hook session-start`);
    expect(settings.hooks.SessionEnd![0]!.hooks[0]!.command).toBe(`node ${BIN} hook session-end`);

    const before = ['.mcp.json', '.cursor/mcp.json', '.claude/settings.json'].map((f) => read(dir, f));
    const again = autopilot(dir, 'init', '--hooks', '--json');
    expect(again.json<{ created: string[] }>().created).toEqual([]);
    expect(['.mcp.json', '.cursor/mcp.json', '.claude/settings.json'].map((f) => read(dir, f))).toEqual(before);
  });

  it('without --hooks, no hooks; an installed autopilot is found from any folder of the project, and serves MCP from a subfolder', async () => {
    const dir = tempRepo();
    mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(ROOT, join(dir, 'node_modules', 'md-autopilot'));
    symlinkSync('../md-autopilot/bin/autopilot.js', join(dir, 'node_modules', '.bin', 'autopilot'));
    expect(autopilot(dir, 'init').code).toBe(0);
    expect(JSON.parse(read(dir, '.claude/settings.json'))).not.toHaveProperty('hooks');
    const server = (JSON.parse(read(dir, '.mcp.json')) as { mcpServers: { autopilot: { command: string; args: string[] } } }).mcpServers.autopilot;
    expect(server.command).toBe('sh');
    // The client starts it in whatever folder it runs in: the server answers from a subfolder, as from the root.
    mkdirSync(join(dir, 'notes', 'deep'), { recursive: true });
    const listed = spawnSync(server.command, server.args, {
      cwd: join(dir, 'notes', 'deep'),
      input: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n',
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(listed.stdout).toContain('"name":"status"');
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

  it('the /autopilot text stays under 2 KB and covers the JSON stops, the exit codes, the MCP tools, and asking the person', () => {
    for (const text of [autopilotCommand(), claudeCommand(), agentsSection()]) expect(Buffer.byteLength(text)).toBeLessThan(2048);
    for (const phrase of ['decision.question', 'recommendation', 'ask the person', '--step N', '| 1 |', '| 4 |', 'MCP tools', 'error.decision']) {
      expect(autopilotCommand()).toContain(phrase);
    }
    for (const phrase of ['${CLAUDE_SESSION_ID}', '$ARGUMENTS', '!`node_modules/.bin/autopilot status']) expect(claudeCommand()).toContain(phrase);
  });
});
