/** `autopilot checkpoints [--all]`: the checkpoints, newest first; `--all` adds the archived ones. */
import { listCheckpoints, type CheckpointListing } from '../app/transaction/checkpoints.js';
import { EXIT } from '../errors.js';
import { defineCommand } from './command.js';

const lineOf = (c: CheckpointListing) =>
  c.problem
    ? `${c.id}  ! cannot be read: ${c.problem}${c.archived ? '  (archived)' : ''}`
    : `${c.id}  step ${String(c.step)} ${c.status ?? '?'}  event ${c.seq}${c.note ? `  ${c.note}` : ''}${c.archived ? '  (archived)' : ''}`;

export const checkpoints = defineCommand({
  name: 'checkpoints',
  summary: 'list the checkpoints, newest first (`--all`: the archived ones too)',
  examples: [
    { line: 'autopilot checkpoints', does: 'the checkpoints, newest first' },
    { line: 'autopilot checkpoints --all', does: 'the archived ones too' },
  ],
  readOnly: true,
  options: [{ key: 'all', flags: '--all', type: 'boolean', summary: 'the archived checkpoints too (pruned by the retention rule, kept compressed)' }],
  mcp: { tool: 'List the checkpoints, newest first.', answer: 'checkpoints' },
  run: async (ctx, a: { all?: boolean }) => listCheckpoints(ctx, a.all === true),
  view: (list) => ({
    json: { checkpoints: list },
    text: list.length === 0 ? 'No checkpoints yet.' : list.map(lineOf).join('\n'),
    exit: EXIT.ok,
  }),
});
