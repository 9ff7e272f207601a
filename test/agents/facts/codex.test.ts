/**
 * The real Codex CLI (`codex exec --json`, @openai/codex 0.169.0) against a
 * scripted Responses API on a local port: nothing of Codex is mocked, only
 * the model's turns are written by the test. Each test proves one fact the
 * Codex integration builds on; docs/codex-facts.md states them.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { codexHome, listHooks, runCodex, tempFolder, tomlString, trustHooks, type CodexRun } from '../../helpers/codex.js';
import { ROOT } from '../../helpers/engine.js';
import {
  callOutput,
  lastOutput,
  promptText,
  startResponsesServer,
  toolNames,
  type Call,
  type InputItem,
  type ResponsesBody,
  type ResponsesServer,
  type Script,
  type ServerOptions,
  type Turn,
} from '../../helpers/responses-server.js';

const FIXTURES = join(ROOT, 'test', 'agents', 'fixtures');
const PROBE = join(FIXTURES, 'probe.mjs');
const MCP_PROBE = join(FIXTURES, 'mcp-probe.mjs');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// Every test waits on real processes, several at a time: generous bounds for a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

const servers: ResponsesServer[] = [];
afterAll(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function serve(script: Script, options?: ServerOptions): Promise<ResponsesServer> {
  const server = await startResponsesServer(script, options);
  servers.push(server);
  return server;
}

/** A git repository (Codex refuses to run outside one) with no commits. */
function project(): string {
  const dir = tempFolder();
  execFileSync('git', ['init', '--quiet'], { cwd: dir });
  return dir;
}

function write(dir: string, rel: string, text: string): void {
  mkdirSync(join(dir, rel, '..'), { recursive: true });
  writeFileSync(join(dir, rel), text);
}

/** The probe MCP server registered as `autopilot` in the project's `.codex/config.toml`, writing into `out`. */
function addMcpServer(repo: string, out: string, more = ''): void {
  write(repo, '.codex/config.toml', `[mcp_servers.autopilot]\ncommand = "node"\nargs = [${tomlString(MCP_PROBE)}, ${tomlString(out)}]\n${more}\n`);
}

interface ProbeRecord {
  label: string;
  cwd: string;
  pid: number;
  ppid: number;
  env: Record<string, string>;
  ancestors?: { pid: number; ppid: number; args: string }[];
  stdin?: string;
}

interface McpCall {
  params: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> };
  pid: number;
}

/** The JSON files the probes wrote into `out` whose names start with `prefix`, oldest first (by the time each wrote down). */
function records<T = ProbeRecord>(out: string, prefix: string): T[] {
  return readdirSync(out)
    .filter((name) => name.startsWith(prefix))
    .map((name) => JSON.parse(readFileSync(join(out, name), 'utf8')) as T & { at: number })
    .sort((a, b) => a.at - b.at);
}

/** The input items of the current run: those after the last user message (a resumed thread carries earlier runs' items). */
function sinceLastPrompt(body: ResponsesBody): InputItem[] {
  const at = body.input.map((item) => item.type === 'message' && item.role === 'user').lastIndexOf(true);
  return body.input.slice(at + 1);
}

/**
 * A script that first finds the MCP tools as a model must (tool_search), then
 * plays `turns`. Codex starts MCP servers in the background and waits for
 * them neither before the first request nor in tool_search: while the search
 * comes back without `mcp__autopilot`, it searches again, a moment later.
 */
function afterSearch(query: string, turns: (body: ResponsesBody, n: number) => Turn): Script {
  let played = 0;
  return async (body) => {
    const items = sinceLastPrompt(body);
    const searches = items.filter((item) => item.type === 'tool_search_output');
    if (!searches.some((item) => JSON.stringify(item.tools).includes('"mcp__autopilot"'))) {
      if (searches.length >= 40) throw new Error('the MCP server never showed up in tool_search');
      if (searches.length > 0) await new Promise((resolve) => setTimeout(resolve, 250));
      return { toolSearch: query };
    }
    return turns(body, played++);
  };
}

const shell = (cmd: string): Call => ({ name: 'exec_command', arguments: { cmd } });
const mcp = (tool: string, args: Record<string, unknown> = {}): Call => ({ namespace: 'mcp__autopilot', name: tool, arguments: args });

/** stderr without the lines every run prints. */
const noise = /PATH aliases|Reading additional input from stdin|^\s*$/;
const stderrOf = (run: CodexRun) =>
  run.stderr
    .split('\n')
    .filter((line) => !noise.test(line))
    .join('\n');

