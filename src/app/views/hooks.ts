/**
 * `autopilot hook session-start|session-end`, for the agent client's hooks
 * (Claude Code's `.claude/settings.json`, Codex's `.codex/hooks.json`, one
 * format; docs/sessions.md). Both read the hook's JSON on stdin and never
 * block a session: whatever fails is one short note, and exit 0.
 *
 * - SessionStart: the status as context for the model, the lease's holder
 *   when it is another session's; and what the client that ran it does for
 *   a new conversation (`clients/`: Claude Code's `$CLAUDE_ENV_FILE`).
 * - SessionEnd: the lease this conversation holds is released.
 */
import type { Client, HookFields } from '../../clients/client.js';
import { hookClient, hookFields } from '../../clients/index.js';
import { conversationProcess } from '../../io/conversation.js';
import { readLease } from '../../io/lease-file.js';
import { openRepo } from '../../io/repo.js';
import { listRuns } from '../../io/run.js';
import { DEFAULT_RUN } from '../../formats/run-name.js';
import { HOOK_STDIN_WAIT_MS } from '../../limits.js';
import { sessionOf, type Context } from '../transaction/context.js';
import { heldByThisConversation } from '../transaction/lease-view.js';
import { runStatus } from './status.js';
import { requireRunNamed } from '../transaction/run-named.js';
import { transact } from '../transaction/transact.js';
import type { View } from './view.js';

export interface HookInput {
  id?: string;
  /** `startup` for a new conversation; `resume` for a resumed, continued or forked one. */
  source?: string;
  /** The client that ran the hook (its words differ: Codex has no environment file), where it can be told. */
  client?: Client;
}

/** stdin whole, or what came before the wait ran out (a hook never waits on a terminal). */
function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return Promise.resolve('');
  return new Promise((resolve) => {
    let text = '';
    const finish = () => {
      clearTimeout(timer);
      process.stdin.pause();
      resolve(text);
    };
    const timer = setTimeout(finish, HOOK_STDIN_WAIT_MS);
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => (text += chunk));
    process.stdin.once('end', finish);
    process.stdin.once('error', finish);
  });
}

/** The hook's input, as far as it can be read: a bad session id is no id. */
export function hookInput(text: string, env: NodeJS.ProcessEnv): HookInput & { fields: HookFields } {
  const fields = hookFields(text);
  let id: string | undefined;
  try {
    id = fields.id === undefined ? undefined : sessionOf(fields.id, {}).session;
  } catch {
    id = undefined;
  }
  const client = hookClient(fields, env);
  return { ...(id ? { id } : {}), ...(fields.source !== undefined ? { source: fields.source } : {}), ...(client ? { client } : {}), fields };
}

export interface SessionStart {
  input: HookInput;
  /** What went wrong on the way, one short line each. */
  notes: string[];
  /** The status as the session starts, or the error that kept it from being read. */
  status: { view: View } | { error: unknown };
  /** The run this conversation drives (`$AUTOPILOT_RUN`, else the default), said where the repository holds named runs. */
  run?: string;
}

/** The run a conversation drives, where it needs saying: a named one, or the default beside named ones; undefined in a repository of one run. */
function runToSay(ctx: Context): string | undefined {
  try {
    const repo = openRepo(ctx.repo);
    if (repo.run !== DEFAULT_RUN) return repo.run;
    return listRuns(repo.repoDocs).some((r) => r !== DEFAULT_RUN) ? DEFAULT_RUN : undefined;
  } catch {
    return undefined;
  }
}

export async function sessionStart(ctx: Context, env: NodeJS.ProcessEnv = process.env): Promise<SessionStart> {
  const { fields, ...input } = hookInput(await readStdin(), env);
  const notes: string[] = input.id ? [] : ['autopilot: no usable session_id on stdin; commands name their own session.'];
  // What the client does for a new conversation beyond the status (Claude Code: its environment file).
  notes.push(...(input.client?.sessionStarted?.(input.id, fields, env) ?? []));
  let status: SessionStart['status'];
  try {
    const session = input.id ? { session: input.id, sessionFrom: 'client' as const } : {};
    // Named runs only and none named: the context says so, with the runs and the line for each (docs/runs.md).
    requireRunNamed(ctx, 'status');
    status = { view: (await runStatus({ ...ctx, ...session, role: 'cli' })).view };
  } catch (error) {
    status = { error };
  }
  return { input, notes, status, run: runToSay(ctx) };
}

/** SessionEnd: this conversation's lease is released (no event: a lease changes no state), so the next one starts free. */
export async function sessionEnd(ctx: Context, env: NodeJS.ProcessEnv = process.env): Promise<{ input: HookInput; released: boolean }> {
  const { fields: _fields, ...input } = hookInput(await readStdin(), env);
  const conversation = conversationProcess('cli');
  const { result } = await transact(ctx, { flows: 'none' }, ({ repo }) => {
    const onDisk = readLease(repo.leaseFile);
    const lease = 'lease' in onDisk ? onDisk.lease : undefined;
    const ours = lease !== undefined && heldByThisConversation(lease, input.id, conversation);
    return { plan: { entries: [], ...(ours ? { lease: 'release' as const } : {}) }, answer: () => ours };
  });
  return { input, released: result };
}
