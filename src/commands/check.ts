/** `autopilot check`: every flow, skill, the pointer, the journal and the guards; every problem, exit 2 when there is one. */
import { runCheck } from '../app/check.js';
import { EXIT } from '../errors.js';
import { checkJson } from '../render/json.js';
import { checkText } from '../render/text.js';
import { defineCommand } from './command.js';

export const check = defineCommand({
  name: 'check',
  summary: 'validate flows, skills, the pointer and the journal; report every problem',
  readOnly: true,
  mcp: { tool: 'Validate flows, skills, pointer, journal.', answer: 'check' },
  run: (ctx) => runCheck(ctx),
  view: (r) => ({ json: checkJson(r), text: checkText(r), exit: r.problems.length === 0 ? EXIT.ok : EXIT.badInput }),
});
