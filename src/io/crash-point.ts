/**
 * Named moments where the fault tests kill the process, so a crash can be
 * placed exactly (between the journal and the pointer, half-way through a
 * line) as well as at random; or stop it there (SIGSTOP, as a paused laptop
 * or a debugger would), for the test to resume it later. Inert unless
 * AUTOPILOT_CRASH_AT or AUTOPILOT_STOP_AT names the moment; nothing but a
 * test sets them.
 */
export type CrashPoint =
  | 'after-lock'
  | 'mid-journal'
  | 'after-journal'
  | 'after-pointer-temp'
  | 'after-pointer'
  | 'before-progress-commit'
  | 'after-progress-commit'
  | 'before-release';

const wanted = process.env.AUTOPILOT_CRASH_AT;
const stopAt = process.env.AUTOPILOT_STOP_AT;
/** AUTOPILOT_CRASH_NTH: the kill comes the n-th time the moment is reached (the third file `init` writes), not the first. */
let untilCrash = Number(process.env.AUTOPILOT_CRASH_NTH) || 1;

export function crashPoint(point: CrashPoint): void {
  if (wanted === point && --untilCrash <= 0) process.kill(process.pid, 'SIGKILL');
  if (stopAt === point) process.kill(process.pid, 'SIGSTOP');
}

export const crashWanted = (point: CrashPoint) => wanted === point;

/**
 * A full disk, placed: AUTOPILOT_ENOSPC_AT names the write of a commit that
 * fails with ENOSPC, every write before it in the same commit done
 * (`journal`: half the batch is written first, as a disk that fills
 * mid-write leaves it; `pointer`, `lease`, `checkpoint`: half its temporary
 * file; `file`: the last of the whole files the plan writes, such as what
 * `init` sets up). Inert unless a test sets it.
 */
export type DiskFullAt = 'journal' | 'pointer' | 'lease' | 'file' | 'checkpoint';
const diskFull = process.env.AUTOPILOT_ENOSPC_AT;

export const diskFullWanted = (at: DiskFullAt) => diskFull === at;

export function diskFullError(file: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`ENOSPC: no space left on device, write '${file}'`);
  error.code = 'ENOSPC';
  error.errno = -28;
  error.syscall = 'write';
  error.path = file;
  return error;
}
