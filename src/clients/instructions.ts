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

import { AGENT_BIN, type Launch } from './client.js';

/** The loop, the stops and the exit codes: the same for every agent. */
const LOOP = `1. \`next\`:
   - 0, \`action\` start/resume/retry: read the file in \`skill\`, do that step from
     \`resume\` on; record progress with \`substep "<n — name>"\`; when the files in
     \`done_when\` exist, \`done\`. Pass next's \`step\` as \`--step N\` to \`done\`, \`fail\`,
     \`skip\`, \`substep\`; after a crash, repeat the same command.
   - 3: stop for the person. Show \`decision.question\` (or \`boundary.decision\` with
     \`boundary.summary\`), each option's letter and choice, and the recommendation with
     its reason, then ask the person to answer it. Never choose yourself. A \`failed\`
     outcome waits for a person too: show the reason and ask them.
   - 2: fix what \`error\` names (file, line), or do what it says is missing.
   - 4: another session holds the repository: show \`error.message\` and
     \`error.decision\` to the person and stop; only they may take it over.
   - 1: an internal error: stop and show it.
2. An attempt failed: \`fail --reason "<why>"\`, then \`next\`.
3. After \`done\` exits 0, \`next\` again. After a boundary answered A, stop: the
   next step belongs to a new conversation.

Only a person answers a decision, acknowledges a failure, forces a step, restores
a checkpoint, repins a flow or takes over from another session: ask them.`;

/** The `/autopilot` command for Claude Code: the status inlined when it is expanded, the arguments, the conversation's id. */
export const claudeCommand = (bin = AGENT_BIN) => `---
description: Drive the autopilot workflow one step at a time
allowed-tools: Bash(${bin} status:*)
---
Where the work stands:
!\`${bin} status --session \${CLAUDE_SESSION_ID} || true\`

The person said: $ARGUMENTS

Drive this repository's autopilot workflow; the engine keeps the position, you
do the work. Use the \`autopilot\` MCP tools with \`session: "\${CLAUDE_SESSION_ID}"\`,
or run \`${bin} <command> --json --session \${CLAUDE_SESSION_ID}\` (one JSON
object on stdout) and act on the exit code:

${LOOP}
`;

/** The same for Cursor's commands and any client without Claude Code's substitutions. */
export const autopilotCommand = (bin = AGENT_BIN) => `Drive this repository's autopilot workflow; the engine keeps the position, you
do the work. Use the \`autopilot\` MCP tools when you have them, or run
\`${bin} <command> --json\` (one JSON object on stdout) and act on the exit
code. \`${bin} status\` shows where the work stands.

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
