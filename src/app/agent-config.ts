/**
 * The agents' own config files `init` adds autopilot to (docs/sessions.md):
 *
 * - the MCP server: Claude Code's `.mcp.json`, Cursor's `.cursor/mcp.json`,
 *   Codex's `.codex/config.toml` (`codex-config.ts`);
 * - Claude Code's `.claude/settings.json`: the `permissions.ask` rules for
 *   what only a person decides, and with `--hooks` the SessionStart and
 *   SessionEnd hooks; Codex's `.codex/hooks.json` (same format) likewise.
 *
 * Each file is parsed, autopilot's entries added, and written back whole;
 * other servers, hooks, rules and keys stay as they were. Pure but for one
 * `existsSync`. Codex's TOML files are `codex-config.ts`, loaded only by init.
 *
 * The binary is named directly, never through `npx` (a start of its own on
 * every call, and a download where the package is missing): the installed
 * `node_modules/.bin/autopilot`, found from any folder of the project, or
 * `node` with the absolute path of the running `bin/autopilot.js` (a checkout
 * used from elsewhere).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../errors.js';
import { packageRoot } from '../io/package-root.js';
import { CODEX_SESSION_END_TIMEOUT_SECONDS, HOOK_TIMEOUT_SECONDS } from '../limits.js';
import { AGENT_BIN } from './agent-instructions.js';

/** What only a person decides (rule 10): the commands, and the options of any command. Kept equal to the registry's `person` marks (tested). */
export const PERSON_COMMANDS = ['decide', 'ack', 'repin', 'restore'] as const;
export const PERSON_OPTIONS = ['--force', '--accept-failures', '--take-over'] as const;
/** The MCP tools an agent runs that write (the rest only read, or are a person's). Kept equal to the registry (tested). */
export const AGENT_WRITE_TOOLS = ['next', 'substep', 'done', 'fail', 'skip', 'breadcrumb', 'report', 'lease', 'checkpoint'] as const;

export interface Launch {
  /** The command line as texts and permission rules spell it, and as its words. */
  bin: string;
  words: string[];
  /** The MCP server, started from whatever folder of the project the client runs in. */
  mcp: { command: string; args: string[] };
  /** A hook's command line (`hook session-start`), for Claude Code and for Codex. */
  claudeHook: (event: string) => string;
  codexHook: (event: string) => string;
}

/** Finds the project's installed binary from any folder below it: the nearest `node_modules/.bin/autopilot` above. */
const FIND_BIN = `d=$PWD; while [ ! -x "$d/${AGENT_BIN}" ] && [ "$d" != / ]; do d=$(dirname "$d"); done; exec "$d/${AGENT_BIN}"`;

const quote = (word: string) => (/^[\w./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);

export function launchOf(root: string): Launch {
  if (existsSync(join(root, AGENT_BIN))) {
    return {
      bin: AGENT_BIN,
      words: [AGENT_BIN],
      mcp: { command: 'sh', args: ['-c', `${FIND_BIN} mcp`] },
      // Claude Code names the folder it started in, where it read these settings.
      claudeHook: (event) => `"$CLAUDE_PROJECT_DIR"/${AGENT_BIN} hook ${event}`,
      codexHook: (event) => `${FIND_BIN} hook ${event}`,
    };
  }
  const script = join(packageRoot(), 'bin', 'autopilot.js');
  const line = (event: string) => ['node', script, 'hook', event].map(quote).join(' ');
  return { bin: `node ${quote(script)}`, words: ['node', script], mcp: { command: 'node', args: [script, 'mcp'] }, claudeHook: line, codexHook: line };
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

function objectAt(json: Json, key: string, file: string, expected: string): Json {
  const value = json[key] === undefined ? {} : json[key];
  if (!isObject(value)) throw new InputError({ file, message: `\`${key}\` is not an object`, expected });
  return value;
}

const render = (json: Json) => `${JSON.stringify(json, null, 2)}\n`;
/** The new text, or undefined when the file already says it. */
const changed = (text: string | undefined, json: Json) => (text !== undefined && text.trim() !== '' && sameJson(text, json) ? undefined : render(json));
const sameJson = (text: string, json: Json) => JSON.stringify(JSON.parse(text)) === JSON.stringify(json);

/** The MCP config (`.mcp.json`, `.cursor/mcp.json`) with autopilot's server. */
export function withMcpServer(text: string | undefined, file: string, launch: Launch): string | undefined {
  const json = parseObject(text, file);
  const servers = objectAt(json, 'mcpServers', file, '"mcpServers": { … }');
  const have = isObject(servers.autopilot) ? servers.autopilot : {};
  return changed(text, { ...json, mcpServers: { ...servers, autopilot: { ...have, ...launch.mcp } } });
}

/** Claude Code's permission rules that make it ask the person before an agent runs a person's command, CLI or MCP. */
export function askRules(): string[] {
  return [
    ...PERSON_COMMANDS.map((name) => `Bash(*autopilot* ${name}*)`),
    ...PERSON_OPTIONS.map((flag) => `Bash(*autopilot* *${flag}*)`),
    ...PERSON_COMMANDS.map((name) => `mcp__autopilot__${name}`),
  ];
}

/** A hook group that runs autopilot's `hook <event>`, with this command line. */
const hookGroup = (command: string, timeout: number) => ({ hooks: [{ type: 'command', command, timeout }] });
const isOurs = (group: unknown, event: string) =>
  isObject(group) && Array.isArray(group.hooks) && group.hooks.some((h) => isObject(h) && typeof h.command === 'string' && h.command.includes(`hook ${event}`));

/** Hooks (Claude Code's format, which Codex reads too) with autopilot's SessionStart and SessionEnd, an older spelling of ours replaced. */
function withHooks(
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

/** Claude Code's settings: the ask rules, and with `hooks` the SessionStart and SessionEnd hooks. */
export function withClaudeSettings(text: string | undefined, file: string, launch: Launch, hooks: boolean): string | undefined {
  const json = parseObject(text, file);
  const permissions = objectAt(json, 'permissions', file, '"permissions": { "ask": [ … ] }');
  const ask = permissions.ask === undefined ? [] : permissions.ask;
  if (!Array.isArray(ask)) throw new InputError({ file, message: '`permissions.ask` is not a list', expected: '"ask": [ … ]' });
  const rules = [...ask, ...askRules().filter((rule) => !ask.includes(rule))];
  const withRules = { ...json, permissions: { ...permissions, ask: rules } };
  return changed(text, hooks ? withHooks(withRules, file, launch.claudeHook) : withRules);
}

/** Codex's hooks file: the same format as Claude Code's, run from the folder Codex started in; SessionEnd within Codex's limit. */
export function withCodexHooks(text: string | undefined, file: string, launch: Launch): string | undefined {
  return changed(text, withHooks(parseObject(text, file), file, launch.codexHook, { sessionEnd: CODEX_SESSION_END_TIMEOUT_SECONDS }));
}
