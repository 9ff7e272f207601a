/**
 * The agents' own config files `init` adds autopilot to: the MCP server for
 * Claude Code (`.mcp.json`) and Cursor (`.cursor/mcp.json`), and with
 * `--hooks` Claude Code's SessionStart hook (`.claude/settings.json`). Each
 * file is parsed, autopilot's entry added, and written back whole; other
 * servers, hooks and keys stay as they were. Pure but for one `existsSync`.
 *
 * The binary is named directly, never through `npx` (which may download):
 * `node_modules/.bin/autopilot`, relative to the repository, when autopilot
 * is installed there (the file can be committed; both clients start project
 * servers and hooks in the project folder); else `node` with the absolute
 * path of the running `bin/autopilot.js` (a checkout used from elsewhere).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../errors.js';
import { packageRoot } from '../io/package-root.js';
import { HOOK_TIMEOUT_SECONDS } from '../limits.js';

export const LOCAL_BIN = 'node_modules/.bin/autopilot';

export interface Launch {
  command: string;
  args: string[];
}

export function launchOf(root: string): Launch {
  if (existsSync(join(root, LOCAL_BIN))) return { command: LOCAL_BIN, args: [] };
  return { command: 'node', args: [join(packageRoot(), 'bin', 'autopilot.js')] };
}

/** The hook as one shell command line. */
export function hookCommand(launch: Launch): string {
  const quote = (word: string) => (/^[\w./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);
  return [launch.command, ...launch.args, 'hook', 'session-start'].map(quote).join(' ');
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function parseObject(text: string | undefined, file: string): Json {
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

const render = (json: Json) => `${JSON.stringify(json, null, 2)}\n`;

/** The MCP config with autopilot's server, or undefined when it already has it as it should be. */
export function withMcpServer(text: string | undefined, file: string, launch: Launch): string | undefined {
  const json = parseObject(text, file);
  const servers = json.mcpServers === undefined ? {} : json.mcpServers;
  if (!isObject(servers)) throw new InputError({ file, message: '`mcpServers` is not an object', expected: '"mcpServers": { … }' });
  const want = { command: launch.command, args: [...launch.args, 'mcp'] };
  const have = servers.autopilot;
  if (isObject(have) && JSON.stringify({ command: have.command, args: have.args }) === JSON.stringify(want)) return undefined;
  return render({ ...json, mcpServers: { ...servers, autopilot: { ...(isObject(have) ? have : {}), ...want } } });
}

/** Claude Code's settings with the SessionStart hook, or undefined when one already runs `autopilot hook session-start`. */
export function withSessionStartHook(text: string | undefined, file: string, launch: Launch): string | undefined {
  const json = parseObject(text, file);
  const hooks = json.hooks === undefined ? {} : json.hooks;
  if (!isObject(hooks)) throw new InputError({ file, message: '`hooks` is not an object', expected: '"hooks": { "SessionStart": [ … ] }' });
  const start = hooks.SessionStart === undefined ? [] : hooks.SessionStart;
  if (!Array.isArray(start)) throw new InputError({ file, message: '`hooks.SessionStart` is not a list', expected: '"SessionStart": [ … ]' });
  const present = start.some(
    (group) =>
      isObject(group) &&
      Array.isArray(group.hooks) &&
      group.hooks.some((h) => isObject(h) && typeof h.command === 'string' && h.command.includes('hook session-start')),
  );
  if (present) return undefined;
  const ours = { hooks: [{ type: 'command', command: hookCommand(launch), timeout: HOOK_TIMEOUT_SECONDS }] };
  return render({ ...json, hooks: { ...hooks, SessionStart: [...start, ours] } });
}
