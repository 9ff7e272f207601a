/** One run of the repository as the overview shows it (`runs`, `status`): its shape only, read by `app/views/runs.ts`. */
import type { PendingKind } from '../../engine/pending.js';
import type { Status } from '../../formats/pointer/position.js';

/** One run, as `runs` lists it. */
export interface RunLine {
  run: string;
  flow?: string;
  step?: number | 'done';
  name?: string;
  status?: Status;
  /** What waits for a person, and the exact command that answers it (`--run NAME` included for a named run). */
  waits?: { kind: PendingKind; question: string; command: string };
  /** The sha of the run's last progress commit, and the branch that holds it (absent with no git, or no branch holds it). */
  commit?: { sha: string; branch?: string };
  /** Who holds the run's lease (read, never taken); a lease file that cannot be read says so. */
  lease?: { session: string; host: string; heartbeat: string } | { problem: string };
  /** Why the run's files could not be read: the run is listed all the same. */
  problem?: string;
  /** Completed steps whose files are gone from the work tree (a merge that dropped them: `check` fails on each). */
  lost?: { step: number; name: string; cycle: number; files: string[] }[];
}
