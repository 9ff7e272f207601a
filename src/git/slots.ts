/**
 * The slots git processes run in: at most `GIT_PROCESSES_MAX` at once in this
 * process, the rest started in turn as slots are given back (first come,
 * first served). A slot is held from spawn until the process has exited; a
 * conversation (`update-ref --stdin`) holds one for as long as it is open,
 * and the layer never keeps more than one open, so a burst can always finish.
 */
import { GIT_PROCESSES_MAX } from '../limits.js';

let running = 0;
const waiting: (() => void)[] = [];

/** Resolves once a slot is this caller's; it must `releaseSlot()` exactly once after. */
export function takeSlot(): Promise<void> {
  if (running < GIT_PROCESSES_MAX) {
    running++;
    return Promise.resolve();
  }
  return new Promise((resolve) => waiting.push(resolve));
}

/** Gives a slot back: to the first caller waiting for one, else free. */
export function releaseSlot(): void {
  const next = waiting.shift();
  if (next) next();
  else running--;
}

/** How many git processes hold a slot now, and how many wait (for tests). */
export const slotsInUse = () => ({ running, waiting: waiting.length });
