/**
 * Runs the real Codex CLI (`node_modules/.bin/codex exec --json`) against a
 * scripted Responses server (responses-server.ts), in a CODEX_HOME of the
 * test's own: a config.toml whose only model provider is that server, with
 * no approvals and no sandbox so shell commands run in the test's folder,
 * and nothing that reaches beyond the loopback (no web search, analytics,
 * update check or plugins).
 */
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';
import { ROOT } from './engine.js';

export const CODEX = join(ROOT, 'node_modules', '.bin', 'codex');

// Removed when the file's tests are done, not after each: the Codex tests run concurrently.
const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder (its real path), removed when the test file is done. */
export function tempFolder(prefix = 'autopilot-codex-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/** TOML for a string: JSON's escaping is valid for TOML basic strings. */
export const tomlString = (value: string) => JSON.stringify(value);

export interface CodexHomeOptions {
  /** The Responses server's base URL (`http://127.0.0.1:<port>/v1`). */
  baseUrl: string;
  /** Project folders written as `[projects."<path>"] trust_level = "trusted"`. */
  trusted?: string[];
  /** Project folders written as `trust_level = "untrusted"`. */
  untrusted?: string[];
  /** More TOML, appended as is (tables must come after the top-level keys: this is written last). */
  toml?: string;
  /** Top-level keys written before any table, e.g. `approval_policy = "on-request"`. */
  topLevel?: string;
  /** `[features]` entries, over the default `plugins = false`. */
  features?: Record<string, boolean>;
}

/** The model slug used: one Codex knows, so it uses that model's tools and prompt with no fallback warning. */
export const MODEL = 'gpt-5.5';

/**
 * A CODEX_HOME folder with a config.toml pointing Codex at the scripted
 * server: `<temp>/.codex`, its parent being the HOME runCodex gives Codex (no
 * login profile of the machine's user, no global git or agent settings).
 */
export function codexHome(options: CodexHomeOptions): string {
  const home = join(tempFolder('autopilot-codex-home-'), '.codex');
  const lines = [
    `model = ${tomlString(MODEL)}`,
    'model_provider = "scripted"',
    options.topLevel ?? ['approval_policy = "never"', 'sandbox_mode = "danger-full-access"'].join('\n'),
    'check_for_update_on_startup = false',
    'web_search = "disabled"',
    '',
    '[analytics]',
    'enabled = false',
    '',
    // Plugins make Codex reach github.com, api.github.com and chatgpt.com at start; off, it calls only the provider.
    '[features]',
    ...Object.entries({ plugins: false, ...options.features }).map(([name, on]) => `${name} = ${on}`),
    '',
    '[model_providers.scripted]',
    'name = "scripted"',
    `base_url = ${tomlString(options.baseUrl)}`,
    'wire_api = "responses"',
    'env_key = "SCRIPTED_API_KEY"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
  ];
  for (const [paths, level] of [
    [options.trusted ?? [], 'trusted'],
    [options.untrusted ?? [], 'untrusted'],
  ] as const) {
    for (const path of paths) lines.push(`[projects.${tomlString(path)}]`, `trust_level = "${level}"`, '');
  }
  if (options.toml) lines.push(options.toml, '');
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'config.toml'), lines.join('\n'));
  return home;
}

/** One line of `codex exec --json`. */
export interface CodexEvent {
  type: string;
  thread_id?: string;
  item?: { id: string; type: string; [key: string]: unknown };
  [key: string]: unknown;
}

export interface CodexRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  events: CodexEvent[];
  /** From the `thread.started` event. */
  threadId: string | undefined;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  ms: number;
  /** The completed items of a type (`command_execution`, `mcp_tool_call`, `agent_message`, …). */
  items: (type: string) => NonNullable<CodexEvent['item']>[];
}

export interface RunCodexOptions {
  /** The folder Codex is started in: its working directory and project. */
  cwd: string;
  codexHome: string;
  /** The prompt; omitted for e.g. `resume --last` given one in `args`. */
  prompt?: string;
  /** Arguments after `exec` and before the prompt: `['resume', id]`, `['--skip-git-repo-check']`, … */
  args?: string[];
  /** Extra environment for Codex (and so for the commands and servers it starts). */
  env?: Record<string, string>;
  timeoutMs?: number;
  /** Called with Codex's pid once it is started (the leader of a process group of its own: `process.kill(-pid)` ends it and all it started). */
  onStart?: (pid: number) => void;
}

