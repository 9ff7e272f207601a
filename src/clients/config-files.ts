/**
 * The edits `init` makes to the clients' own files, shared by the clients:
 * a JSON config parsed, autopilot's entries added, and written back whole
 * (other servers, hooks, rules and keys stay as they were); lines appended to
 * a text file that lacks them; a text autopilot wrote refreshed. Pure: text
 * in, text out (undefined: the file already says it).
 */
import { InputError } from '../errors.js';
import type { Launch, Removal } from './client.js';

export type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function parseObject(text: string | undefined, file: string): Json {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InputError({ file, message: `not valid JSON, so init cannot add autopilot to it: ${(error as Error).message}`, expected: 'a JSON object' });
  }
  if (!isObject(value)) throw new InputError({ file, message: 'not a JSON object, so init cannot add autopilot to it', expected: 'a JSON object' });
  return value;
}

export function objectAt(json: Json, key: string, file: string, expected: string): Json {
  const value = json[key] === undefined ? {} : json[key];
  if (!isObject(value)) throw new InputError({ file, message: `\`${key}\` is not an object`, expected });
  return value;
}

const render = (json: Json) => `${JSON.stringify(json, null, 2)}\n`;
/** The new text, or undefined when the file already says it. */
export const changed = (text: string | undefined, json: Json) => (text !== undefined && text.trim() !== '' && sameJson(text, json) ? undefined : render(json));
const sameJson = (text: string, json: Json) => JSON.stringify(JSON.parse(text)) === JSON.stringify(json);

/** An MCP config (`.mcp.json`, `.cursor/mcp.json`) with autopilot's server. */
export function withMcpServer(text: string | undefined, file: string, launch: Launch): string | undefined {
  const json = parseObject(text, file);
  const servers = objectAt(json, 'mcpServers', file, '"mcpServers": { … }');
  const have = isObject(servers.autopilot) ? servers.autopilot : {};
  return changed(text, { ...json, mcpServers: { ...servers, autopilot: { ...have, ...launch.mcp } } });
}

/** How long a client lets autopilot's hook run (the hook's `timeout`, in seconds): the hook takes a fraction of one. */
export const HOOK_TIMEOUT_SECONDS = 10;

/** A hook group that runs autopilot's `hook <event>`, with this command line. */
const hookGroup = (command: string, timeout: number) => ({ hooks: [{ type: 'command', command, timeout }] });
const isOurs = (group: unknown, event: string) =>
  isObject(group) && Array.isArray(group.hooks) && group.hooks.some((h) => isObject(h) && typeof h.command === 'string' && h.command.includes(`hook ${event}`));

/** Hooks (Claude Code's format, which Codex reads too) with autopilot's SessionStart and SessionEnd, an older spelling of ours replaced. */
export function withHooks(
  json: Json,
  file: string,
  command: (event: string) => string,
  timeouts: { sessionEnd: number } = { sessionEnd: HOOK_TIMEOUT_SECONDS },
): Json {
  const hooks = objectAt(json, 'hooks', file, '"hooks": { "SessionStart": [ … ] }');
  const out: Json = { ...hooks };
  for (const [event, name] of [
    ['SessionStart', 'session-start'],
    ['SessionEnd', 'session-end'],
  ] as const) {
    const groups = hooks[event] === undefined ? [] : hooks[event];
    if (!Array.isArray(groups)) throw new InputError({ file, message: `\`hooks.${event}\` is not a list`, expected: `"${event}": [ … ]` });
    out[event] = [...groups.filter((g) => !isOurs(g, name)), hookGroup(command(name), event === 'SessionEnd' ? timeouts.sessionEnd : HOOK_TIMEOUT_SECONDS)];
  }
  return { ...json, hooks: out };
}

/** The file with the lines it lacks appended, or undefined when it has them all. */
export function withLines(text: string | undefined, header: string, lines: string[]): string | undefined {
  const have = new Set((text ?? '').split(/\r?\n/).map((l) => l.trim()));
  const missing = lines.filter((l) => !have.has(l));
  if (missing.length === 0) return undefined;
  const body = text ?? '';
  const prefix = body === '' ? '' : body.endsWith('\n') ? `${body}\n` : `${body}\n\n`;
  return `${prefix}${header ? `${header}\n` : ''}${missing.join('\n')}\n`;
}

