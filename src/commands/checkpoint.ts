/** `autopilot checkpoint [--note TEXT]`: snapshot the state now. */
import { runCheckpoint } from '../app/transaction/checkpoints.js';
import { EXIT } from '../errors.js';
import { defineCommand } from './command.js';

export const checkpoint = defineCommand({
  name: 'checkpoint',
  summary: 'snapshot the state now (kept: the 24 newest, then one a day for 30 days)',
  examples: [
    { line: 'autopilot checkpoint', does: 'snapshot the state now' },
    { line: 'autopilot checkpoint --note "before the deploy"', does: 'the same, with a note' },
  ],
  options: [{ key: 'note', flags: '--note <text>', type: 'string', summary: 'what this checkpoint is for' }],
  mcp: { tool: 'Snapshot the state now.', answer: 'checkpoint' },
  run: (ctx, a: { note?: string }) => runCheckpoint(ctx, a.note ?? ''),
  view: (r) => ({
    json: r,
    text: `✓ Checkpoint ${r.id}${r.pruned.length ? ` (pruned ${r.pruned.length} old ones)` : ''}. Return to it with \`autopilot restore ${r.id}\`.`,
    exit: EXIT.ok,
  }),
});
