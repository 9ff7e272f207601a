/**
 * The slots git processes run in: at most `GIT_PROCESSES_MAX` commands at
 * once in this process, the rest started in turn as slots are given back
 * (first come, first served). A slot is held from spawn until the process has
 * exited. A conversation (`update-ref --stdin`, holding a branch locked while
 * the index is written) takes its slot from a pool of its own, of the same
 * size: a caller holding one then waits only for commands, which always
 * finish, so progress commits made side by side in one process (the MCP
 * server, the tests) never hold every slot while each waits for another.
 */
import { GIT_PROCESSES_MAX } from '../limits.js';

/** `command`: a git that runs and exits (`runGit`); `conversation`: one kept open and fed a piece at a time. */
export type SlotKind = 'command' | 'conversation';

const pools: Record<SlotKind, { running: number; waiting: (() => void)[] }> = {
  command: { running: 0, waiting: [] },
  conversation: { running: 0, waiting: [] },
};

/** Resolves once a slot of that kind is this caller's; it must `releaseSlot(kind)` exactly once after. */
export function takeSlot(kind: SlotKind = 'command'): Promise<void> {
  const pool = pools[kind];
  if (pool.running < GIT_PROCESSES_MAX) {
    pool.running++;
    return Promise.resolve();
  }
  return new Promise((resolve) => pool.waiting.push(resolve));
}

/** Gives a slot back: to the first caller waiting for one of its kind, else free. */
export function releaseSlot(kind: SlotKind = 'command'): void {
  const pool = pools[kind];
  const next = pool.waiting.shift();
  if (next) next();
  else pool.running--;
}

/** How many git processes hold a slot now, and how many wait, both kinds together (for tests). */
export const slotsInUse = () => ({
  running: pools.command.running + pools.conversation.running,
  waiting: pools.command.waiting.length + pools.conversation.waiting.length,
});
