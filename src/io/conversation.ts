/**
 * The process of the conversation a command belongs to: the agent client
 * above it (the clients and their process names: `src/clients/`). The lease records it, so that a
 * conversation that has ended — crashed, closed, finished — is known to be
 * gone at once, and the next conversation never waits for a timer
 * (docs/sessions.md).
 *
 * - The MCP server's conversation is its parent: the client started it.
 * - A command line call walks up from its parent to the nearest process
 *   whose command names a client's process (a Bash tool's shell sits between).
 *   With no agent above it, its parent stands in: a person's shell — unless
 *   a client's environment says a client ran it: then the command runs in a
 *   sandbox that hides the client's processes, and nothing stands in.
 *
 * A process is named by its pid and its start time, so a pid the system
 * reused is not taken for the conversation. Linux reads `/proc`; macOS asks
 * `ps` once a level; elsewhere the conversation cannot be judged.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { commandEnv, processNames } from '../clients/index.js';
import type { ProcessRef } from '../engine/lease.js';
import { CONVERSATION_MAX_DEPTH } from '../limits.js';

export type { ProcessRef };

interface ProcessInfo extends ProcessRef {
  ppid: number;
  argv: string[];
}

/** What a program's file may end in beside its name: `claude.exe`, `codex.js`. */
const PROGRAM_SUFFIX = /\.(exe|js|cjs|mjs)$/i;

/**
 * Whether a command is an agent client's: its program, or the script its
 * program runs (`node …/codex.js`), is named as a client's process
 * (`clients/`: `claude`, `codex`, `cursor-agent`, …), in any case.
 */
export function isAgentCommand(argv: readonly string[]): boolean {
  const names = processNames();
  return argv.slice(0, 2).some((word) => names.has(basename(word).replace(PROGRAM_SUFFIX, '').toLowerCase()));
}

/** One process's parent, start time and command line; `gone` when no process has the pid; undefined when this system cannot tell. */
export function processInfo(pid: number): ProcessInfo | 'gone' | undefined {
  if (!Number.isSafeInteger(pid) || pid <= 1) return undefined;
  if (process.platform === 'linux') return linuxInfo(pid);
  if (process.platform === 'darwin') return psInfo(pid);
  return undefined;
}

function linuxInfo(pid: number): ProcessInfo | 'gone' | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : undefined;
  }
  // `pid (comm) state ppid …`: the command may hold spaces and parentheses, so read from the last `)`.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // A zombie has ended: only its parent has not reaped it yet (a killed client whose parent died too waits for pid 1).
  if (fields[0] === 'Z' || fields[0] === 'X') return 'gone';
  let argv: string[] = [];
  try {
    argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    // A process that just exited: its command line no longer matters.
  }
  return { pid, ppid: Number(fields[1]), start: fields[19] ?? '', argv };
}

function psInfo(pid: number): ProcessInfo | 'gone' | undefined {
  let out: string;
  try {
    // Loaded here, on macOS only: child_process brings net and streams with it, which no other command start needs.
    const { execFileSync } = process.getBuiltinModule('node:child_process');
    out = execFileSync('ps', ['-o', 'ppid=,lstart=,command=', '-p', String(pid)], { encoding: 'utf8', timeout: 2000 }).trim();
  } catch (error) {
    // `ps -p` exits 1 with nothing printed for a pid no process has.
    const status = (error as { status?: number; stdout?: string }).status;
    return status === 1 && !(error as { stdout?: string }).stdout?.trim() ? 'gone' : undefined;
  }
  // `  123 Thu Nov 26 10:00:00 2026 /usr/local/bin/claude -p …`: lstart is five words.
  const words = out.split(/\s+/);
  if (words.length < 7) return undefined;
  return { pid, ppid: Number(words[0]), start: words.slice(1, 6).join(' '), argv: words.slice(6) };
}

/** Whether a client put in this environment what it puts in every shell command it runs: such a command has the client above it (docs/codex-facts.md). */
const clientRanMe = (env: NodeJS.ProcessEnv) => commandEnv().some((key) => env[key]);

/**
 * Whether this process can tell that a process of this machine has ended.
 * Not a command a client ran that sees no client above it (`conversation`
 * undefined): it runs in a PID namespace of its own (Codex's sandbox), where
 * every process outside looks gone.
 */
export function seesOtherProcesses(role: 'cli' | 'server', conversation: ProcessRef | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  return role === 'server' || conversation !== undefined || !clientRanMe(env);
}

/** The conversation this process belongs to; undefined where it cannot be told. `from`: the process to look from, this one's parent. */
export function conversationProcess(role: 'cli' | 'server', env: NodeJS.ProcessEnv = process.env, from = process.ppid): ProcessRef | undefined {
  const parent = processInfo(from);
  if (!parent || parent === 'gone') return undefined;
  if (role === 'server') return { pid: parent.pid, start: parent.start };
  let at: ProcessInfo | 'gone' | undefined = parent;
  for (let depth = 0; at && at !== 'gone' && depth < CONVERSATION_MAX_DEPTH; depth++) {
    if (isAgentCommand(at.argv)) return { pid: at.pid, start: at.start };
    at = processInfo(at.ppid);
  }
  // A client ran this command, yet no client is above it: the command sees a process tree of its own (Codex's
  // workspace-write sandbox on Linux runs it in a PID namespace whose pid 1 is the sandbox), and a pid seen here
  // names some other process outside it. The conversation cannot be told; the parent does not stand in.
  if (clientRanMe(env)) return undefined;
  return { pid: parent.pid, start: parent.start };
}

/**
 * Whether a conversation is provably gone: true when no process has its pid
 * and start time; false when it runs; undefined when this system cannot tell.
 */
export function conversationGone(ref: ProcessRef): boolean | undefined {
  const now = processInfo(ref.pid);
  if (now === undefined) return undefined;
  return now === 'gone' || now.start !== ref.start;
}