describe.concurrent('the harness: real codex exec, scripted model', () => {
  for (const minimal of [false, true]) {
    it(`runs a turn with a message and a shell command (${minimal ? 'minimal stream: output_item.done + response.completed' : 'full stream'})`, async () => {
      const server = await serve((_body, index) => (index === 0 ? { text: 'Looking.', calls: [shell('echo hello-from-shell')] } : { text: 'All done.' }), {
        minimal,
      });
      const repo = project();
      const run = await runCodex({ cwd: repo, codexHome: codexHome({ baseUrl: server.baseUrl }), prompt: 'say hello' });

      expect(run.code, run.stderr).toBe(0);
      expect(run.threadId).toMatch(UUID);
      expect(run.events.map((event) => event.type)).toEqual([
        'thread.started',
        'turn.started',
        'item.completed',
        'item.started',
        'item.completed',
        'item.completed',
        'turn.completed',
      ]);
      expect(run.items('agent_message').map((item) => item.text)).toEqual(['Looking.', 'All done.']);
      expect(run.items('command_execution')).toEqual([
        expect.objectContaining({
          command: "/bin/bash -lc 'echo hello-from-shell'",
          aggregated_output: 'hello-from-shell\n',
          exit_code: 0,
          status: 'completed',
        }),
      ]);

      // Only POST /v1/responses, one per model turn; no models list, no other endpoint.
      expect(server.requests.map((request) => `${request.method} ${request.url}`)).toEqual(['POST /v1/responses', 'POST /v1/responses']);
      const [first, second] = server.turns();
      expect(server.requests[0]?.headers).toMatchObject({
        authorization: 'Bearer dummy-key',
        'thread-id': run.threadId,
        'session-id': run.threadId,
        originator: 'codex_exec',
      });
      expect(first).toMatchObject({ model: 'gpt-5.5', stream: true, store: false, tool_choice: 'auto', prompt_cache_key: run.threadId });
      // No top-level instructions: the system prompt is the first developer message.
      expect(first?.instructions).toBeUndefined();
      expect(first?.input[0]).toMatchObject({ type: 'message', role: 'developer' });
      expect(first?.input.at(-1)).toMatchObject({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'say hello' }] });
      // The shell tool: exec_command {cmd} (a string run by the user's shell with -lc).
      const execCommand = first?.tools?.find((tool) => tool.name === 'exec_command');
      expect(execCommand).toMatchObject({ type: 'function', parameters: { required: ['cmd'] } });
      expect(toolNames(first!).map((tool) => tool.name)).toEqual(expect.arrayContaining(['exec_command', 'write_stdin', 'apply_patch']));
      // The call and its output come back in the next request.
      const call = second?.input.find((item) => item.type === 'function_call');
      expect(call).toMatchObject({ name: 'exec_command', arguments: JSON.stringify({ cmd: 'echo hello-from-shell' }) });
      expect(callOutput(second!, call!.call_id!)?.output).toMatch(
        /^Chunk ID: \w+\nWall time: [\d.]+ seconds\nProcess exited with code 0\nOriginal token count: \d+\nOutput:\nhello-from-shell\n$/,
      );
    });
  }
  it('reaches nothing beyond the provider with features.plugins = false (with plugins: github.com, api.github.com, chatgpt.com)', async () => {
    // An HTTP proxy that records each CONNECT and drops it; the loopback (the provider) bypasses it.
    const attempts: string[] = [];
    const trap = createServer((socket) =>
      socket.once('data', (data) => {
        attempts.push(data.toString('utf8').split('\r\n')[0]!);
        socket.destroy();
      }),
    );
    await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
    const proxy = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
    const env = { HTTPS_PROXY: proxy, HTTP_PROXY: proxy, NO_PROXY: '127.0.0.1,localhost' };
    try {
      const server = await serve(() => ({ text: 'ok' }));
      const quiet = await runCodex({ cwd: project(), codexHome: codexHome({ baseUrl: server.baseUrl }), prompt: 'hi', env });
      expect(quiet.code, quiet.stderr).toBe(0);
      expect(attempts).toEqual([]);
      const chatty = await runCodex({ cwd: project(), codexHome: codexHome({ baseUrl: server.baseUrl, features: { plugins: true } }), prompt: 'hi', env });
      expect(chatty.code, chatty.stderr).toBe(0);
      await vi.waitFor(() => expect(attempts).not.toEqual([]), { timeout: 3000 });
      expect(attempts.some((line) => /^CONNECT (chatgpt\.com|github\.com|api\.github\.com):443 /.test(line))).toBe(true);
    } finally {
      trap.close();
    }
  });
});

