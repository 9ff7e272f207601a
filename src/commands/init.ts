/** `autopilot init`: set a repository up for autopilot and its agents; safe to run again. */
import { runInit } from '../app/init.js';
import { EXIT } from '../errors.js';
import type { InitAnswer } from '../render/answers.js';
import { defineCommand } from './command.js';

export const init = defineCommand({
  name: 'init',
  summary: 'set a repository up: folders, git lines, the /autopilot command for agents',
  examples: [
    { line: 'autopilot init', does: 'set this repository up for autopilot and its agents' },
    { line: 'autopilot init --flow greenfield', does: 'the same, and start the greenfield flow at step 1' },
    { line: 'autopilot init --hooks', does: 'the same, with the SessionStart and SessionEnd hooks' },
  ],
  options: [
    { key: 'flow', flags: '--flow <id>', type: 'string', summary: 'also start this flow at step 1' },
    {
      key: 'hooks',
      flags: '--hooks',
      type: 'boolean',
      summary: 'also add the SessionStart and SessionEnd hooks: Claude Code (.claude/settings.json) and Codex (.codex/hooks.json)',
    },
  ],
  mcp: { omitted: 'it sets up the agent client that starts the MCP server: a person runs it once, at a shell' },
  run: (ctx, a: { flow?: string; hooks?: boolean }) => runInit(ctx, a.flow, { hooks: a.hooks === true }),
  view: (r) => {
    const json: InitAnswer = { created: r.created, kept: r.kept, ...(r.pointer ? { pointer: r.pointer } : {}), commits: r.commits };
    const text = [
      ...r.created.map((f) => `+ ${f}`),
      ...r.kept.map((f) => `= ${f} (already set up)`),
      r.commits,
      r.pointer
        ? `Started ${r.pointer.flow} at step 1. Run \`autopilot next\`.`
        : 'Ready. Run `autopilot next` (or `autopilot init --flow <id>` to choose the flow).',
    ].join('\n');
    return { json, text, exit: EXIT.ok };
  },
});
