/**
 * The real Claude Code CLI (the dev dependency) against a scripted model: what a Bash command, a project
 * MCP server, a hook and a slash command see of the conversation, and what -p does with permissions.
 * docs/claude-code-facts.md writes the findings down; each test here is the evidence for some of them.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { claudeHome, put, runClaude, startClaude, tempDir, type ClaudeRun } from '../../helpers/claude.js';
import { bash, startModelServer, toolUse, userText, type ModelServer, type Script } from '../../helpers/model-server.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const PROBE_MCP = join(FIXTURES, 'probe-mcp.mjs');
const HOOK = join(FIXTURES, 'hook-probe.mjs');
const VERSION = (
  JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'node_modules', '@anthropic-ai', 'claude-code', 'package.json'), 'utf8')) as { version: string }
).version;

// Each test starts Claude Code one to four times; on a loaded machine one start can take seconds.
vi.setConfig({ testTimeout: 120_000 });

const servers: ModelServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function serve(script: Script): Promise<ModelServer> {
  const server = await startModelServer(script);
  servers.push(server);
  return server;
}

/** A fresh folder (its real path) holding a git repository. Nothing here commits, so no identity is set. */
function project(): string {
  const dir = realpathSync(tempDir());
  execFileSync('git', ['init', '-q'], { cwd: dir });
  return dir;
}

const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/** A hook entry running hook-probe.mjs: it logs to `log` and appends `envLines` to $CLAUDE_ENV_FILE. */
function hook(log: string, ...envLines: string[]) {
  return { hooks: [{ type: 'command', command: ['node', HOOK, log, ...envLines].map(quote).join(' ') }] };
}

/** An .mcp.json entry starting probe-mcp.mjs, which logs every request to `log`. */
const probeServer = (log: string) => ({ command: 'node', args: [PROBE_MCP, log] });

interface HookEntry {
  input: Record<string, unknown>;
  cwd: string;
  pid: number;
  ppid: number;
  parent: { comm: string; ppid: number } | null;
  env: Record<string, string>;
}

interface ProbeEntry {
  pid: number;
  ppid: number;
  cwd: string;
  method: string;
  params?: { clientInfo?: { name: string; version: string } };
  name?: string;
  meta?: Record<string, unknown> | null;
  env: Record<string, string>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(condition: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function jsonLines<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);
}

/** A stand-in for node_modules/.bin/autopilot: prints its arguments and $AUTOPILOT_SESSION; `fail` exits 3. */
function fakeAutopilot(dir: string): void {
  const file = put(
    dir,
    'node_modules/.bin/autopilot',
    '#!/bin/sh\necho "fake autopilot $* session=$AUTOPILOT_SESSION"\nif [ "$1" = fail ]; then echo "failing" >&2; exit 3; fi\n',
  );
  chmodSync(file, 0o755);
}

