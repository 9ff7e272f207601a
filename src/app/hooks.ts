/**
 * `autopilot hook session-start|session-end`, for the agent client's hooks
 * (Claude Code's `.claude/settings.json`, Codex's `.codex/hooks.json`, one
 * format; docs/sessions.md). Both read the hook's JSON on stdin and never
 * block a session: whatever fails is one short note, and exit 0.
 *
 * - SessionStart: the status as context for the model, the lease's holder
 *   when it is another session's; in Claude Code, for a new conversation,
 *   one `export AUTOPILOT_SESSION=<id>` line in `$CLAUDE_ENV_FILE`, which
 *   Claude Code runs before every shell command. Never on a resume (the line
 *   of the first start still holds) or a fork (Claude Code then hands the hook
 *   the parent's id, which would be wrong).
 * - SessionEnd: the lease this conversation holds is released.
 */
import { writeFileSync } from 'node:fs';
import { conversationProcess } from '../io/conversation.js';
import { readLease } from '../io/lease-file.js';
import { HOOK_STDIN_WAIT_MS } from '../limits.js';
import { sessionOf, type Context } from './context.js';
import { heldByThisConversation } from './lease-view.js';
import { runStatus } from './status.js';
import { transact } from './transaction.js';
import type { View } from './view.js';

/** The client that ran the hook: its words differ (Codex has no environment file). */
export type HookClient = 'claude' | 'codex' | 'unknown';

export interface HookInput {
  id?: string;
  /** `startup` for a new conversation; `resume` for a resumed, continued or forked one. */
  source?: string;
  client: HookClient;
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
export function hookInput(text: string, env: NodeJS.ProcessEnv): HookInput {
  let input: { session_id?: unknown; source?: unknown; transcript_path?: unknown } = {};
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null) input = value;
  } catch {
    // Not JSON: no id.
  }
  let id: string | undefined;
  try {
    id = typeof input.session_id === 'string' ? sessionOf(input.session_id, {}).session : undefined;
  } catch {
    id = undefined;
  }
  // Claude Code gives its hooks $CLAUDE_PROJECT_DIR; Codex keeps its transcripts as `rollout-…` files.
  const client: HookClient =
    env.CLAUDE_PROJECT_DIR !== undefined || env.CLAUDE_ENV_FILE !== undefined
      ? 'claude'
      : typeof input.transcript_path === 'string' && input.transcript_path.includes('rollout-')
        ? 'codex'
        : 'unknown';
  return { ...(id ? { id } : {}), ...(typeof input.source === 'string' ? { source: input.source } : {}), client };
}

export interface SessionStart {
  input: HookInput;
  /** What went wrong on the way, one short line each. */
  notes: string[];
  /** The status as the session starts, or the error that kept it from being read. */
  status: { view: View } | { error: unknown };
}

export async function sessionStart(ctx: Context, env: NodeJS.ProcessEnv = process.env): Promise<SessionStart> {
  const input = hookInput(await readStdin(), env);
  const notes: string[] = input.id ? [] : ['autopilot: no usable session_id on stdin; commands name their own session.'];
  if (input.client === 'claude' && input.id && input.source === 'startup') {
    if (!env.CLAUDE_ENV_FILE) notes.push(`autopilot: $CLAUDE_ENV_FILE is not set; commands name this conversation with --session ${input.id}.`);
    else {
      try {
        // The file is this hook's alone: written whole, it holds one line however often the hook runs.
        writeFileSync(env.CLAUDE_ENV_FILE, `export AUTOPILOT_SESSION=${input.id}\n`);
      } catch (error) {
        notes.push(`autopilot: could not write $CLAUDE_ENV_FILE (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
      }
    }
  }
  let status: SessionStart['status'];
  try {
    const session = input.id ? { session: input.id, sessionFrom: 'client' as const } : {};
    status = { view: (await runStatus({ ...ctx, ...session, role: 'cli' })).view };
  } catch (error) {
    status = { error };
  }
  return { input, notes, status };
}

/** SessionEnd: this conversation's lease is released (no event: a lease changes no state), so the next one starts free. */
export async function sessionEnd(ctx: Context, env: NodeJS.ProcessEnv = process.env): Promise<{ input: HookInput; released: boolean }> {
  const input = hookInput(await readStdin(), env);
  const conversation = conversationProcess('cli');
  const { result } = await transact(ctx, { flows: 'none' }, ({ repo }) => {
    const onDisk = readLease(repo.leaseFile);
    const lease = 'lease' in onDisk ? onDisk.lease : undefined;
    const ours = lease !== undefined && heldByThisConversation(lease, input.id, conversation);
    return { plan: { entries: [], ...(ours ? { lease: 'release' as const } : {}) }, answer: () => ours };
  });
  return { input, released: result };
}