/** `codex exec --json [args] [prompt]`; resolves when Codex exits (or is killed at the timeout). */
export function runCodex(options: RunCodexOptions): Promise<CodexRun> {
  const { cwd, codexHome: home, prompt, args = [], timeoutMs = 45_000 } = options;
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (/^(CODEX_|OPENAI_|CLAUDE|AUTOPILOT_)/.test(key)) delete env[key];
  Object.assign(env, { HOME: dirname(home), CODEX_HOME: home, SCRIPTED_API_KEY: 'dummy-key', RUST_LOG: 'error', NO_COLOR: '1' }, options.env);
  // No `-C`: `exec resume` has no such option; Codex takes the working directory it is started in.
  const argv = ['exec', ...args, '--json'];
  if (prompt !== undefined) argv.push('--', prompt);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(CODEX, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    if (child.pid) options.onStart?.(child.pid);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      // The whole process group: Codex and whatever it started.
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const events = stdout
        .split('\n')
        .filter((line) => line.trim().startsWith('{'))
        .map((line) => JSON.parse(line) as CodexEvent);
      resolve({
        code,
        signal,
        events,
        threadId: events.find((event) => event.type === 'thread.started')?.thread_id,
        stdout,
        stderr,
        timedOut,
        ms: Date.now() - started,
        items: (type) => events.filter((event) => event.type === 'item.completed' && event.item?.type === type).map((event) => event.item!),
      });
    });
  });
}

/** One hook as Codex lists it (`codex app-server`, `hooks/list`). */
export interface HookEntry {
  key: string;
  eventName: string;
  command?: string;
  source: string;
  sourcePath: string;
  currentHash: string;
  trustStatus: string;
  enabled: boolean;
  timeoutSec: number;
}

/**
 * The hooks Codex finds for a folder, asked of Codex itself: `codex
 * app-server` over stdio, `initialize` then `hooks/list`. Each entry carries
 * the key and hash that hook trust is recorded under.
 */
export function listHooks(home: string, cwd: string, timeoutMs = 60_000): Promise<HookEntry[]> {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: dirname(home), CODEX_HOME: home, SCRIPTED_API_KEY: 'dummy-key', RUST_LOG: 'error' };
  const child = spawn(CODEX, ['app-server'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const pending = new Map<number, (message: { result?: unknown; error?: unknown }) => void>();
  let buffer = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      const message = JSON.parse(line) as { id?: number; result?: unknown; error?: unknown };
      if (message.id !== undefined) pending.get(message.id)?.(message);
    }
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let next = 0;
  const call = (method: string, params: unknown) =>
    new Promise<{ result?: unknown; error?: unknown }>((resolve) => {
      const id = ++next;
      pending.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
    });
  const work = (async () => {
    await call('initialize', { clientInfo: { name: 'autopilot-tests', version: '0' } });
    child.stdin.write(`${JSON.stringify({ method: 'initialized' })}\n`);
    const answer = await call('hooks/list', { cwds: [cwd] });
    if (answer.error) throw new Error(`hooks/list: ${JSON.stringify(answer.error)}`);
    return (answer.result as { data: { hooks: HookEntry[] }[] }).data.flatMap((entry) => entry.hooks);
  })();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`codex app-server: no answer in ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
  });
  return Promise.race([work, timeout]).finally(() => {
    clearTimeout(timer);
    child.kill();
  });
}

/**
 * Trusts the hooks Codex finds for `cwd` the way its hook review does: for
 * each, `[hooks.state."<key>"] trusted_hash = "<currentHash>"` appended to
 * CODEX_HOME/config.toml. Returns the entries trusted.
 */
export async function trustHooks(home: string, cwd: string): Promise<HookEntry[]> {
  const hooks = await listHooks(home, cwd);
  const lines = hooks.flatMap((hook) => [`[hooks.state.${tomlString(hook.key)}]`, `trusted_hash = ${tomlString(hook.currentHash)}`, '']);
  appendFileSync(join(home, 'config.toml'), `\n${lines.join('\n')}`);
  return hooks;
}