/** `KEY=value` lines of `env` output, as an object. */
function parseEnv(output: string): Record<string, string> {
  return Object.fromEntries(
    output
      .split('\n')
      .filter((line) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

function expectClean(run: ClaudeRun, server: ModelServer): void {
  expect(run.timedOut, run.stderr).toBe(false);
  expect(run.code, run.stderr).toBe(0);
  expect(server.errors).toEqual([]);
}

describe('the harness', () => {
  test('a scripted turn is the answer; Claude Code probes HEAD / and streams POST /v1/messages?beta=true, naming the session in a header', async () => {
    const dir = project();
    const server = await serve(['scripted answer']);
    const run = await runClaude({ cwd: dir, prompt: 'hello', baseUrl: server.url });
    expectClean(run, server);
    expect(run.init).toMatchObject({ type: 'system', subtype: 'init', cwd: dir, claude_code_version: VERSION, apiKeySource: 'ANTHROPIC_API_KEY' });
    expect(run.result).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'scripted answer', permission_denials: [] });
    const id = run.result!.session_id;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(run.init!.session_id).toBe(id);
    expect(server.requests.map((r) => `${r.method} ${r.url} ${r.kind}`)).toEqual(['HEAD / other', 'POST /v1/messages?beta=true main']);
    const [, message] = server.requests;
    expect(message!.body!.stream).toBe(true);
    expect(message!.headers['x-claude-code-session-id']).toBe(id);
    expect(JSON.parse(message!.body!.metadata!.user_id!)).toMatchObject({ session_id: id });
    expect(userText(message!.body!)).toContain('hello');
  });

  test('the model server answers a non-streaming request, count_tokens, HEAD and anything else, and keeps side requests off the script', async () => {
    const server = await serve(['first turn', 'second turn']);
    const post = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const tools = [{ name: 'Bash' }];
    const side = await post('/v1/messages', { model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'title?' }], max_tokens: 50 });
    expect(await side.json()).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'text', text: 'ok' }] });
    const main = await post('/v1/messages', { model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'hi' }], tools, max_tokens: 50 });
    expect(await main.json()).toMatchObject({ type: 'message', content: [{ type: 'text', text: 'first turn' }], stop_reason: 'end_turn' });
    expect(await (await post('/v1/messages/count_tokens', { messages: [] })).json()).toMatchObject({ input_tokens: expect.any(Number) });
    expect((await fetch(server.url, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(`${server.url}/v1/models`)).status).toBe(404);
    expect(server.requests.map((r) => r.kind)).toEqual(['side', 'main', 'other', 'other', 'other']);
    expect(server.errors).toEqual([]);
  });

  test('a run is killed with every process under it, the Bash shell included (Claude Code starts it in a process group of its own)', async () => {
    const dir = project();
    put(dir, '.claude/settings.json', { permissions: { allow: ['Bash'] } });
    const server = await serve([bash('echo $$ > shell.pid; sleep 60'), 'never reached']);
    const claude = startClaude({ cwd: dir, prompt: 'wait', baseUrl: server.url });
    const pidFile = join(dir, 'shell.pid');
    await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'));
    const shell = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(shell)).toBe(true);
    claude.kill();
    const run = await claude.done;
    expect(run.signal).toBe('SIGKILL');
    await until(() => !alive(shell));

    const early = await runClaude({ cwd: dir, prompt: 'wait', baseUrl: server.url, timeoutMs: 1 });
    expect(early).toMatchObject({ timedOut: true, signal: 'SIGKILL', code: null });
  });
});

