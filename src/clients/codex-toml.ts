/**
 * Codex's TOML file `init` writes (docs/sessions.md): the MCP server in the
 * project's `.codex/config.toml` (the agent's own tools approved: a person's
 * command is no tool at all). Codex applies it once the person trusts the
 * project. A bundle of its own: only `init` (and `check`, where the file is
 * there) loads the TOML parser.
 */
import { parse, stringify } from 'smol-toml';
import { InputError } from '../errors.js';
import { AGENT_WRITE_TOOLS, type Launch, type Removal } from './client.js';
import { OLD_CODEX_TOOLS } from './legacy.js';

type Table = Record<string, unknown>;
const isTable = (v: unknown): v is Table => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The config with autopilot's server appended; undefined when it has one already (a person's own table is kept as it is; an older init's, as it wrote it, is brought up to date). */
export function withCodexServer(text: string | undefined, file: string, launch: Launch): string | undefined {
  if (text?.includes(oldServerBlock(launch))) return text.replace(oldServerBlock(launch), serverBlock(launch));
  let config: Table;
  try {
    config = text === undefined ? {} : parse(text);
  } catch (error) {
    throw new InputError({
      file,
      message: `not valid TOML, so init cannot add autopilot to it: ${(error as Error).message.split('\n')[0]}`,
      expected: 'a TOML file',
    });
  }
  const servers = isTable(config.mcp_servers) ? config.mcp_servers : {};
  if (servers.autopilot !== undefined) return undefined;
  const head = text === undefined || text.trim() === '' ? '' : `${text.trimEnd()}\n\n`;
  return `${head}${serverBlock(launch)}`;
}

/** The lines init appends: a comment and autopilot's table. */
function serverBlock(launch: Launch): string {
  // Codex asks before a tool that writes, unless told: the agent's own tools run (a person's command is no tool).
  const tools = Object.fromEntries(AGENT_WRITE_TOOLS.map((name) => [name, { approval_mode: 'approve' }]));
  const table = stringify({ mcp_servers: { autopilot: { command: launch.mcp.command, args: launch.mcp.args, tools } } });
  return `# autopilot: its MCP server; the agent's tools run (what only a person decides is no tool)\n${table}\n`;
}

/** The lines an older init appended, with the person's commands as tools set to ask (`legacy.ts`). */
function oldServerBlock(launch: Launch): string {
  const table = stringify({ mcp_servers: { autopilot: { command: launch.mcp.command, args: launch.mcp.args, tools: OLD_CODEX_TOOLS } } });
  return `# autopilot: its MCP server; the agent's tools run, the ones only a person decides ask first\n${table}\n`;
}

/** The config without the lines init appended (this version's or an older one's); a table of autopilot's that is not as init wrote it is left, and said. */
export function withoutCodexServer(text: string, launch: Launch): Removal {
  const block = [serverBlock(launch), oldServerBlock(launch)].find((b) => text.includes(b)) ?? serverBlock(launch);
  const at = text.indexOf(block);
  if (at < 0)
    return /^\[mcp_servers\.autopilot[\].]/m.test(text)
      ? { kind: 'changed', why: 'its [mcp_servers.autopilot] table is not as autopilot wrote it' }
      : { kind: 'none' };
  const before = text.slice(0, at).trimEnd();
  const after = text.slice(at + block.length);
  const rest = before === '' ? after.trimStart() : `${before}\n${after === '' ? '' : `\n${after.trimStart()}`}`;
  return rest.trim() === '' ? { kind: 'remove' } : { kind: 'edit', text: rest };
}