describe.concurrent('what Codex reads from the project', () => {
  it('sends AGENTS.md to the model; ignores CLAUDE.md, .claude/, .cursor/ and .mcp.json', async () => {
    const out = tempFolder();
    const server = await serve((_body, index) => (index === 0 ? { toolSearch: 'probe from-mcp-json from-cursor' } : { text: 'ok' }));
    const repo = project();
    const server_ = (name: string) => ({ mcpServers: { [name]: { command: 'node', args: [MCP_PROBE, out] } } });
    write(repo, 'AGENTS.md', 'AGENTS-MARKER: run npx autopilot next.\n');
    write(repo, 'CLAUDE.md', 'CLAUDE-MD-MARKER\n');
    write(repo, '.claude/commands/autopilot.md', 'CLAUDE-COMMAND-MARKER\n');
    write(repo, '.cursor/commands/autopilot.md', 'CURSOR-COMMAND-MARKER\n');
    write(repo, '.mcp.json', JSON.stringify(server_('from-mcp-json')));
    write(repo, '.cursor/mcp.json', JSON.stringify(server_('from-cursor')));
    const run = await runCodex({ cwd: repo, codexHome: codexHome({ baseUrl: server.baseUrl, trusted: [repo] }), prompt: 'hi' });

    expect(run.code, run.stderr).toBe(0);
    const body = server.turns()[0]!;
    const text = promptText(body);
    expect(text).toContain('AGENTS-MARKER: run npx autopilot next.');
    // It arrives as a user message of its own, headed with the file's folder.
    const agents = body.input.find((item) => item.type === 'message' && JSON.stringify(item.content).includes('AGENTS-MARKER'));
    expect(agents?.role).toBe('user');
    expect(JSON.stringify(agents?.content)).toContain(`# AGENTS.md instructions for ${repo}`);
    for (const marker of ['CLAUDE-MD-MARKER', 'CLAUDE-COMMAND-MARKER', 'CURSOR-COMMAND-MARKER']) expect(text).not.toContain(marker);
    // No MCP server was started from .mcp.json or .cursor/mcp.json: none ran, and a tool search finds nothing.
    expect(readdirSync(out)).toEqual([]);
    expect(JSON.stringify(body.tools)).not.toMatch(/from-mcp-json|from-cursor/);
    expect(lastOutput(server.turns()[1]!)).toMatchObject({ type: 'tool_search_output', tools: [] });
  });

  it('starts the project MCP servers of .codex/config.toml only in a trusted project', async () => {
    const cases = [
      { how: 'not listed', trust: {}, args: [], starts: false },
      { how: 'trust_level = "untrusted"', trust: { untrusted: true }, args: [], starts: false },
      { how: 'trust_level = "trusted"', trust: { trusted: true }, args: [], starts: true },
      { how: '--trust', trust: {}, args: ['--trust'], starts: true },
    ];
    await Promise.all(
      cases.map(async (c) => {
        const out = tempFolder();
        const repo = project();
        addMcpServer(repo, out);
        // Where the server should start, search until its tools show; elsewhere search once.
        const server = await serve(
          c.starts ? afterSearch('probe', () => ({ text: 'ok' })) : (_body, index) => (index === 0 ? { toolSearch: 'probe' } : { text: 'ok' }),
        );
        const trust = c.trust as { trusted?: boolean; untrusted?: boolean };
        const home = codexHome({ baseUrl: server.baseUrl, trusted: trust.trusted ? [repo] : [], untrusted: trust.untrusted ? [repo] : [] });
        const run = await runCodex({ cwd: repo, codexHome: home, prompt: 'hi', args: c.args });
        expect(run.code, `${c.how}: ${run.stderr}`).toBe(0);
        expect(records(out, 'mcp-start').length, c.how).toBe(c.starts ? 1 : 0);
        if (!c.starts) {
          expect(lastOutput(server.turns()[1]!), c.how).toMatchObject({ type: 'tool_search_output', tools: [] });
          expect(stderrOf(run), c.how).toContain(
            'warning: Untrusted project-local configuration is disabled. Run `codex exec --trust` to allow project configuration and MCP servers',
          );
        }
        if (c.how === '--trust') {
          // --trust records the trust in CODEX_HOME/config.toml, for later runs too.
          expect(readFileSync(join(home, 'config.toml'), 'utf8')).toContain(`[projects.${tomlString(repo)}]\ntrust_level = "trusted"`);
        }
      }),
    );
  });
  it('resolves a relative MCP command (and cwd) against the folder codex is started in, not the project root; a server that cannot start is silent', async () => {
    const out = tempFolder();
    const repo = project();
    write(repo, 'node_modules/.bin/autopilot', `#!/bin/sh\nexec node ${MCP_PROBE} ${out}\n`);
    chmodSync(join(repo, 'node_modules/.bin/autopilot'), 0o755);
    mkdirSync(join(repo, 'sub'));
    const config = (more: string) =>
      write(repo, '.codex/config.toml', `[mcp_servers.autopilot]\ncommand = "node_modules/.bin/autopilot"\nargs = ["mcp"]\n${more}`);
    /** Searches up to `tries` times for the server's tools; whether they showed. */
    async function found(cwd: string, tries: number): Promise<{ found: boolean; run: CodexRun }> {
      let searches = 0;
      const server = await serve(async (body) => {
        if (JSON.stringify(lastOutput(body)?.tools ?? []).includes('"mcp__autopilot"')) return { text: 'found' };
        if (searches++ >= tries) return { text: 'not found' };
        if (searches > 1) await new Promise((resolve) => setTimeout(resolve, 250));
        return { toolSearch: 'probe' };
      });
      const run = await runCodex({ cwd, codexHome: codexHome({ baseUrl: server.baseUrl, trusted: [repo] }), prompt: 'find it' });
      return { found: run.items('agent_message').some((item) => item.text === 'found'), run };
    }

    config('');
    expect((await found(repo, 40)).found).toBe(true);
    // Started in sub/: the root's .codex/config.toml applies (the root is trusted), but the command is looked for in sub/.
    const fromSub = await found(join(repo, 'sub'), 8);
    expect(fromSub.found).toBe(false);
    expect(stderrOf(fromSub.run)).toBe('');
    expect(fromSub.run.events.filter((event) => event.type === 'error' || event.item?.type === 'error')).toEqual([]);
    // A relative cwd is relative to that folder too: cwd = ".." finds the root from sub/.
    config('cwd = ".."\n');
    expect((await found(join(repo, 'sub'), 40)).found).toBe(true);
    expect(records(out, 'mcp-start').map((record) => record.cwd)).toEqual([repo, repo]);
  });
});