describe('what identifies the conversation', () => {
  test('a Bash command: no CLAUDE_CODE_SESSION_ID nor any variable holding the session id; CLAUDECODE=1; its parent is the claude process', async () => {
    const dir = project();
    put(dir, '.claude/settings.json', { permissions: { allow: ['Bash'] } });
    const server = await serve([[bash('env', 'env'), bash('echo "$PPID"; ps -o args= -p "$PPID"', 'ps')], 'done']);
    const run = await runClaude({ cwd: dir, prompt: 'who am I', baseUrl: server.url });
    expectClean(run, server);
    const id = run.result!.session_id;
    const env = parseEnv(server.toolResult('env')!.text);
    expect(env).toMatchObject({ CLAUDECODE: '1', CLAUDE_CODE_ENTRYPOINT: 'sdk-cli', CLAUDE_CODE_EXECPATH: process.execPath, GIT_EDITOR: 'true' });
    for (const name of ['CLAUDE_CODE_SESSION_ID', 'CLAUDE_SESSION_ID', 'CLAUDE_PROJECT_DIR', 'CLAUDE_ENV_FILE']) expect(env).not.toHaveProperty(name);
    expect(Object.entries(env).filter(([, value]) => value.includes(id))).toEqual([]);
    const [ppid, args] = server.toolResult('ps')!.text.split('\n');
    expect(Number(ppid)).toBe(run.pid);
    expect(args).toContain('node_modules/.bin/claude -p who am I --output-format stream-json --verbose');
  });

  test('a project MCP server: a child of the claude process started in its folder, with no session id in its environment or in tools/call _meta', async () => {
    const dir = project();
    const log = join(dir, 'probe.log');
    put(dir, '.mcp.json', { mcpServers: { probe: probeServer(log), off: probeServer(join(dir, 'off.log')) } });
    // No enabledMcpjsonServers: in -p a project server needs no approval; disabledMcpjsonServers still turns one off.
    put(dir, '.claude/settings.local.json', { disabledMcpjsonServers: ['off'], permissions: { allow: ['mcp__probe__status'] } });
    const server = await serve([toolUse('mcp__probe__status', {}, 'status'), 'done']);
    const run = await runClaude({ cwd: dir, prompt: 'status', baseUrl: server.url });
    expectClean(run, server);
    expect(run.init!.mcp_servers).toEqual([{ name: 'probe', status: 'connected' }]);
    expect(server.main()[0]!.tools!.map((tool) => tool.name)).toEqual(expect.arrayContaining(['mcp__probe__status', 'mcp__probe__decide']));
    const [initialize, call] = jsonLines<ProbeEntry>(log);
    expect(initialize!.params!.clientInfo).toMatchObject({ name: 'claude-code', version: VERSION });
    expect(call).toMatchObject({ method: 'tools/call', name: 'status', ppid: run.pid, cwd: dir });
    expect(call!.meta).toEqual({ progressToken: expect.any(Number), 'claudecode/toolUseId': 'status' });
    expect(call!.env).toMatchObject({ CLAUDE_CODE_ENTRYPOINT: 'sdk-cli' });
    for (const name of ['CLAUDE_CODE_SESSION_ID', 'CLAUDE_SESSION_ID', 'CLAUDECODE', 'CLAUDE_PROJECT_DIR', 'CLAUDE_ENV_FILE'])
      expect(call!.env).not.toHaveProperty(name);
    expect(JSON.stringify(call)).not.toContain(run.result!.session_id);
    expect(existsSync(join(dir, 'off.log'))).toBe(false);
  });

  test('SessionStart: its stdin names the session; lines it writes to $CLAUDE_ENV_FILE run before every Bash command, the last export winning; SessionEnd fires in -p', async () => {
    const dir = project();
    const home = claudeHome();
    const log = join(dir, 'hooks.log');
    put(dir, '.claude/settings.json', {
      permissions: { allow: ['Bash'] },
      hooks: {
        SessionStart: [
          hook(log, 'export AP_SID={session_id}', 'export AP_DUP=one', 'export AP_DUP=two', 'export AP_BOTH=first-hook'),
          hook(log, 'export AP_BOTH=second-hook'),
        ],
        SessionEnd: [hook(log)],
      },
    });
    const server = await serve([
      bash('echo "$AP_SID|$AP_DUP|$AP_BOTH"', 'first'),
      bash('echo "$AP_SID"; ls "$HOME/.claude/session-env/$AP_SID"', 'second'),
      'done',
    ]);
    const run = await runClaude({ cwd: dir, prompt: 'hooks', baseUrl: server.url, home });
    expectClean(run, server);
    const id = run.result!.session_id;
    expect(server.toolResult('first')!.text).toBe(`${id}|two|second-hook`);
    expect(server.toolResult('second')!.text).toBe(`${id}\nsessionstart-hook-0.sh\nsessionstart-hook-1.sh`);

    const [start, start2, end] = jsonLines<HookEntry>(log);
    const transcript = join(home, '.claude', 'projects', dir.replace(/[^A-Za-z0-9]/g, '-'), `${id}.jsonl`);
    expect(start!.input).toEqual({ session_id: id, transcript_path: transcript, cwd: dir, hook_event_name: 'SessionStart', source: 'startup' });
    expect(start!.env.CLAUDE_ENV_FILE).toBe(join(home, '.claude', 'session-env', id, 'sessionstart-hook-0.sh'));
    expect(start2!.env.CLAUDE_ENV_FILE).toBe(join(home, '.claude', 'session-env', id, 'sessionstart-hook-1.sh'));
    expect(start!).toMatchObject({ cwd: dir, env: { CLAUDE_PROJECT_DIR: dir, CLAUDE_CODE_ENTRYPOINT: 'sdk-cli' } });
    for (const name of ['CLAUDE_CODE_SESSION_ID', 'CLAUDE_SESSION_ID', 'CLAUDECODE']) expect(start!.env).not.toHaveProperty(name);
    // The hook runs under a shell (`sh -c`) that is a child of the claude process.
    if (start!.parent) expect(start!.parent).toMatchObject({ comm: 'sh', ppid: run.pid });

    expect(end!.input).toEqual({ session_id: id, transcript_path: transcript, cwd: dir, hook_event_name: 'SessionEnd', reason: 'other' });
    expect(end!.env).not.toHaveProperty('CLAUDE_ENV_FILE');
    expect(end!.env.CLAUDE_PROJECT_DIR).toBe(dir);
  });

  test('--resume and --continue keep the session id; the SessionStart hook is told it, but its $CLAUDE_ENV_FILE sits under another id that no command reads', async () => {
    const dir = project();
    const home = claudeHome();
    const hooks = join(dir, 'hooks.log');
    const mcp = join(dir, 'probe.log');
    put(dir, '.mcp.json', { mcpServers: { probe: probeServer(mcp) } });
    put(dir, '.claude/settings.json', {
      permissions: { allow: ['Bash', 'mcp__probe__status'] },
      hooks: { SessionStart: [hook(hooks, 'export AP_SID={session_id}', 'export AP_SRC={source}')] },
    });
    put(dir, '.claude/commands/sid.md', 'TURN=[$ARGUMENTS] SID=[${CLAUDE_SESSION_ID}]\n');
    const turn = async (name: string, args: string[]) => {
      const server = await serve([bash('echo "$AP_SID $AP_SRC"', `bash-${name}`), toolUse('mcp__probe__status', {}, `mcp-${name}`), 'done']);
      const run = await runClaude({ cwd: dir, prompt: `/sid ${name}`, baseUrl: server.url, home, args });
      expectClean(run, server);
      expect(userText(server.main()[0]!)).toContain(`TURN=[${name}] SID=[${run.result!.session_id}]`);
      return { run, server, bash: server.toolResult(`bash-${name}`)!.text };
    };

    const first = await turn('first', []);
    const id = first.run.result!.session_id;
    expect(first.bash).toBe(`${id} startup`);

    for (const [name, args] of [
      ['resume', ['--resume', id]],
      ['continue', ['--continue']],
    ] as const) {
      const again = await turn(name, [...args]);
      expect(again.run.result!.session_id).toBe(id);
      expect(again.server.main().at(-1)!.messages.length).toBeGreaterThan(3); // the earlier turns are sent again
      expect(again.server.requests.at(-1)!.headers['x-claude-code-session-id']).toBe(id);
      const started = jsonLines<HookEntry>(hooks).at(-1)!;
      expect(started.input).toMatchObject({ session_id: id, source: 'resume', hook_event_name: 'SessionStart' });
      // The hook's env file is under a fresh id, the one the stream's hook events carry before init...
      const transient = basename(dirname(started.env.CLAUDE_ENV_FILE!));
      expect(transient).not.toBe(id);
      expect(again.run.events.find((e) => e.subtype === 'hook_started')!.session_id).toBe(transient);
      expect(again.run.init!.session_id).toBe(id);
      // ...while Bash reads the files under the resumed id: the first run's, never this one's.
      expect(again.bash).toBe(`${id} startup`);
      // A new claude process, so a new MCP server process, still without any session id.
      const call = jsonLines<ProbeEntry>(mcp)
        .filter((entry) => entry.method === 'tools/call')
        .at(-1)!;
      expect(call.ppid).toBe(again.run.pid);
      expect(call.meta).toEqual({ progressToken: expect.any(Number), 'claudecode/toolUseId': `mcp-${name}` });
    }
  });

  test("--fork-session: a new session id (also in ${CLAUDE_SESSION_ID}), but the SessionStart hook is told the parent's, so Bash sees the parent's", async () => {
    const dir = project();
    const home = claudeHome();
    const hooks = join(dir, 'hooks.log');
    put(dir, '.claude/settings.json', {
      permissions: { allow: ['Bash'] },
      hooks: { SessionStart: [hook(hooks, 'export AP_SID={session_id}', 'export AP_SRC={source}')] },
    });
    put(dir, '.claude/commands/sid.md', 'SID=[${CLAUDE_SESSION_ID}]\n');
    const parentServer = await serve(['parent done']);
    const parent = await runClaude({ cwd: dir, prompt: 'parent', baseUrl: parentServer.url, home });
    expectClean(parent, parentServer);
    const id = parent.result!.session_id;

    const server = await serve([bash('echo "$AP_SID $AP_SRC"', 'bash'), 'done']);
    const fork = await runClaude({ cwd: dir, prompt: '/sid', baseUrl: server.url, home, args: ['--resume', id, '--fork-session'] });
    expectClean(fork, server);
    const forkId = fork.result!.session_id;
    expect(forkId).not.toBe(id);
    expect(fork.init!.session_id).toBe(forkId);
    expect(new Set(fork.events.map((e) => e.session_id))).toEqual(new Set([forkId]));
    expect(server.requests.at(-1)!.headers['x-claude-code-session-id']).toBe(forkId);
    const started = jsonLines<HookEntry>(hooks).at(-1)!;
    expect(started.input).toMatchObject({ session_id: id, source: 'resume' });
    expect(started.input.transcript_path).toContain(`${id}.jsonl`);
    expect(started.env.CLAUDE_ENV_FILE).toBe(join(home, '.claude', 'session-env', forkId, 'sessionstart-hook-0.sh'));
    expect(server.toolResult('bash')!.text).toBe(`${id} resume`);
    // The command text, unlike the hook, names the fork.
    expect(userText(server.main()[0]!)).toContain(`SID=[${forkId}]`);
  });

  test('started in a subfolder: CLAUDE_PROJECT_DIR is that folder, project settings are read there only, .mcp.json is found above but its server starts in the subfolder', async () => {
    const dir = project();
    const sub = join(dir, 'sub');
    const home = claudeHome();
    const projectHooks = join(dir, 'project-hooks.log');
    const userHooks = join(dir, 'user-hooks.log');
    const log = join(dir, 'probe.log');
    const relative = put(dir, 'bin/probe', `#!/bin/sh\nexec node ${quote(PROBE_MCP)}\n`);
    chmodSync(relative, 0o755);
    put(dir, 'sub/.keep', '');
    put(dir, '.mcp.json', { mcpServers: { probe: probeServer(log), relative: { command: 'bin/probe', args: [] } } });
    put(dir, '.claude/settings.json', { hooks: { SessionStart: [hook(projectHooks)] } });
    put(home, '.claude/settings.json', { hooks: { SessionStart: [hook(userHooks)] }, permissions: { allow: ['mcp__probe__status'] } });

    const server = await serve([toolUse('mcp__probe__status', {}, 'status'), 'done', 'done']);
    const inSub = await runClaude({ cwd: sub, prompt: 'from below', baseUrl: server.url, home });
    expectClean(inSub, server);
    expect(existsSync(projectHooks)).toBe(false);
    const [user] = jsonLines<HookEntry>(userHooks);
    expect(user).toMatchObject({ cwd: sub, input: { cwd: sub }, env: { CLAUDE_PROJECT_DIR: sub } });
    expect(inSub.init!.mcp_servers).toEqual([
      { name: 'probe', status: 'connected' },
      { name: 'relative', status: 'failed' },
    ]);
    expect(jsonLines<ProbeEntry>(log).find((entry) => entry.method === 'tools/call')).toMatchObject({ cwd: sub });

    const atRoot = await runClaude({ cwd: dir, prompt: 'from the top', baseUrl: server.url, home });
    expectClean(atRoot, server);
    expect(jsonLines<HookEntry>(projectHooks)[0]).toMatchObject({ cwd: dir, env: { CLAUDE_PROJECT_DIR: dir } });
    expect(atRoot.init!.mcp_servers).toEqual([
      { name: 'probe', status: 'connected' },
      { name: 'relative', status: 'connected' },
    ]);
  });
});

