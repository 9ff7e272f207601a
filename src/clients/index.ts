/**
 * The agent clients autopilot sets up and recognises, in the order their ids
 * are tried (docs/sessions.md). A new client: one file beside these, one line
 * here. Everything below reads the list when it is asked, never a copy made
 * at load, so a client added to it (test/unit/clients/fake-client.test.ts) is
 * picked up everywhere.
 */
import type { Client, HookFields } from './client.js';
import { claudeCode } from './claude-code.js';
import { codex } from './codex.js';
import { cursor } from './cursor.js';
import { aider, amp, gemini, goose, opencode } from './recognised.js';

export const CLIENTS: readonly Client[] = [
  claudeCode,
  codex,
  cursor,
  // Recognised by their process only.
  gemini,
  opencode,
  goose,
  aider,
  amp,
];

/** The environment variables that name the conversation of a shell command, in order. */
export const sessionEnv = (): readonly string[] => CLIENTS.flatMap((c) => c.sessionEnv);

/** The environment variables a client puts in every shell command it runs. */
export const commandEnv = (): readonly string[] => CLIENTS.flatMap((c) => c.commandEnv);

/** The names the clients' processes run under, in lower case. */
export const processNames = (): ReadonlySet<string> => new Set(CLIENTS.flatMap((c) => c.processNames.map((n) => n.toLowerCase())));

/** The folders of their own the clients' files go in, deepest first within each client. */
export const clientFolders = (): readonly string[] => CLIENTS.flatMap((c) => c.folders);

/** The clients that run autopilot's SessionStart and SessionEnd hooks (`init --hooks`), with the file each keeps them in. */
export const hookedClients = (): { name: string; file: string }[] =>
  CLIENTS.flatMap((c) => (c.hooksFile === undefined ? [] : [{ name: c.name, file: c.hooksFile }]));

/** The conversation's id an MCP call carries, where its client sends one: the clients' `_meta` keys, then the generic `sessionId`. */
export function mcpSessionOf(meta: Record<string, unknown> | undefined): string | undefined {
  for (const key of [...CLIENTS.flatMap((c) => c.mcpMeta), 'sessionId']) if (typeof meta?.[key] === 'string') return meta[key];
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
