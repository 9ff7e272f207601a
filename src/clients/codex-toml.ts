/**
 * Codex's TOML files `init` writes (docs/sessions.md): the MCP server in the
 * project's `.codex/config.toml` (the agent's own tools approved, the
 * person-only ones set to ask), and the
 * exec policy `.codex/rules/autopilot.rules` that makes the person-only
 * commands ask first. Codex applies both once the person trusts the project.
 * A bundle of its own: only `init` loads the TOML parser.
 */
import { parse, stringify } from 'smol-toml';
import { InputError } from '../errors.js';
import { AGENT_WRITE_TOOLS, PERSON_COMMANDS, PERSON_OPTIONS, type Launch } from './client.js';

type Table = Record<string, unknown>;
const isTable = (v: unknown): v is Table => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The config with autopilot's server appended; undefined when it has one already (a person's own table is kept as it is). */
export function withCodexServer(text: string | undefined, file: string, launch: Launch): string | undefined {
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
  // Codex asks before a tool that writes, unless told: the agent's own tools run, a person's ask first.
  const tools = Object.fromEntries([
    ...AGENT_WRITE_TOOLS.map((name) => [name, { approval_mode: 'approve' }]),
    ...PERSON_COMMANDS.map((name) => [name, { approval_mode: 'prompt' }]),
  ]);
  const table = stringify({ mcp_servers: { autopilot: { command: launch.mcp.command, args: launch.mcp.args, tools } } });
  const head = text === undefined || text.trim() === '' ? '' : `${text.trimEnd()}\n\n`;
  return `${head}# autopilot: its MCP server; the agent's tools run, the ones only a person decides ask first\n${table}\n`;
}

/**
 * The words a person-only option may follow where an agent types it: a
 * command's name, an option that takes no value, `--step` and its number
 * (`done --step 3 --json --force`). Codex's exec policy matches a command's
 * first words, each from a list, with no wildcard: after free text or
 * another option's value (`substep "…" --force`, `--session s --take-over`)
 * the option is not caught; the texts never spell it so (docs/sessions.md).
 */
const BEFORE_OPTION = [
  ...AGENT_WRITE_TOOLS,
  ...PERSON_COMMANDS,
  'status',
  '--json',
  '--commit',
  ...PERSON_OPTIONS,
  '--step',
  ...Array.from({ length: 99 }, (_, i) => String(i + 1)),
];
/** How many such words a person-only option is caught after. */
const OPTION_DEPTH = 4;

/** The exec policy: each person-only command, and each person-only option among the first words, asks first (in `codex exec`, which asks nobody, it is refused). */
export function codexRules(launch: Launch): string {
  const words = launch.words.map((w) => JSON.stringify(w));
  const rule = (pattern: string[]) => `prefix_rule(pattern=[${[...words, ...pattern].join(', ')}], decision="prompt")`;
  const rules = [
    ...PERSON_COMMANDS.map((name) => rule([JSON.stringify(name)])),
    ...PERSON_OPTIONS.flatMap((option) =>
      Array.from({ length: OPTION_DEPTH + 1 }, (_, depth) => rule([...Array<string>(depth).fill('BEFORE'), JSON.stringify(option)])),
    ),
  ];
  return [
    '# autopilot: what only a person decides asks first. Written by `autopilot init`.',
    '# BEFORE: the words a person-only option is caught after (a command, an option without a value, --step N).',
    `BEFORE = [${BEFORE_OPTION.map((w) => JSON.stringify(w)).join(', ')}]`,
    ...rules,
    '',
  ].join('\n');
}
