/**
 * The agent clients autopilot sets up and recognises, in the order their ids
 * are tried (docs/sessions.md). A new client: one file beside these, one line
 * here.
 */
import type { Client, HookFields } from './client.js';
import { claudeCode } from './claude-code.js';
import { codex } from './codex.js';
import { cursor } from './cursor.js';

export const CLIENTS: readonly Client[] = [claudeCode, codex, cursor];

/** The environment variables that name the conversation of a shell command, in order. */
export const SESSION_ENV: readonly string[] = CLIENTS.flatMap((c) => c.sessionEnv);

/** The environment variables a client puts in every shell command it runs. */
export const COMMAND_ENV: readonly string[] = CLIENTS.flatMap((c) => c.commandEnv);

/** The `_meta` keys of an MCP call that name the conversation: the clients', then the generic `sessionId`. */
const MCP_META: readonly string[] = [...CLIENTS.flatMap((c) => c.mcpMeta), 'sessionId'];

/** The conversation's id an MCP call carries, where its client sends one. */
export function mcpSessionOf(meta: Record<string, unknown> | undefined): string | undefined {
  for (const key of MCP_META) if (typeof meta?.[key] === 'string') return meta[key];
  return undefined;
}

/** The hook's JSON, as far as it can be read: not JSON, or not an object, is no id. */
export function hookFields(text: string): HookFields {
  let raw: Record<string, unknown> = {};
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) raw = value as Record<string, unknown>;
  } catch {
    // Not JSON: no id.
  }
  return {
    ...(typeof raw.session_id === 'string' ? { id: raw.session_id } : {}),
    ...(typeof raw.source === 'string' ? { source: raw.source } : {}),
    raw,
  };
}

/** The client that ran a hook, where it can be told. */
export const hookClient = (fields: HookFields, env: NodeJS.ProcessEnv): Client | undefined => CLIENTS.find((c) => c.ranHook(fields, env));
