/** The `/autopilot` command `autopilot init` installs for agents: how to drive the engine, in a dozen lines. */

export const AUTOPILOT_COMMAND = `Drive this repository's autopilot workflow. The engine keeps the position; you do the work.

1. Run \`npx autopilot next --json\` and act on its exit code:
   - 0 with \`action\` start, resume or retry: read the file in \`skill\` and do that step.
     Resume where \`resume\` says. Record progress inside the step with
     \`npx autopilot substep "<n — name>"\`. The step is done when the files in
     \`done_when\` exist; then run \`npx autopilot done\`.
   - 3: stop and show the person the block it printed (a decision, a session
     boundary, or a step that failed three times). Never answer a decision
     yourself; run \`npx autopilot decide <letter>\` with the person's answer.
   - 2: read the message; it names the file and line to fix.
   - 4: another session drives this repository; stop and show the person the message.
   Pass the \`step\` that \`next\` gave you to \`done\`, \`fail\` and \`substep\` as \`--step N\`;
   after a crash, simply run the same command again: a repeat is recorded once.
2. If an attempt fails, run \`npx autopilot fail --reason "<why>"\`, then \`next\` again.
3. After \`done\` exits 0, run \`next\` again in the same session. After a session
   boundary, stop: the next step belongs to a new conversation.

\`npx autopilot status\` shows where the work stands at any time.
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
