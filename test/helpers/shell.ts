/**
 * Processes that stay open and run the built CLI as their children: a
 * person's terminal, or an agent's conversation (the process autopilot
 * records in the lease, docs/sessions.md). A conversation is the same script
 * under an agent client's name (`claude.mjs`), so every command it runs finds
 * it above itself; ending it (`end`) is a conversation that has ended.
 */
import { inDir } from './line.js';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll } from 'vitest';
import { ROOT } from './engine.js';
import { BIN } from './faults.js';

const SCRIPT = join(ROOT, 'test', 'helpers', 'shell-process.mjs');
const open: Shell[] = [];
const folders: string[] = [];

afterAll(() => {
  for (const shell of open.splice(0)) shell.child.kill('SIGKILL');
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export interface ShellRun {
  code: number | null;
  stdout: string;
  stderr: string;
  json?: Record<string, unknown>;
}

export interface Shell {
  child: ChildProcessWithoutNullStreams;
  pid: number;
  /** Runs `autopilot -C dir …args` as a child of this process and waits for it. */
  run(dir: string, args: string[], env?: Record<string, string>): Promise<ShellRun>;
  /** Ends the process (SIGKILL, as a crashed client), and waits until it is gone. */
  end(): Promise<void>;
}

/** The environment of a person's shell: nothing of an agent client or of autopilot's session variables from whoever runs the tests. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of ['AUTOPILOT_SESSION', 'AUTOPILOT_CRASH_AT', 'AUTOPILOT_STOP_AT', 'CLAUDE_CODE_SESSION_ID', 'CODEX_THREAD_ID', 'CLAUDE_ENV_FILE'])
    delete env[key];
  return { ...env, ...extra };
}

/** `kind: 'conversation'`: the process is named as an agent client (`claude.mjs`); `terminal`: a person's shell. */
export async function openShell(kind: 'conversation' | 'terminal'): Promise<Shell> {
  let script = SCRIPT;
  if (kind === 'conversation') {
    const dir = mkdtempSync(join(tmpdir(), 'autopilot-conversation-'));
    folders.push(dir);
    script = join(dir, 'claude.mjs');
    copyFileSync(SCRIPT, script);
  }
  const child = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'pipe'], env: cleanEnv({}) });
  const replies = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const reply = async () => {
    const next = await replies.next();
    if (next.done) throw new Error(`the ${kind} process ended`);
    return JSON.parse(next.value) as Record<string, unknown>;
  };
  await reply();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const shell: Shell = {
    child,
    pid: child.pid!,
    async run(dir, args, env = {}) {
      child.stdin.write(JSON.stringify({ bin: BIN, args: inDir(dir, args), env: cleanEnv(env) }) + '\n');
      const r = (await reply()) as { code: number | null; stdout: string; stderr: string };
      let json: Record<string, unknown> | undefined;
      try {
        json = r.stdout.trim() ? (JSON.parse(r.stdout) as Record<string, unknown>) : undefined;
      } catch {
        json = undefined;
      }
      return { ...r, ...(json ? { json } : {}) };
    },
    async end() {
      child.kill('SIGKILL');
      await exited;
    },
  };
  open.push(shell);
  return shell;
}
