/** The `/autopilot` command `autopilot init` installs for agents: how to drive the engine, in twenty lines (under 2 KB, tested). */

export const AUTOPILOT_COMMAND = `Drive this repository's autopilot workflow. The engine keeps the position; you do the work.
Use the \`autopilot\` MCP tools (next, done, fail, decide, …) when you have them: same JSON,
an error as \`isError\`. Else run \`npx --no autopilot next --json\` (every command takes --json:
one JSON object on stdout) and act on the exit code.

1. \`next\`:
   - 0, \`action\` start, resume or retry: read the file in \`skill\` (a repository path), do
     that step from \`resume\` on. Record progress with \`substep "<n — name>"\`. When the
     files in \`done_when\` exist, run \`done\`. Pass next's \`step\` to \`done\`, \`fail\`,
     \`skip\` and \`substep\` as \`--step N\`; after a crash, repeat the same command.
   - 3: stop for the person. With --json nothing is drawn: show \`decision.question\`
     (or \`boundary.decision.question\` with \`boundary.summary\`), each option's letter
     and choice, and \`recommendation\` with its reason. Never choose yourself; after the
     person answers, run \`decide <letter>\`. A \`failed\` outcome waits for a person's \`ack\`.
   - 2: fix what \`error\` names (file, line), or do what it says is missing.
   - 4: another session drives this repository: stop and show \`error.message\`.
   - 1: an internal error: stop and show it.
2. An attempt failed: \`fail --reason "<why>"\`, then \`next\`.
3. After \`done\` exits 0, \`next\` again. After a boundary answered A, stop: the next
   step belongs to a new conversation.

\`status\` shows where the work stands at any time.
`;

export const CLAUDE_COMMAND = `---
description: Drive the autopilot workflow one step at a time
---
${AUTOPILOT_COMMAND}`;

export const AGENTS_BEGIN = '<!-- autopilot:begin -->';
export const AGENTS_END = '<!-- autopilot:end -->';

export const AGENTS_SECTION = `${AGENTS_BEGIN}
## Autopilot

When asked to run \`/autopilot\` (or to continue the project's workflow):

${AUTOPILOT_COMMAND}${AGENTS_END}
`;
