/** `autopilot lease --remote NAME`: hold the lease on a shared git remote, for agents on several machines. */
import { runLease } from '../app/views/lease-command.js';
import { EXIT } from '../errors.js';
import { defineCommand } from './command.js';

export const lease = defineCommand({
  name: 'lease',
  summary: 'hold the lease on a shared git remote (agents on several machines)',
  examples: [
    { line: 'autopilot lease --remote origin', does: 'hold the lease on origin (agents on several machines)' },
    { line: 'autopilot lease --take-over --remote origin', does: 'a person takes it from another session' },
  ],
  options: [
    { key: 'remote', flags: '--remote <name>', type: 'string', summary: 'the git remote (default: lease.remote in .autopilot/config.yml)' },
    {
      key: 'takeOver',
      flags: '--take-over',
      type: 'boolean',
      summary: 'take it from another session even if it is fresh (journaled)',
      person: true,
      notOnMcp:
        "a person's override: a client's permission rules name MCP tools, not their arguments, so it stays on the command line where a rule asks the person",
    },
  ],
  mcp: { tool: 'Hold the lease on a shared git remote.', answer: 'lease' },
  run: (ctx, a: { remote?: string; takeOver?: boolean }) => runLease(ctx, a.remote, a.takeOver === true),
  view: (r) => ({ json: r, text: `✓ Holding the lease on ${r.remote} (refs/autopilot/lease, ${r.taken}).`, exit: EXIT.ok }),
});