describe.concurrent('MCP tools, shell commands and the thread id', () => {
  it('MCP tools sit behind tool_search in namespace mcp__<server>; tools/call carries the thread id in _meta; the environment does not', async () => {
    const out = tempFolder();
    const repo = project();
    addMcpServer(repo, out);
    const server = await serve(
      afterSearch('autopilot probe', (_body, n) =>
        n === 0 ? { calls: [mcp('probe', { note: 'first' }), shell(`node ${PROBE} ${out} shell --tree; echo probed`)] } : { text: 'done' },
      ),
    );
    const run = await runCodex({
      cwd: repo,
      codexHome: codexHome({ baseUrl: server.baseUrl, trusted: [repo] }),
      prompt: 'probe',
      env: { AUTOPILOT_PROBE_MARK: 'set-for-codex' },
    });
    expect(run.code, run.stderr).toBe(0);
    const thread = run.threadId!;
    const first = server.turns()[0];
    const second = server.turns().find((body) => JSON.stringify(lastOutput(body)?.tools ?? []).includes('"mcp__autopilot"'));

    // Not in the first request's tools: only the tool_search tool (and the MCP resource tools).
    expect(toolNames(first!).some((tool) => tool.namespace?.startsWith('mcp__'))).toBe(false);
    expect(first?.tools?.find((tool) => tool.type === 'tool_search')).toMatchObject({ execution: 'client', parameters: { required: ['query'] } });
    expect(toolNames(first!).map((tool) => tool.name)).toEqual(expect.arrayContaining(['list_mcp_resources', 'read_mcp_resource']));
    // The search answers with a namespace tool holding the server's tools (defer_loading).
    expect(lastOutput(second!)).toMatchObject({
      type: 'tool_search_output',
      execution: 'client',
      tools: [{ type: 'namespace', name: 'mcp__autopilot', tools: expect.arrayContaining([expect.objectContaining({ name: 'probe', defer_loading: true })]) }],
    });

    // The call: { namespace: "mcp__autopilot", name: "probe" }; Codex reports it as an mcp_tool_call item.
    expect(run.items('mcp_tool_call')).toEqual([
      expect.objectContaining({ server: 'autopilot', tool: 'probe', arguments: { note: 'first' }, status: 'completed' }),
    ]);
    const [call] = records<McpCall>(out, 'mcp-call');
    expect(call?.params.name).toBe('probe');
    expect(call?.params._meta).toMatchObject({
      threadId: thread,
      sessionId: thread,
      callId: expect.stringMatching(/^call_/),
      'x-codex-turn-metadata': { thread_id: thread, session_id: thread, turn_id: expect.stringMatching(UUID), model: 'gpt-5.5', turn_trigger: 'exec' },
    });

    // The MCP server: started in the project folder, by the codex process, with a short environment and no id in it.
    const [started] = records(out, 'mcp-start');
    expect(started?.cwd).toBe(repo);
    expect(Object.keys(started!.env).filter((key) => key.startsWith('CODEX_'))).toEqual([]);
    expect(started?.env.AUTOPILOT_PROBE_MARK).toBeUndefined();
    expect(JSON.stringify(started?.env)).not.toContain(thread);
    expect(Object.keys(started!.env)).toEqual(expect.arrayContaining(['HOME', 'PATH']));

    // A shell command: CODEX_THREAD_ID (and CODEX_SESSION_ID) is the thread id; the whole environment is inherited.
    const [probe] = records(out, 'shell');
    expect(probe?.env).toMatchObject({
      CODEX_THREAD_ID: thread,
      CODEX_SESSION_ID: thread,
      CODEX_CI: '1',
      CODEX_VERSION: '0.169.0',
      CODEX_TOOL_CALL_ID: expect.stringMatching(/^call_/),
      AUTOPILOT_PROBE_MARK: 'set-for-codex',
    });
    expect(probe?.cwd).toBe(repo);
    // Its process tree: node ← /bin/bash -c (reported as `bash -lc`: the login profile comes from a snapshot)
    // ← the native codex binary (one per `codex exec`) ← node node_modules/.bin/codex.
    const [self, bash, codex, wrapper] = probe!.ancestors!;
    expect(self?.args).toContain(PROBE);
    expect(bash?.args).toMatch(/^\/bin\/bash -c node /);
    expect(run.items('command_execution')[0]?.command).toMatch(/^\/bin\/bash -lc 'node /);
    expect(codex?.args).toMatch(/\/vendor\/[^/]+\/bin\/codex exec /);
    expect(wrapper?.args).toMatch(/node .*node_modules\/\.bin\/codex exec /);
    // The MCP server is a child of that same codex process.
    expect(started?.ppid).toBe(codex?.pid);
  });

  it('what the model receives for MCP results: structuredContent wins over text, isError leaves no mark', async () => {
    const out = tempFolder();
    const repo = project();
    addMcpServer(repo, out);
    const calls = [mcp('probe'), mcp('typed_probe'), mcp('fail'), mcp('fail_text'), mcp('decide', { option: 'A' })].map((call, n) => ({
      ...call,
      callId: `call_r${n}`,
    }));
    const server = await serve(afterSearch('probe fail decide', (_body, n) => (n === 0 ? { calls } : { text: 'done' })));
    const run = await runCodex({ cwd: repo, codexHome: codexHome({ baseUrl: server.baseUrl, trusted: [repo] }), prompt: 'results' });
    expect(run.code, run.stderr).toBe(0);
    const body = server.turns().at(-1)!;
    const output = (n: number) => callOutput(body, `call_r${n}`)?.output;
    const wall = String.raw`Wall time: [\d.]+ seconds\nOutput:`;

    // structuredContent + text content: one string, the structured content as JSON; the text is dropped.
    expect(output(0)).toMatch(new RegExp(`^${wall}\\n\\{"pid":\\d+,"ppid":\\d+,"meta":\\{.*\\}\\}$`));
    expect(output(0)).not.toContain('probe text');
    // The same with an outputSchema declared.
    expect(output(1)).toMatch(new RegExp(`^${wall}\\n\\{"pid":`));
    // isError with structuredContent: exactly like a success; only the --json item says failed.
    expect(output(2)).toMatch(new RegExp(`^${wall}\\n\\{"error":\\{"message":"no such step"\\}\\}$`));
    // Text only (isError or not): a list of input_text parts, the wall time first.
    expect(output(3)).toEqual([
      { type: 'input_text', text: expect.stringMatching(new RegExp(`^${wall}$`)) },
      { type: 'input_text', text: 'it failed: text only' },
    ]);
    expect(output(4)).toEqual([
      { type: 'input_text', text: expect.stringMatching(new RegExp(`^${wall}$`)) },
      { type: 'input_text', text: 'decided {"option":"A"}' },
    ]);
    // The calls run in parallel: their items come in any order.
    expect(Object.fromEntries(run.items('mcp_tool_call').map((item) => [item.tool, item.status]))).toEqual({
      probe: 'completed',
      typed_probe: 'completed',
      fail: 'failed',
      fail_text: 'failed',
      decide: 'completed',
    });
    // The item keeps both, in snake_case.
    expect(run.items('mcp_tool_call').find((item) => item.tool === 'fail')?.result).toEqual({
      content: [{ type: 'text', text: 'it failed: no such step' }],
      structured_content: { error: { message: 'no such step' } },
    });
  });

  it('exec resume (by id and --last) continues the same thread: same id for shell commands and MCP _meta', async () => {
    const out = tempFolder();
    const repo = project();
    addMcpServer(repo, out);
    let label = 'first';
    const server = await serve(
      afterSearch('probe', (body) =>
        sinceLastPrompt(body).some((item) => item.type === 'function_call_output')
          ? { text: `done ${label}` }
          : { calls: [mcp('probe', { note: label }), shell(`node ${PROBE} ${out} shell-${label}`)] },
      ),
    );
    const home = codexHome({ baseUrl: server.baseUrl, trusted: [repo] });
    const first = await runCodex({ cwd: repo, codexHome: home, prompt: 'first' });
    label = 'by-id';
    const byId = await runCodex({ cwd: repo, codexHome: home, prompt: 'second', args: ['resume', first.threadId!] });
    label = 'last';
    const last = await runCodex({ cwd: repo, codexHome: home, prompt: 'third', args: ['resume', '--last'] });

    const thread = first.threadId;
    for (const run of [first, byId, last]) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.threadId).toBe(thread);
    }
    for (const name of ['first', 'by-id', 'last']) expect(records(out, `shell-${name}`)[0]?.env.CODEX_THREAD_ID).toBe(thread);
    const calls = records<McpCall>(out, 'mcp-call');
    expect(calls.map((call) => [call.params.arguments.note, call.params._meta?.threadId])).toEqual([
      ['first', thread],
      ['by-id', thread],
      ['last', thread],
    ]);
    // Each run is a new codex process with a new MCP server; the history carries on.
    expect(new Set(calls.map((call) => call.pid)).size).toBe(3);
    const userTexts = server
      .turns()
      .at(-1)!
      .input.filter((item) => item.type === 'message' && item.role === 'user')
      .map((item) => JSON.stringify(item.content));
    expect(userTexts.filter((text) => /"text":"(first|second|third)"/.test(text))).toHaveLength(3);
  });
});

