/**
 * Runs the real Claude Code CLI (the dev dependency) in print mode against a scripted model server.
 *
 * The environment is built from nothing but PATH: no variable of the person's (or of a Claude Code
 * session the tests may themselves run in) leaks in, and HOME is a folder of the test's own.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
export const CLAUDE = join(ROOT, 'node_modules', '.bin', 'claude');
export const TEST_API_KEY = 'sk-ant-api03-autopilot-test-harness';

export interface StreamEvent {
  type: string;
  subtype?: string;
  session_id?: string;
  [key: string]: unknown;
}

export interface PermissionDenial {
  tool_name: string;
  tool_use_id: string;
  tool_input: Record<string, unknown>;
}

export interface ResultEvent extends StreamEvent {
  type: 'result';
  subtype: string;
  is_error: boolean;
  result?: string;
  session_id: string;
  num_turns: number;
  permission_denials: PermissionDenial[];
}

export interface ClaudeRun {
  /** The pid of the claude process (node running the CLI): the parent of its Bash shells, hooks and MCP servers. */
  pid: number;
  /** Exit code; null when killed. */
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** Every stream-json line, parsed, in order. */
  events: StreamEvent[];
  /** The `system`/`init` event. */
  init: StreamEvent | undefined;
  /** The final `result` event. */
  result: ResultEvent | undefined;
  stdout: string;
  stderr: string;
  home: string;
}

export interface RunClaudeOptions {
  /** The folder Claude Code starts in. */
  cwd: string;
  /** The -p prompt. */
  prompt: string;
  /** The model server's base URL (ModelServer.url). */
  baseUrl: string;
  /** More arguments, after the standard ones (e.g. ['--resume', id], ['--allowedTools', 'Bash']). */
  args?: string[];
  /** More environment, over the harness's own. */
  env?: Record<string, string>;
  /** HOME; a fresh folder of the test's own when left out (reuse one to --resume a session). */
  home?: string;
  /** Milliseconds before the process and every process under it are killed (default 60 s: a loaded machine is slow to start it). */
  timeoutMs?: number;
}

const made: string[] = [];

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder removed after the test. */
export function tempDir(prefix = 'autopilot-claude-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** A HOME for Claude Code: empty but for what it writes itself. */
export function claudeHome(): string {
  return tempDir('autopilot-claude-home-');
}

/** The harness's environment: offline, quiet, deterministic, nothing inherited but PATH. */
export function claudeEnv(baseUrl: string, home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    SHELL: '/bin/bash',
    LANG: 'C.UTF-8',
    // Claude Code keeps per-session files under $TMPDIR/claude-<uid>/ (and on macOS under /tmp unless
    // CLAUDE_CODE_TMPDIR is set): inside HOME, they go when the test's folders do.
    TMPDIR: join(home, 'tmp'),
    CLAUDE_CODE_TMPDIR: join(home, 'tmp'),
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: TEST_API_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_COST_WARNINGS: '1',
    CLAUDE_CODE_DISABLE_TERMINAL_TITLE: '1',
    // No retries against a scripted server: a bad answer shows at once, not after back-off.
    CLAUDE_CODE_MAX_RETRIES: '0',
    ...extra,
  };
}

/** Every descendant of `root`, each parent before its children, read from `ps`. */
function descendants(root: number): number[] {
  let table: string;
  try {
    table = execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' });
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const line of table.split('\n')) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (!pid || ppid === undefined) continue;
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      out.push(child);
      walk(child);
    }
  };
  walk(root);
  return out;
}

/** Kills a process and everything under it. Claude Code starts each Bash shell in a process group of its own, so killing its group is not enough. */
function killTree(root: number): void {
  for (const pid of [root, ...descendants(root)]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
}

export interface ClaudeProcess {
  pid: number;
  /** Kills the claude process and every process under it, as a timeout does. */
  kill(): void;
  /** Settles when the process has exited and its output is read. */
  done: Promise<ClaudeRun>;
}

/** Spawns `claude -p <prompt> --output-format stream-json --verbose ...args`; see runClaude. */
export function startClaude(options: RunClaudeOptions): ClaudeProcess {
  const home = options.home ?? claudeHome();
  mkdirSync(join(home, 'tmp'), { recursive: true });
  const args = [CLAUDE, '-p', options.prompt, '--output-format', 'stream-json', '--verbose', ...(options.args ?? [])];
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    env: claudeEnv(options.baseUrl, home, options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const kill = () => {
    if (child.pid && child.exitCode === null && child.signalCode === null) killTree(child.pid);
  };
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, options.timeoutMs ?? 60_000);
  const done = new Promise<ClaudeRun>((resolve, reject) => {
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const events: StreamEvent[] = [];
      for (const line of stdout.split('\n')) {
        if (!line.trim()) continue;
        try {
          events.push(JSON.parse(line) as StreamEvent);
        } catch {
          events.push({ type: 'unparsed', line });
        }
      }
      resolve({
        pid: child.pid ?? -1,
        code,
        signal,
        timedOut,
        events,
        init: events.find((e) => e.type === 'system' && e.subtype === 'init'),
        result: events.find((e): e is ResultEvent => e.type === 'result'),
        stdout,
        stderr,
        home,
      });
    });
  });
  return { pid: child.pid ?? -1, kill, done };
}

/** Runs `claude -p <prompt> --output-format stream-json --verbose ...args` to its end, or kills it (and all under it) at the timeout. */
export function runClaude(options: RunClaudeOptions): Promise<ClaudeRun> {
  return startClaude(options).done;
}

/** Writes a file under `dir`, making its folders; JSON for anything but a string. */
export function put(dir: string, rel: string, content: unknown): string {
  const file = join(dir, rel);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
  return file;
}
