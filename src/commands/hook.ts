/** `autopilot hook session-start`: for an agent client's SessionStart hook; always exits 0, never blocks a session. */
import { EXIT, InputError } from '../errors.js';
import { errorText, statusText } from '../render/text.js';
import { defineCommand } from './command.js';

export const hook = defineCommand({
  name: 'hook',
  summary: "for an agent's hooks; `session-start`: Claude Code's SessionStart (always exits 0)",
  arguments: [{ key: 'event', name: '<event>', summary: 'session-start' }],
  mcp: { omitted: "it is for the agent client's hooks, which run it themselves" },
  run: async (ctx, a: { event: string }) => {
    if (a.event !== 'session-start') throw new InputError({ message: `no hook ${a.event}`, expected: 'session-start', received: a.event });
    // Loaded only for the hook: it reads stdin and writes the client's environment file.
    return (await import('../app/session-start.js')).sessionStart(ctx);
  },
  view: (r) => {
    const status =
      'view' in r.status
        ? statusText(r.status.view).split('\n').slice(0, 5).join('\n')
        : `autopilot status failed: ${errorText(r.status.error).split('\n')[0]}`;
    const text = [...(r.id ? [`autopilot session: ${r.id}`] : []), ...r.notes, status, 'Continue with /autopilot (`autopilot next --json`).'].join('\n');
    return { json: {}, text, exit: EXIT.ok };
  },
});
