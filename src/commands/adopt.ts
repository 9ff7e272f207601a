/** `autopilot adopt`: a person adopts what is held for them — a hand edit of the pointer past a gate, an edit of the pinned criteria, a journal that lost events (journaled). */
import { runAdopt } from '../app/setup/adopt.js';
import { EXIT } from '../errors.js';
import { defineCommand } from './command.js';

export const adopt = defineCommand({
  name: 'adopt',
  summary: 'a person adopts a held hand edit (of the pointer past a gate, or of the pinned acceptance criteria), journaled',
  examples: [
    { line: 'autopilot adopt', does: 'a person adopts the held edit `autopilot status` names; the run goes on from it' },
    { line: 'autopilot adopt --json', does: 'the same; what was adopted as one JSON object' },
  ],
  person: true,
  mcp: {
    omitted:
      "a person's command: it applies an edit that passes a gate only a person owns, and MCP clients' rules cannot ask for it as a terminal does (the agent asks the person to run it)",
  },
  run: (ctx) => runAdopt(ctx),
  view: (r) => {
    const at = r.position.step === 'done' ? 'done' : `step ${r.position.step} (${r.position.name}), ${r.position.status}`;
    return {
      json: {
        adopted: r.adopted,
        flow: r.position.flow,
        step: r.position.step,
        name: r.position.name,
        status: r.position.status,
        sub_step: r.position.subStep,
        retry_count: r.position.retryCount,
      },
      text: [
        ...r.adopted.map((a) =>
          a.what === 'journal'
            ? `✓ Adopted the journal as it is: ${a.changes.join(', ')}.`
            : `✓ Adopted the held edit of the ${a.what === 'pointer' ? 'pointer' : 'acceptance criteria'}: ${a.changes.join(', ') || 'as written'}.`,
        ),
        `The run goes on from ${at}. Run \`autopilot next\`.`,
      ].join('\n'),
      exit: EXIT.ok,
    };
  },
});