describe('slash commands', () => {
  test('$ARGUMENTS, $0, $1, ${CLAUDE_SESSION_ID} and an allowed inline !`command` are expanded into the prompt the model receives', async () => {
    const dir = project();
    fakeAutopilot(dir);
    put(dir, '.claude/settings.json', { hooks: { SessionStart: [hook(join(dir, 'hooks.log'), 'export AUTOPILOT_SESSION={session_id}')] } });
    put(
      dir,
      '.claude/commands/autopilot.md',
      [
        '---',
        'description: drive the project',
        'allowed-tools: Bash(node_modules/.bin/autopilot:*)',
        '---',
        'ARGS=[$ARGUMENTS] FIRST=[$0] SECOND=[$1] SID=[${CLAUDE_SESSION_ID}]',
        'NEXT: !`node_modules/.bin/autopilot next --json`',
        'GLUED=[!`node_modules/.bin/autopilot status`]',
        '',
      ].join('\n'),
    );
    const server = await serve(['done']);
    const run = await runClaude({ cwd: dir, prompt: '/autopilot one two', baseUrl: server.url });
    expectClean(run, server);
    const id = run.result!.session_id;
    expect(run.init!.slash_commands).toContain('autopilot');
    const last = server.main()[0]!.messages.at(-1)!;
    const blocks = (last.content as { type: string; text?: string }[]).map((block) => block.text);
    expect(blocks.slice(-2)).toEqual([
      '<command-message>autopilot</command-message>\n<command-name>/autopilot</command-name>\n<command-args>one two</command-args>\n',
      `ARGS=[one two] FIRST=[one] SECOND=[two] SID=[${id}]\nNEXT: fake autopilot next --json session=${id}\nGLUED=[!\`node_modules/.bin/autopilot status\`]\n`,
    ]);
    expect(run.result!.permission_denials).toEqual([]);
  });

  test('an inline command that is not allowed, matches an ask rule, or fails stops the command before any model call, with no permission denial', async () => {
    const dir = project();
    fakeAutopilot(dir);
    put(dir, '.claude/settings.json', { permissions: { ask: ['Bash(node_modules/.bin/autopilot decide:*)'] } });
    const allowed = '---\nallowed-tools: Bash(node_modules/.bin/autopilot:*)\n---\n';
    put(dir, '.claude/commands/unlisted.md', 'NEXT: !`node_modules/.bin/autopilot next`\n');
    put(dir, '.claude/commands/asked.md', `${allowed}DECIDE: !\`node_modules/.bin/autopilot decide A\`\n`);
    put(dir, '.claude/commands/failing.md', `${allowed}FAIL: !\`node_modules/.bin/autopilot fail\`\n`);
    put(dir, '.claude/commands/tolerant.md', `${allowed}FAIL: !\`node_modules/.bin/autopilot fail || true\`\n`);
    const server = await serve(['tolerated']);
    const stopped = async (command: string) => {
      const run = await runClaude({ cwd: dir, prompt: `/${command}`, baseUrl: server.url });
      expect(run.code).toBe(0);
      expect(run.result).toMatchObject({ subtype: 'success', is_error: false, result: '', permission_denials: [] });
      const notes = run.events.filter((e) => e.type === 'user').map((e) => (e.message as { content: string }).content);
      expect(notes).toHaveLength(1);
      return notes[0];
    };
    expect(await stopped('unlisted')).toBe(
      '<local-command-stderr>Error: Shell command permission check failed for pattern "!`node_modules/.bin/autopilot next`": This command requires approval</local-command-stderr>',
    );
    expect(await stopped('asked')).toBe(
      '<local-command-stderr>Error: Shell command permission check failed for pattern "!`node_modules/.bin/autopilot decide A`": ' +
        "Claude requested permissions to use Bash, but you haven't granted it yet.</local-command-stderr>",
    );
    expect(await stopped('failing')).toMatch(/^<local-command-stderr>Error: Shell command failed for pattern "!`node_modules\/.bin\/autopilot fail`": /);
    expect(server.main()).toEqual([]);
    const tolerant = await runClaude({ cwd: dir, prompt: '/tolerant', baseUrl: server.url });
    expectClean(tolerant, server);
    expect(tolerant.result!.result).toBe('tolerated');
    // A Bash command's stderr is merged into its output.
    expect(userText(server.main()[0]!)).toContain('FAIL: fake autopilot fail session=\nfailing\n');
  });

  test('the model can run a project command itself with the Skill tool (there is no SlashCommand tool)', async () => {
    const dir = project();
    put(dir, '.claude/commands/autopilot.md', '---\ndescription: drive the project\n---\nBODY ARGS=[$ARGUMENTS] SID=[${CLAUDE_SESSION_ID}]\n');
    const server = await serve([toolUse('Skill', { skill: 'autopilot', args: 'x y' }, 'skill'), 'done']);
    const run = await runClaude({ cwd: dir, prompt: 'use the command', baseUrl: server.url });
    expectClean(run, server);
    const names = server.main()[0]!.tools!.map((tool) => tool.name);
    expect(names).toContain('Skill');
    expect(names).not.toContain('SlashCommand');
    expect(userText(server.main()[0]!)).toContain('- autopilot: drive the project');
    const after = server.main()[1]!.messages.at(-1)!.content;
    expect(after).toEqual([
      { type: 'tool_result', tool_use_id: 'skill', content: 'Launching skill: autopilot' },
      { type: 'text', text: `BODY ARGS=[x y] SID=[${run.result!.session_id}]\n`, cache_control: { type: 'ephemeral' } },
    ]);
  });
});