/** A text autopilot wrote (it still says `mark`) is refreshed; a person's own file is kept. */
export const ours = (text: string, mark: string) => (t: string | undefined) => (t === undefined || (t.includes(mark) && t !== text) ? text : undefined);

// What `uninstall` takes out again: the inverse of each edit above.

export const NOTHING: Removal = { kind: 'none' };
const REMOVE: Removal = { kind: 'remove' };

/** The text left once autopilot's part is out: removed where nothing else is left. */
export function leftOver(text: string, rest: string): Removal {
  if (rest === text) return NOTHING;
  return rest.trim() === '' ? REMOVE : { kind: 'edit', text: rest };
}

/**
 * The file without the lines `withLines` appended: each block under `header`
 * (the header and the lines of `lines` right after it), or with no header
 * each line of `lines`; the blank line that set a block apart goes with it.
 */
export function withoutLines(text: string, header: string, lines: string[]): Removal {
  const ours = new Set(lines);
  const all = text.split('\n');
  const kept: string[] = [];
  for (let i = 0; i < all.length; i++) {
    const line = all[i]!.replace(/\r$/, '').trim();
    if (header === '' ? ours.has(line) : line === header) {
      if (header !== '') while (i + 1 < all.length && ours.has(all[i + 1]!.replace(/\r$/, '').trim())) i++;
      // The blank line withLines put before the block, when the block ends the file or stands between blank lines.
      const next = all[i + 1];
      if (kept.length > 0 && kept.at(-1)!.trim() === '' && (next === undefined || next.trim() === '')) kept.pop();
      continue;
    }
    kept.push(all[i]!);
  }
  return leftOver(text, kept.join('\n'));
}

/** A JSON file with autopilot's part taken out by `drop` (which says whether it found any): written back, or removed when nothing is left. */
function withoutInJson(text: string, file: string, drop: (json: Json) => boolean): Removal {
  let json: Json;
  try {
    json = parseObject(text, file);
  } catch {
    return text.includes('autopilot') ? { kind: 'changed', why: 'not a JSON object any more' } : NOTHING;
  }
  if (!drop(json)) return NOTHING;
  return Object.keys(json).length === 0 ? REMOVE : { kind: 'edit', text: render(json) };
}

/** Deletes `key` of `json` where it is an object left empty. */
export function dropEmpty(json: Json, key: string): void {
  const value = json[key];
  if ((isObject(value) && Object.keys(value).length === 0) || (Array.isArray(value) && value.length === 0)) delete json[key];
}

/** An MCP config without autopilot's server. */
export function withoutMcpServer(text: string, file: string): Removal {
  return withoutInJson(text, file, (json) => {
    const servers = json.mcpServers;
    if (!isObject(servers) || servers.autopilot === undefined) return false;
    delete servers.autopilot;
    dropEmpty(json, 'mcpServers');
    return true;
  });
}

/** Hooks without autopilot's SessionStart and SessionEnd groups (in place); whether there were any. */
export function dropHooks(json: Json): boolean {
  const hooks = json.hooks;
  if (!isObject(hooks)) return false;
  let found = false;
  for (const [event, name] of [
    ['SessionStart', 'session-start'],
    ['SessionEnd', 'session-end'],
  ] as const) {
    const groups = hooks[event];
    if (!Array.isArray(groups)) continue;
    const rest = groups.filter((g) => !isOurs(g, name));
    if (rest.length === groups.length) continue;
    found = true;
    hooks[event] = rest;
    dropEmpty(hooks, event);
  }
  if (found) dropEmpty(json, 'hooks');
  return found;
}

/** A hooks file (Codex's) without autopilot's hooks. */
export const withoutHooks = (text: string, file: string): Removal => withoutInJson(text, file, dropHooks);

/** A JSON file with `edit` applied in place (for a client's own settings). */
export const withoutIn = withoutInJson;

/** A text autopilot wrote: removed while it is as autopilot wrote it, left (and said) once a person changed it. */
export const oursRemoved = (text: string, mark: string) => (t: string) =>
  t === text ? REMOVE : t.includes(mark) ? { kind: 'changed' as const, why: 'changed since autopilot wrote it' } : NOTHING;