describe.concurrent('hooks (.codex/hooks.json, Claude Code format)', () => {
  /** sha256 of the canonical (sorted-key) JSON of {event_name, hooks: [the one normalized handler]}: how Codex 0.169 identifies a hook for trust. */
  function hookHash(event: string, command: string, timeout: number): string {
    const identity = JSON.stringify({ event_name: event, hooks: [{ async: false, command, timeout, type: 'command' }] });
    return `sha256:${createHash('sha256').update(identity).digest('hex')}`;
  }

  it('run only in a trusted project and once each hook is trusted by hash; stdin, env, cwd; SessionStart stdout reaches the model', async () => {
    const out = tempFolder();
    const repo = project();
    const hook = (label: string, say: string, timeout?: number) => ({
      hooks: [{ type: 'command', command: `node ${PROBE} ${out} ${label} --stdin --say '${say}'`, ...(timeout ? { timeout } : {}) }],
    });
    const hooks = {
      SessionStart: [
        hook('start-plain', 'PLAIN-CONTEXT'),
        hook('start-json', JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'JSON-CONTEXT' } })),
      ],
      UserPromptSubmit: [hook('prompt', '')],
      Stop: [hook('stop', '')],
      SessionEnd: [hook('end', '', 10)],
    };
    write(repo, '.codex/hooks.json', JSON.stringify({ hooks }));
    const server = await serve((_body, index) => (index % 2 === 0 ? { calls: [shell(`node ${PROBE} ${out} shell`)] } : { text: 'done' }));
    const home = codexHome({ baseUrl: server.baseUrl });
    const hookRecords = () => readdirSync(out).filter((name) => !name.startsWith('shell'));

    // Untrusted project: project hooks are not even listed.
    expect(await listHooks(home, repo)).toEqual([]);
    expect((await runCodex({ cwd: repo, codexHome: home, prompt: 'one' })).code).toBe(0);
    expect(hookRecords()).toEqual([]);

    // Trusted project, hooks not trusted: listed as untrusted, silently skipped.
    writeFileSync(join(home, 'config.toml'), `${readFileSync(join(home, 'config.toml'), 'utf8')}\n[projects.${tomlString(repo)}]\ntrust_level = "trusted"\n`);
    const listed = await listHooks(home, repo);
    expect(listed.map((entry) => [entry.key, entry.trustStatus, entry.source]).sort()).toEqual([
      [`${repo}/.codex/hooks.json:session_end:0:0`, 'untrusted', 'project'],
      [`${repo}/.codex/hooks.json:session_start:0:0`, 'untrusted', 'project'],
      [`${repo}/.codex/hooks.json:session_start:1:0`, 'untrusted', 'project'],
      [`${repo}/.codex/hooks.json:stop:0:0`, 'untrusted', 'project'],
      [`${repo}/.codex/hooks.json:user_prompt_submit:0:0`, 'untrusted', 'project'],
    ]);
    expect(listed.find((entry) => entry.key.endsWith('session_start:0:0'))?.currentHash).toBe(
      hookHash('session_start', hooks.SessionStart[0]!.hooks[0]!.command, 600),
    );
    const skipped = await runCodex({ cwd: repo, codexHome: home, prompt: 'two' });
    expect(skipped.code).toBe(0);
    expect(stderrOf(skipped)).toBe('');
    expect(hookRecords()).toEqual([]);

    // Trusted: [hooks.state."<key>"] trusted_hash = "<hash>" in CODEX_HOME/config.toml.
    await trustHooks(home, repo);
    expect((await listHooks(home, repo)).every((entry) => entry.trustStatus === 'trusted')).toBe(true);
    const run = await runCodex({ cwd: repo, codexHome: home, prompt: 'three', env: { AUTOPILOT_PROBE_MARK: 'set-for-codex' } });
    expect(run.code, run.stderr).toBe(0);
    const thread = run.threadId;

    const [start] = records(out, 'start-plain');
    const common = { session_id: thread, transcript_path: expect.stringMatching(new RegExp(`^${home}/sessions/.*${thread}\\.jsonl$`)), cwd: repo };
    expect(JSON.parse(start!.stdin!)).toEqual({
      ...common,
      hook_event_name: 'SessionStart',
      model: 'gpt-5.5',
      permission_mode: 'bypassPermissions',
      source: 'startup',
    });
    expect(JSON.parse(records(out, 'prompt')[0]!.stdin!)).toEqual({
      ...common,
      turn_id: expect.stringMatching(UUID),
      hook_event_name: 'UserPromptSubmit',
      model: 'gpt-5.5',
      permission_mode: 'bypassPermissions',
      prompt: 'three',
    });
    expect(JSON.parse(records(out, 'stop')[0]!.stdin!)).toMatchObject({
      ...common,
      hook_event_name: 'Stop',
      stop_hook_active: false,
      last_assistant_message: 'done',
    });
    expect(JSON.parse(records(out, 'end')[0]!.stdin!)).toEqual({ ...common, hook_event_name: 'SessionEnd', reason: 'other' });
    // The hook inherits Codex's environment but gets no thread id and no env file (nothing like $CLAUDE_ENV_FILE); its cwd is the session's.
    expect(start?.cwd).toBe(repo);
    expect(start?.env.AUTOPILOT_PROBE_MARK).toBe('set-for-codex');
    expect(Object.keys(start!.env).filter((key) => key.startsWith('CODEX_'))).toEqual(expect.arrayContaining(['CODEX_HOME']));
    expect(Object.keys(start!.env).filter((key) => /THREAD|SESSION|ENV_FILE/.test(key))).toEqual([]);
    expect(records(out, 'shell').at(-1)?.env.CODEX_THREAD_ID).toBe(thread);

    // SessionStart stdout, plain or as hookSpecificOutput.additionalContext: a developer message each, before the prompt.
    const input = server.turns().at(-2)!.input;
    const developer = input.filter((item) => item.type === 'message' && item.role === 'developer').map((item) => item.content);
    expect(developer).toEqual(expect.arrayContaining([[{ type: 'input_text', text: 'PLAIN-CONTEXT' }], [{ type: 'input_text', text: 'JSON-CONTEXT' }]]));
    const at = (text: string) => input.findIndex((item) => JSON.stringify(item.content ?? '').includes(text));
    expect(at('PLAIN-CONTEXT')).toBeLessThan(at('"three"'));
  });

  it('SessionStart fires again on exec resume, source "resume", same session_id; default timeouts: SessionStart 600 s, SessionEnd 1 s', async () => {
    const out = tempFolder();
    const repo = project();
    const hook = (label: string) => [{ hooks: [{ type: 'command', command: `node ${PROBE} ${out} ${label} --stdin` }] }];
    write(repo, '.codex/hooks.json', JSON.stringify({ hooks: { SessionStart: hook('start'), SessionEnd: hook('end') } }));
    const server = await serve(() => ({ text: 'ok' }));
    const home = codexHome({ baseUrl: server.baseUrl, trusted: [repo] });
    const trusted = await trustHooks(home, repo);
    expect(Object.fromEntries(trusted.map((entry) => [entry.eventName, entry.timeoutSec]))).toEqual({ sessionStart: 600, sessionEnd: 1 });
    const first = await runCodex({ cwd: repo, codexHome: home, prompt: 'one' });
    const again = await runCodex({ cwd: repo, codexHome: home, prompt: 'two', args: ['resume', first.threadId!] });
    expect([first.code, again.code]).toEqual([0, 0]);
    expect(records(out, 'start').map((record) => JSON.parse(record.stdin!) as { session_id: string; source: string })).toEqual([
      expect.objectContaining({ session_id: first.threadId, source: 'startup' }),
      expect.objectContaining({ session_id: first.threadId, source: 'resume' }),
    ]);
  });

  it('--dangerously-bypass-hook-trust runs hooks no one trusted (in a trusted project), with a warning item', async () => {
    const out = tempFolder();
    const repo = project();
    write(repo, '.codex/hooks.json', JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `node ${PROBE} ${out} start` }] }] } }));
    const server = await serve(() => ({ text: 'ok' }));
    const run = await runCodex({
      cwd: repo,
      codexHome: codexHome({ baseUrl: server.baseUrl, trusted: [repo] }),
      prompt: 'one',
      args: ['--dangerously-bypass-hook-trust'],
    });
    expect(run.code, run.stderr).toBe(0);
    expect(records(out, 'start')).toHaveLength(1);
    expect(run.items('error').map((item) => item.message)).toContain(
      '`--dangerously-bypass-hook-trust` is enabled. Enabled hooks may run without review for this invocation.',
    );
  });
});

