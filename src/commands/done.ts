/**
 * `autopilot done`: the step succeeded; its evidence is checked before the
 * pointer moves on (rule 8): its Done-when files, and what the skill's
 * declared outputs hold (`evidence/`).
 */
import { stepCommand, type StepArgs } from './step-command.js';

export const done = stepCommand<StepArgs & { force?: boolean; acceptFailures?: boolean; reason?: string }>({
  name: 'done',
  summary: 'the current step succeeded: check its evidence, then advance',
  examples: [
    { line: 'autopilot done', does: 'the current step succeeded: check its files, then move on' },
    { line: 'autopilot done --step 3', does: 'the same, refused if the work has moved past step 3' },
    { line: 'autopilot done --force --reason "reviewed on paper"', does: 'a person marks it done without its files (journaled)' },
  ],
  tool: 'The step succeeded; its done_when files must exist and pass their checks.',
  aimed: true,
  options: [
    {
      key: 'force',
      flags: '--force',
      type: 'boolean',
      summary: 'a person marks the step done without its artifacts (journaled; needs --reason)',
      person: true,
      notOnMcp:
        "a person's override of the evidence rule: a client's permission rules name MCP tools, not their arguments, so it stays on the command line where a rule asks the person",
    },
    {
      key: 'acceptFailures',
      flags: '--accept-failures',
      type: 'boolean',
      summary: "a person accepts the step's failed test run; every other check still holds (journaled; needs --reason)",
      person: true,
      notOnMcp:
        "a person's acceptance of failed tests: a client's permission rules name MCP tools, not their arguments, so it stays on the command line where a rule asks the person",
    },
    { key: 'reason', flags: '--reason <text>', type: 'string', summary: 'why, for the journal', notOnMcp: 'it goes with --force or --accept-failures only' },
  ],
  event: (a) =>
    a.force
      ? { type: 'done', force: { reason: a.reason ?? '' }, ...(a.acceptFailures ? { acceptFailures: { reason: a.reason ?? '' } } : {}) }
      : a.acceptFailures
        ? { type: 'done', acceptFailures: { reason: a.reason ?? '' } }
        : { type: 'done' },
});
