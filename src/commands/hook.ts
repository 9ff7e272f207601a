/** `autopilot hook session-start|session-end`: for an agent client's hooks; always exits 0, never blocks a session. */
import type { SessionStart } from '../app/views/hooks.js';
import { hookedClients } from '../clients/index.js';
import { EXIT, InputError } from '../errors.js';
import { errorText, pendingLines, problemLines, statusText } from '../render/text.js';
import { defineCommand } from './command.js';
import { DEFAULT_RUN } from '../formats/run-name.js';

const EVENTS = ['session-start', 'session-end'] as const;

/** The clients that run these hooks (`src/clients/`). */
const HOOKED = hookedClients()
  .map((c) => c.name)
  .join(', ');

/** The run this conversation drives, and how it keeps it (docs/runs.md): said only where the repository holds named runs. */
function runLines(run: string | undefined): string[] {
  if (run === undefined) return [];
  if (run === DEFAULT_RUN) return ['autopilot run: default (this repository holds named runs too; no `--run` drives the default run)'];
  return [`autopilot run: ${run} (this conversation drives it: \`--run ${run}\` on every command, \`run: "${run}"\` on every MCP tool)`];
}

/** What the model reads as the conversation starts: the status, its problems, and what to do next in this client's words. */
function startText(r: SessionStart): string {
  const { input, notes, status } = r;
  if (!('view' in status)) return [...notes, `autopilot status failed: ${errorText(status.error).split('\n')[0]}`].join('\n');
  const { view } = status;
  const lease = view.lease;
  const other = lease?.holder && !lease.mine ? lease.holder : undefined;
  // A holder whose conversation has ended, or that has been quiet too long, is taken over by the next step command: no one to ask.
  const free = lease?.gone === true || lease?.stale === true;
  const named = r.run !== undefined && r.run !== DEFAULT_RUN ? r.run : undefined;
  const go = `Continue with ${input.client?.instructions ?? '/autopilot'}${named ? ` ${named}` : ''} (\`node_modules/.bin/autopilot next --json${named ? ` --run ${named}` : ''}\`).`;
  // A guard that is off (a lock left in the way) refuses every step command: the agent cannot go on, and a person clears it.
  const next = view.guards?.length
    ? 'autopilot cannot run a step here until a person clears the problem named above: show it to them and wait; do not remove or take over a lock yourself.'
    : !other
      ? go
      : free
        ? `The session that held this repository (${other.session} on ${other.host}) ${lease?.gone ? 'has ended' : 'has been quiet too long'}: \`next\` takes it over (journaled). ${go}`
        : `Another session holds this repository (${other.session} on ${other.host}): ask the person before you run autopilot; only they may take it over.`;
  // The short status (seed 001): title, step, status, retries, next, and the last action when the pointer has one; problems follow.
  // A line that starts with a space goes on the line above it (a wrapped `Next`), kept or left with it.
  let kept = false;
  const summary = statusText(view)
    .split('\n')
    .filter((l, i) => {
      if (!l.startsWith(' ')) kept = i < 5 || l.startsWith('Last ');
      return kept;
    });
  // A question waiting for the person (a decision, a boundary, a failure): shown here, where they look; only they answer it.
  const question = view.pending ? [...pendingLines(view), 'Only the person answers this: show them the question and wait; never answer it yourself.'] : [];
  return [...(input.id ? [`autopilot session: ${input.id}`] : []), ...runLines(r.run), ...notes, ...summary, ...question, ...problemLines(view), next].join(
    '\n',
  );
}

export const hook = defineCommand({
  name: 'hook',
  anyRun: true,
  summary: "for an agent client's hooks: `session-start` (the status as context), `session-end` (releases the lease); always exits 0",
  plain: true,
  examples: [
    { line: 'autopilot hook session-start', does: `the status as context for a new conversation (${HOOKED})` },
    { line: 'autopilot hook session-end', does: 'release the lease when the conversation ends' },
  ],
  arguments: [{ key: 'event', name: '<event>', summary: 'session-start or session-end', choices: EVENTS }],
  mcp: { omitted: "it is for the agent client's hooks, which run it themselves" },
  run: async (ctx, a: { event: string }) => {
    if (!(EVENTS as readonly string[]).includes(a.event))
      throw new InputError({ message: `no hook ${a.event}`, expected: EVENTS.join(' or '), received: a.event });
    // Loaded only for a hook: it reads stdin and may write the client's environment file.
    const hooks = await import('../app/views/hooks.js');
    if (a.event === 'session-end') {
      try {
        return { event: 'session-end' as const, released: (await hooks.sessionEnd(ctx)).released };
      } catch (error) {
        return { event: 'session-end' as const, released: false, error: errorText(error).split('\n')[0] };
      }
    }
    return { event: 'session-start' as const, start: await hooks.sessionStart(ctx) };
  },
  view: (r) => {
    if (r.event === 'session-end')
      return {
        json: { released: r.released },
        text: r.released ? 'autopilot: the lease is released.' : 'error' in r ? `autopilot: ${r.error}` : '',
        exit: EXIT.ok,
      };
    return { json: {}, text: startText(r.start), exit: EXIT.ok };
  },
});
