/** `autopilot restore ID`: return the pointer to a checkpoint (journaled; no history is deleted). */
import { runRestore } from '../app/transaction/checkpoints.js';
import { EXIT } from '../errors.js';
import { defineCommand, PERSON_ONLY_MCP } from './command.js';

export const restore = defineCommand({
  name: 'restore',
  summary: 'return the pointer to a checkpoint (journaled; no history is deleted)',
  examples: [
    { line: 'autopilot restore 2026-11-27T021923.031Z-checkpoint', does: 'return the pointer to that checkpoint (ids: `autopilot checkpoints`)' },
    { line: 'autopilot restore 2026-11-27T021923.031Z-checkpoint --json', does: 'the same; where it returned to as one JSON object' },
  ],
  person: true,
  arguments: [{ key: 'id', name: '<id>', summary: 'a checkpoint id from `autopilot checkpoints`' }],
  mcp: { omitted: PERSON_ONLY_MCP, answer: 'restore' },
  run: (ctx, a: { id: string }) => runRestore(ctx, a.id),
  view: (r) => {
    const at = r.position.step === 'done' ? 'done' : `step ${r.position.step} (${r.position.name}), ${r.position.status}`;
    return {
      json: {
        restored: r.id,
        step: r.position.step,
        name: r.position.name,
        status: r.position.status,
        ...(r.warning ? { warning: r.warning } : {}),
        skill_state: r.skillState,
        not_restored: r.notRestored,
      },
      text: [
        ...(r.warning ? [`! ${r.warning}`] : []),
        ...(r.notRestored ? [`! not restored (no skill of this flow declares it now): ${r.notRestored.join(', ')}`] : []),
        `✓ Restored ${r.id}: ${at}${r.skillState ? `, and the skill's state: ${r.skillState.join(', ')}` : ''}. Run \`autopilot next\`.`,
      ].join('\n'),
      exit: EXIT.ok,
    };
  },
});