describe.concurrent('approvals in codex exec (no person to ask: what needs approval is refused)', () => {
  const sandbox = (mode: string, policy = 'on-request') => `approval_policy = "${policy}"\nsandbox_mode = "${mode}"`;

  async function attempt(options: { topLevel: string; mcpMore?: string; calls: Call[]; rules?: { user?: string; project?: string } }) {
    const out = tempFolder();
    const repo = project();
    addMcpServer(repo, out, options.mcpMore);
    if (options.rules?.project) write(repo, '.codex/rules/project.rules', options.rules.project);
    const calls = options.calls.map((call, n) => ({ ...call, callId: `call_a${n}` }));
    const server = await serve(afterSearch('probe decide', (_body, n) => (n === 0 ? { calls } : { text: 'done' })));
    const home = codexHome({ baseUrl: server.baseUrl, trusted: [repo], topLevel: options.topLevel });
    if (options.rules?.user) write(home, 'rules/default.rules', options.rules.user);
    const run = await runCodex({ cwd: repo, codexHome: home, prompt: 'act' });
    expect(run.code, run.stderr).toBe(0);
    const body = server.turns().at(-1)!;
    const text = (n: number) => JSON.stringify(callOutput(body, `call_a${n}`)?.output);
    return { run, text, mcpCalls: records<McpCall>(out, 'mcp-call').map((call) => call.params.name) };
  }

  const refused = 'MCP tool call requires approval, but approval policy is never';

  // approval_policy = "on-request" in config.toml: exec still refuses, as if it were "never".
  it('workspace-write: an MCP tool not annotated read-only is refused; readOnlyHint runs; approval_mode "approve" / "prompt" per tool override', async () => {
    const plain = await attempt({ topLevel: sandbox('workspace-write'), calls: [mcp('decide'), mcp('probe')] });
    expect(plain.text(0)).toContain(refused);
    const outcome = (item: Record<string, unknown>) => [item.tool, [item.status, (item.error as { message?: string } | null)?.message ?? null]];
    expect(Object.fromEntries(plain.run.items('mcp_tool_call').map(outcome))).toEqual({ decide: ['failed', refused], probe: ['completed', null] });
    expect(plain.mcpCalls).toEqual(['probe']);

    const tuned = await attempt({
      topLevel: sandbox('workspace-write'),
      mcpMore: '[mcp_servers.autopilot.tools.decide]\napproval_mode = "approve"\n[mcp_servers.autopilot.tools.probe]\napproval_mode = "prompt"',
      calls: [mcp('decide'), mcp('probe')],
    });
    expect(tuned.mcpCalls).toEqual(['decide']);
    expect(tuned.text(1)).toContain(refused);

    const everything = await attempt({
      topLevel: sandbox('workspace-write'),
      mcpMore: 'default_tools_approval_mode = "prompt"',
      calls: [mcp('decide'), mcp('probe')],
    });
    expect(everything.mcpCalls).toEqual([]);
  });

  it('danger-full-access: no MCP approvals at all, even approval_mode "prompt"', async () => {
    const run = await attempt({
      topLevel: sandbox('danger-full-access'),
      mcpMore: '[mcp_servers.autopilot.tools.decide]\napproval_mode = "prompt"',
      calls: [mcp('decide')],
    });
    expect(run.mcpCalls).toEqual(['decide']);
  });

  it('exec-policy rules (CODEX_HOME/rules/*.rules and the trusted project\'s .codex/rules/*.rules): "forbidden" and "prompt" refuse the command', async () => {
    const rules = 'prefix_rule(pattern=["echo", "decide"], decision="forbidden")\nprefix_rule(pattern=["echo", "ask"], decision="prompt")\n';
    for (const where of ['user', 'project'] as const) {
      const { run, text } = await attempt({
        topLevel: sandbox('danger-full-access'),
        rules: { [where]: rules },
        calls: [shell('echo decide A'), shell('echo ask B'), shell('echo other')],
      });
      expect(text(0), where).toContain('rejected: policy forbids commands starting with `echo decide`');
      expect(text(1), where).toContain('approval required by policy, but AskForApproval is set to Never');
      expect(run.items('command_execution').map((item) => item.command)).toEqual(["/bin/bash -lc 'echo other'"]);
    }
  });
});
