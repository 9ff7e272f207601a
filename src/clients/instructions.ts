/**
 * What `autopilot init` installs for agents: the `/autopilot` command
 * (Claude Code, Cursor), the section of `AGENTS.md` (Codex and any agent that
 * reads it), the line of `CLAUDE.md` that points Claude Code at that section.
 * Each under 2 KB (tested). The command line is called as the installed
 * binary, `node_modules/.bin/autopilot`, never through npx (a start of its own
 * on every call), and always spelled the same way, so the permission rules
 * `init` writes (`claude-code.ts`, `codex.ts`) recognise the commands only a person may
 * run. The texts tell the agent to ask the person for those, never to run
 * them (docs/sessions.md).
 */

import { ERROR_EXIT, EXIT, type ErrorCode } from '../errors.js';
import { AGENT_BIN, type Launch, type Removal } from './client.js';

/**
 * Every answer an agent can get, a row each: what happened, the command
 * line's exit code, the MCP tool result (a tool error's text starts with its
 * code), what the agent does. Every exit code and error code of
 * `errors.ts` has its row (tested).
 */
export const OUTCOMES: readonly { what: string; exit: number; mcp: readonly ErrorCode[] | 'result'; does: string }[] = [
  { what: 'work, recorded', exit: EXIT.ok, mcp: 'result', does: 'do it; `next` again' },
  { what: '`outcome: complete`', exit: EXIT.ok, mcp: 'result', does: 'flow done: tell the person; stop' },
  {
    what: 'decision, boundary, failed step, fork',
    exit: EXIT.stoppedForPerson,
    mcp: 'result',
    does: 'show `decision.question` (or `boundary`), options, recommendation; stop, ask the person (first `boundary.summary.fix`)',
  },
  { what: 'refused: files missing', exit: ERROR_EXIT.refused, mcp: ['refused'], does: 'make what `missing` names' },
  {
    what: 'bad input',
    exit: ERROR_EXIT.bad_input,
    mcp: ['bad_input', 'outside_repository', 'guard_off', 'disk_full'],
    does: 'fix what `error` names (file, line)',
  },
  {
    what: 'another session holds it',
    exit: ERROR_EXIT.held,
    mcp: ['held', 'lease_moved'],
    does: 'show `error.message`, `error.decision`; stop, ask the person',
  },
  { what: 'git, internal error', exit: ERROR_EXIT.internal, mcp: ['git_failed', 'internal'], does: 'show it; stop' },
];

const table = [
  '| what happened | exit | MCP | you |',
  '|---|---|---|---|',
  ...OUTCOMES.map((o) => `| ${o.what} | ${o.exit} | ${o.mcp === 'result' ? 'result' : o.mcp.map((c) => `\`${c}\``).join(' ')} | ${o.does} |`),
].join('\n');

/** The loop, the stops and the exit codes: the same for every agent. */
const LOOP = `1. \`next\` hands out a step: read \`skill\`, write the files of \`done_when\`
   (\`write\`: a numbered file's next name; resumed: go on from \`resume\` if any,
   keep the files in \`have\`), note progress: \`substep "<n — name>"\`, tests:
   \`exec\` (runs \`verify:\`), then \`done\`. Pass next's \`step\` as \`--step N\` to
   the commands after it; after a crash, repeat it. Failed: \`fail --reason "<why>"\`.
2. Act on each answer by its exit code, or over MCP by its result or error
   (isError; it starts with the code):

${table}

\`/autopilot NAME\`: add \`--run NAME\` (MCP \`run\`) to each call.
After a boundary answered A, stop: a new conversation goes on.
autopilot commits its own files at each step: never \`git add\` or commit \`_docs/\`.

Only the person answers a decision or a failure, forces, restores, repins, adopts
or takes over: ask them; never run that command yourself.`;

/** The `/autopilot` command for Claude Code: the status inlined when it is expanded, the arguments, the conversation's id. */
export const claudeCommand = (bin = AGENT_BIN) => `---
description: Drive the autopilot workflow step by step
allowed-tools: Bash(${bin} status:*)
---
Where the work stands:
!\`${bin} status --session \${CLAUDE_SESSION_ID} || true\`

The person said: $ARGUMENTS

Drive this repository's autopilot workflow. Use the \`autopilot\` MCP tools
with \`session: "\${CLAUDE_SESSION_ID}"\`, or run
\`${bin} <command> --json --session \${CLAUDE_SESSION_ID}\`:

${LOOP}
`;

/** The same for Cursor's commands and any client without Claude Code's substitutions. */
export const autopilotCommand = (bin = AGENT_BIN) => `Drive this repository's autopilot workflow: it keeps the position, you do the
work. Use the \`autopilot\` MCP tools when you have them, or run
\`${bin} <command> --json\` (one JSON object on stdout);
\`${bin} status\` shows where the work stands.

${LOOP}
`;

export const AGENTS_BEGIN = '<!-- autopilot:begin -->';
export const AGENTS_END = '<!-- autopilot:end -->';

export const agentsSection = (bin = AGENT_BIN) => `${AGENTS_BEGIN}
## Autopilot

When asked to run \`/autopilot\` (or to continue the project's workflow):

${autopilotCommand(bin)}${AGENTS_END}
`;

/** What every text autopilot writes says: a command file that still says it is autopilot's to refresh. */
export const TEXT_MARK = "Drive this repository's autopilot workflow";

/** Claude Code reads CLAUDE.md, not AGENTS.md: one line imports the section. */
export const CLAUDE_MD_LINE = 'Autopilot: see the Autopilot section of @AGENTS.md (`/autopilot` runs it).';

/** AGENTS.md with autopilot's section, put in place of an older one (between its marks) or appended; undefined when it says it already. */
export function withAgentsSection(text: string | undefined, launch: Launch): string | undefined {
  const section = agentsSection(launch.bin);
  if (text === undefined) return `# Agents\n\n${section}`;
  const begin = text.indexOf(AGENTS_BEGIN);
  const end = text.indexOf(AGENTS_END);
  const updated =
    begin >= 0 && end > begin ? text.slice(0, begin) + section.trimEnd() + text.slice(end + AGENTS_END.length) : `${text.trimEnd()}\n\n${section}`;
  return updated === text ? undefined : updated;
}

/** AGENTS.md without autopilot's section (between its marks); removed where only the heading init wrote is left. */
export function withoutAgentsSection(text: string): Removal {
  const begin = text.indexOf(AGENTS_BEGIN);
  const end = text.indexOf(AGENTS_END);
  if (begin < 0 || end < begin) return { kind: 'none' };
  const before = text.slice(0, begin).trimEnd();
  const after = text.slice(end + AGENTS_END.length).replace(/^\r?\n/, '');
  const rest = after.trim() === '' ? (before === '' ? '' : `${before}\n`) : `${before === '' ? '' : `${before}\n\n`}${after}`;
  if (rest.trim() === '' || rest.trim() === '# Agents') return { kind: 'remove' };
  return { kind: 'edit', text: rest };
}