describe('permissions in -p', () => {
  const spellings = {
    plain: 'node_modules/.bin/autopilot decide A',
    chained: 'echo x && node_modules/.bin/autopilot decide A',
    dotSlash: './node_modules/.bin/autopilot decide A',
    projectDir: '"$CLAUDE_PROJECT_DIR"/node_modules/.bin/autopilot decide A',
    npx: 'npx --no autopilot decide A',
    other: 'node_modules/.bin/autopilot status',
  };

  /** Runs every spelling (and any more tool uses) in one conversation; the ids of the denied ones, and the results. */
  async function attempt(settings: unknown, extra: ReturnType<typeof toolUse>[] = [], options: { args?: string[]; only?: (keyof typeof spellings)[] } = {}) {
    const dir = project();
    fakeAutopilot(dir);
    put(dir, '.mcp.json', { mcpServers: { probe: probeServer(join(dir, 'probe.log')) } });
    put(dir, '.claude/settings.json', settings);
    const chosen = Object.entries(spellings).filter(([id]) => !options.only || options.only.includes(id as keyof typeof spellings));
    const uses = [...chosen.map(([id, command]) => bash(command, id)), ...extra];
    const server = await serve([...uses, 'done']);
    // CLAUDE_PROJECT_DIR is not set in Bash commands; set here (as a person's shell might) so the spelling can run.
    const run = await runClaude({ cwd: dir, prompt: 'decide', baseUrl: server.url, env: { CLAUDE_PROJECT_DIR: dir }, args: options.args });
    expectClean(run, server);
    const denied = run.result!.permission_denials.map((denial) => denial.tool_use_id);
    return { run, server, denied };
  }

  test('an ask rule beats an allow rule: the call is refused and listed in permission_denials; a deny rule likewise', async () => {
    const { run, server, denied } = await attempt(
      {
        permissions: {
          allow: ['Bash', 'mcp__probe'],
          ask: ['Bash(node_modules/.bin/autopilot decide:*)', 'mcp__probe__decide'],
          deny: ['Bash(rm:*)'],
        },
      },
      [toolUse('mcp__probe__decide', { option: 'A' }, 'mcpDecide'), toolUse('mcp__probe__status', {}, 'mcpStatus'), bash('rm -f nothing', 'rm')],
    );
    expect(denied).toEqual(['plain', 'chained', 'mcpDecide', 'rm']);
    expect(run.result!.permission_denials[0]).toEqual({
      tool_name: 'Bash',
      tool_use_id: 'plain',
      tool_input: { command: spellings.plain, description: 'scripted command' },
    });
    expect(run.result!.permission_denials[2]).toEqual({ tool_name: 'mcp__probe__decide', tool_use_id: 'mcpDecide', tool_input: { option: 'A' } });
    const result = (id: string) => server.toolResult(id)!;
    expect(result('plain')).toMatchObject({ is_error: true, text: "Claude requested permissions to use Bash, but you haven't granted it yet." });
    expect(result('mcpDecide')).toMatchObject({
      is_error: true,
      text: "Claude requested permissions to use mcp__probe__decide, but you haven't granted it yet.",
    });
    expect(result('rm')).toMatchObject({ is_error: true, text: 'Permission to use Bash with command rm -f nothing has been denied.' });
    // The other spellings are not matched by the rule, so the broad allow runs them.
    for (const id of ['dotSlash', 'projectDir', 'npx']) expect(result(id)).toMatchObject({ is_error: false, text: 'fake autopilot decide A session=' });
    expect(result('other').text).toBe('fake autopilot status session=');
    expect(result('mcpStatus').is_error).toBe(false);
  });

  test('rule syntax: "decide *" is the same as "decide:*"; "*autopilot decide*" matches every spelling but the one with a variable; without a star, only the bare command', async () => {
    expect((await attempt({ permissions: { allow: ['Bash'], ask: ['Bash(node_modules/.bin/autopilot decide *)'] } })).denied).toEqual(['plain', 'chained']);
    expect((await attempt({ permissions: { allow: ['Bash'], ask: ['Bash(*autopilot decide*)'] } })).denied).toEqual(['plain', 'chained', 'dotSlash', 'npx']);
    expect((await attempt({ permissions: { allow: ['Bash'], ask: ['Bash(node_modules/.bin/autopilot decide)'] } })).denied).toEqual([]);
  });

  test('--allowedTools allows as permissions.allow does, and an ask rule in the settings still wins; --permission-mode dontAsk refuses with its own message', async () => {
    const ask = { permissions: { ask: ['Bash(node_modules/.bin/autopilot decide:*)', 'mcp__probe__decide'] } };
    const decide = [toolUse('mcp__probe__decide', { option: 'A' }, 'mcpDecide'), toolUse('mcp__probe__status', {}, 'mcpStatus')];
    const flag = await attempt(ask, decide, { args: ['--allowedTools', 'Bash', 'mcp__probe'], only: ['plain', 'other'] });
    expect(flag.denied).toEqual(['plain', 'mcpDecide']);
    expect(flag.server.toolResult('other')!.text).toBe('fake autopilot status session=');
    expect(flag.server.toolResult('mcpStatus')!.is_error).toBe(false);

    const dontAsk = await attempt(ask, decide, { args: ['--permission-mode', 'dontAsk'], only: ['plain', 'other'] });
    expect(dontAsk.denied).toEqual(['plain', 'other', 'mcpDecide', 'mcpStatus']);
    expect(dontAsk.server.toolResult('plain')!.text).toMatch(/^Permission to use Bash has been denied because Claude Code is running in don't ask mode\./);
  });

  test('with no rules at all: what the model is told', async () => {
    const { server, denied } = await attempt({}, [bash('echo read-only', 'echo')]);
    expect(denied).toEqual(['plain', 'chained', 'dotSlash', 'projectDir', 'npx', 'other']);
    expect(server.toolResult('plain')!.text).toBe('This command requires approval');
    expect(server.toolResult('chained')!.text).toMatch(/^This Bash command contains multiple operations\. The following part requires approval: node_modules/);
    expect(server.toolResult('projectDir')!.text).toBe('Contains simple_expansion');
    expect(server.toolResult('echo')).toMatchObject({ is_error: false, text: 'read-only' });
  });
});

describe('MCP tool results', () => {
  test('structuredContent replaces the text content in what the model receives; an isError result sends the text only', async () => {
    const dir = project();
    put(dir, '.mcp.json', { mcpServers: { probe: probeServer(join(dir, 'probe.log')) } });
    put(dir, '.claude/settings.json', { permissions: { allow: ['mcp__probe'] } });
    const server = await serve([toolUse('mcp__probe__structured', {}, 'structured'), toolUse('mcp__probe__fails', {}, 'fails'), 'done']);
    const run = await runClaude({ cwd: dir, prompt: 'mcp', baseUrl: server.url });
    expectClean(run, server);
    expect(server.toolResult('structured')!.raw).toEqual({ type: 'tool_result', tool_use_id: 'structured', content: '{"kind":"STRUCTURED","n":1}' });
    expect(server.toolResult('fails')!.raw).toMatchObject({ type: 'tool_result', tool_use_id: 'fails', content: 'ERROR-TEXT', is_error: true });
    // The stream-json user events carry both.
    const results = run.events.filter((e) => e.type === 'user').map((e) => e.tool_use_result);
    expect(results).toEqual([{ content: '{"kind":"STRUCTURED","n":1}', structuredContent: { kind: 'STRUCTURED', n: 1 } }, 'Error: ERROR-TEXT']);
  });
});
