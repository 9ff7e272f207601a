/** `autopilot repin`: adopt the flow file, the skills and the task index as they are now for the run under way, and the project's test command (journaled). */
import { runRepin } from '../app/setup/repin.js';
import { EXIT } from '../errors.js';
import { defineCommand, PERSON_ONLY_MCP } from './command.js';

export const repin = defineCommand({
  name: 'repin',
  summary: "adopt the flow file and skills as they are now for the run under way, or name the project's tests (journaled)",
  examples: [
    { line: 'autopilot repin', does: 'adopt the edited flow file, skills or test command for the run under way' },
    { line: 'autopilot repin --verify "npm test"', does: "name the project's test command: written as verify: in .autopilot/config.yml, and pinned" },
    { line: 'autopilot repin --verify none --reason "a documentation site"', does: 'say the project has no tests, and why' },
  ],
  options: [
    { key: 'verify', flags: '--verify <command>', type: 'string', summary: "the project's test command (or `none`, with --reason)" },
    { key: 'reason', flags: '--reason <text>', type: 'string', summary: 'why the project has no tests (with `--verify none`)' },
  ],
  person: true,
  mcp: { omitted: PERSON_ONLY_MCP, answer: 'repin' },
  run: (ctx, a: { verify?: string; reason?: string }) => runRepin(ctx, { verify: a.verify, reason: a.reason }),
  view: (r) => ({
    json: { repinned: r.changes.length > 0, changes: r.changes, step: r.position.step, name: r.position.name },
    text:
      r.changes.length === 0
        ? 'Nothing to repin: the run already uses the flow file, the skills and the test command as they are.'
        : `✓ Repinned: ${r.changes.join('; ')}. Run \`autopilot next\`.`,
    exit: EXIT.ok,
  }),
});
