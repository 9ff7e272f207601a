/**
 * Claude Code (docs/sessions.md, docs/claude-code-facts.md). `init` sets up
 * the `/autopilot` command, the line of `CLAUDE.md` that imports AGENTS.md's
 * section, the MCP server in `.mcp.json`, and `.claude/settings.json`: the
 * `permissions.ask` rules for what only a person decides (its commands and
 * options on the command line: none is an MCP tool), and with `--hooks`
 * the SessionStart and SessionEnd hooks. Its hooks run with
 * `$CLAUDE_PROJECT_DIR` set; at a new conversation's start the hook names the
 * conversation in `$CLAUDE_ENV_FILE`, which Claude Code runs before every
 * shell command.
 */
import { writeFileSync } from 'node:fs';
import { PERSON_COMMANDS, PERSON_OPTIONS, type Client, type Launch, type Removal } from './client.js';
import type { Json } from './config-files.js';
import {
  changed,
  dropEmpty,
  dropHooks,
  objectAt,
  ours,
  oursRemoved,
  parseObject,
  withHooks,
  withLines,
  withMcpServer,
  withoutIn,
  withoutLines,
  withoutMcpServer,
} from './config-files.js';
import { InputError } from '../errors.js';
import { OLD_CLAUDE_ASK } from './legacy.js';
import { CLAUDE_MD_LINE, claudeCommand, TEXT_MARK } from './instructions.js';

/** What Claude Code names the project's root in, to its hooks: they run autopilot from there. */
const PROJECT_DIR = 'CLAUDE_PROJECT_DIR';

/** Claude Code's permission rules that make it ask the person before an agent runs a person's command or option (none is an MCP tool). */
export function askRules(): string[] {
  return [...PERSON_COMMANDS.map((name) => `Bash(*autopilot* ${name}*)`), ...PERSON_OPTIONS.map((flag) => `Bash(*autopilot* *${flag}*)`)];
}

/** The ask rules of autopilot's an older init wrote (for the person's MCP tools, gone since): taken out by init and uninstall. */
const OLD_RULES = new Set(OLD_CLAUDE_ASK);

/** Claude Code's settings: the ask rules, and with `hooks` the SessionStart and SessionEnd hooks. */
export function withClaudeSettings(text: string | undefined, file: string, launch: Launch, hooks: boolean): string | undefined {
  const json = parseObject(text, file);
  const permissions = objectAt(json, 'permissions', file, '"permissions": { "ask": [ … ] }');
  const ask = permissions.ask === undefined ? [] : permissions.ask;
  if (!Array.isArray(ask)) throw new InputError({ file, message: '`permissions.ask` is not a list', expected: '"ask": [ … ]' });
  const kept = ask.filter((rule) => !(typeof rule === 'string' && OLD_RULES.has(rule)));
  const rules = [...kept, ...askRules().filter((rule) => !kept.includes(rule))];
  const withRules = { ...json, permissions: { ...permissions, ask: rules } };
  return changed(text, hooks ? withHooks(withRules, file, (event) => launch.hook(event, PROJECT_DIR)) : withRules);
}

/** Claude Code's settings without autopilot's ask rules and hooks. */
export function withoutClaudeSettings(text: string, file: string): Removal {
  return withoutIn(text, file, (json) => {
    const permissions = json.permissions;
    let found = false;
    if (typeof permissions === 'object' && permissions !== null && Array.isArray((permissions as Json).ask)) {
      const p = permissions as Json;
      const ask = p.ask as unknown[];
      const ours = new Set([...askRules(), ...OLD_RULES]);
      const rest = ask.filter((rule) => !(typeof rule === 'string' && ours.has(rule)));
      if (rest.length < ask.length) {
        found = true;
        p.ask = rest;
        dropEmpty(p, 'ask');
        dropEmpty(json, 'permissions');
      }
    }
    return dropHooks(json) || found;
  });
}

export const claudeCode: Client = {
  id: 'claude-code',
  name: 'Claude Code',
  processNames: ['claude'],
  folders: ['.claude/commands', '.claude'],
  hooksFile: '.claude/settings.json',
  files: (launch, { hooks }) => [
    { path: '.claude/commands/autopilot.md', make: ours(claudeCommand(launch.bin), TEXT_MARK), unmake: oursRemoved(claudeCommand(launch.bin), TEXT_MARK) },
    { path: 'CLAUDE.md', make: (t) => withLines(t, '', [CLAUDE_MD_LINE]), unmake: (t) => withoutLines(t, '', [CLAUDE_MD_LINE]) },
    { path: '.mcp.json', make: (t) => withMcpServer(t, '.mcp.json', launch), unmake: (t) => withoutMcpServer(t, '.mcp.json') },
    {
      path: '.claude/settings.json',
      make: (t) => withClaudeSettings(t, '.claude/settings.json', launch, hooks),
      unmake: (t) => withoutClaudeSettings(t, '.claude/settings.json'),
    },
  ],
  // Versions that set it; 2.1.112 does not (the `/autopilot` text passes `--session ${CLAUDE_SESSION_ID}`).
  sessionEnv: ['CLAUDE_CODE_SESSION_ID'],
  commandEnv: [],
  mcpMeta: [],
  // Claude Code gives its hooks $CLAUDE_PROJECT_DIR (and SessionStart $CLAUDE_ENV_FILE).
  ranHook: (_fields, env) => env[PROJECT_DIR] !== undefined || env.CLAUDE_ENV_FILE !== undefined,
  sessionStarted(id, fields, env) {
    // Never on a resume (the line of the first start still holds) or a fork (the hook is handed the parent's id, which would be wrong).
    if (!id || fields.source !== 'startup') return [];
    if (!env.CLAUDE_ENV_FILE) return [`autopilot: $CLAUDE_ENV_FILE is not set; commands name this conversation with --session ${id}.`];
    try {
      // The file is this hook's alone: written whole, it holds one line however often the hook runs.
      writeFileSync(env.CLAUDE_ENV_FILE, `export AUTOPILOT_SESSION=${id}\n`);
      return [];
    } catch (error) {
      return [`autopilot: could not write $CLAUDE_ENV_FILE (${(error as NodeJS.ErrnoException).code ?? 'error'}).`];
    }
  },
  instructions: '/autopilot',
};
