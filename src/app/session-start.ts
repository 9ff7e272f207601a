/**
 * `autopilot hook session-start`, for Claude Code's SessionStart hook. Reads
 * the hook's JSON on stdin, appends `export AUTOPILOT_SESSION=<session_id>`
 * to `$CLAUDE_ENV_FILE` (Claude Code sources that file before every command
 * of the conversation, so each carries its identity; `export` makes it reach
 * autopilot), and prints a few lines of status as context for the model.
 * It never blocks a session: whatever fails is one short note, and exit 0.
 */
import { appendFileSync } from 'node:fs';
import { HOOK_STDIN_WAIT_MS, SESSION_ID_MAX_LENGTH } from '../limits.js';
import type { Context } from './context.js';
import { runStatus } from './status.js';
import type { View } from './view.js';
const SESSION_ID = new RegExp(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,${SESSION_ID_MAX_LENGTH - 1}}$`);

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

function sessionIdOf(text: string): string | undefined {
  try {
    const input = JSON.parse(text) as { session_id?: unknown };
    return typeof input.session_id === 'string' && SESSION_ID.test(input.session_id) ? input.session_id : undefined;
  } catch {
    return undefined;
  }
}

export interface SessionStart {
  /** The conversation's id, when the hook's input carried a usable one. */
  id?: string;
  /** What went wrong on the way, one short line each. */
  notes: string[];
  /** The status as the session starts, or the error that kept it from being read. */
  status: { view: View } | { error: unknown };
}

export async function sessionStart(ctx: Context, env: NodeJS.ProcessEnv = process.env): Promise<SessionStart> {
  const notes: string[] = [];
  const id = sessionIdOf(await readStdin());
  if (!id) notes.push('autopilot: no usable session_id on stdin; commands run as the default session.');
  else if (!env.CLAUDE_ENV_FILE) notes.push(`autopilot: $CLAUDE_ENV_FILE is not set; pass --session ${id} to name this conversation.`);
  else {
    try {
      appendFileSync(env.CLAUDE_ENV_FILE, `export AUTOPILOT_SESSION=${id}\n`);
    } catch (error) {
      notes.push(`autopilot: could not write $CLAUDE_ENV_FILE (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
    }
  }
  let status: SessionStart['status'];
  try {
    status = { view: (await runStatus(id ? { ...ctx, session: id } : ctx)).view };
  } catch (error) {
    status = { error };
  }
  return { ...(id ? { id } : {}), notes, status };
}
