/**
 * Whether a process of this machine runs: the one probe behind every "is its
 * owner gone?" (the lock's holder, an atomic write's leftover, a temporary
 * index of git's). A leaf both the disk edge (`io/`) and the git layer import;
 * it imports nothing.
 */

/** Whether a process with this pid runs (or runs under another user: `EPERM`); this process always does. */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
