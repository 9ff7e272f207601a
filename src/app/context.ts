/** What every command of the command layer is called with, whatever the front end. */
import type { RepoOptions } from '../io/repo.js';

export interface Context {
  repo: RepoOptions;
  /** Who drives: `--session`, `$AUTOPILOT_SESSION`, else `local`. */
  session: string;
  now: () => Date;
  /** How long a command waits for the lock before exit 4. */
  lockWaitMs?: number;
}

export const DEFAULT_SESSION = 'local';

export function sessionOf(given: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return (given || env.AUTOPILOT_SESSION || DEFAULT_SESSION).trim() || DEFAULT_SESSION;
}
