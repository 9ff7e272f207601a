/**
 * What every command of the command layer is called with, whatever the front
 * end: the repository, who drives, the clock. Who drives is the conversation
 * (docs/sessions.md): `--session` (or an MCP tool's `session`), then
 * `$AUTOPILOT_SESSION`, then the client's own id for the conversation, else
 * `local`.
 */
import { sessionEnv } from '../../clients/index.js';
import { InputError } from '../../errors.js';
import type { RepoOptions } from '../../io/repo.js';
import { checkRunName } from '../../formats/run-name.js';
import { SESSION_MAX_LENGTH } from '../../limits.js';

export interface Context {
  repo: RepoOptions;
  /** Who drives: see `sessionOf`. */
  session: string;
  /** Where the session's name came from: `default` when nothing named it (`local`), so it cannot be told apart from another. */
  sessionFrom?: SessionSource;
  /** Whose process is the conversation: a command line call looks above itself; the MCP server's is its client. */
  role?: 'cli' | 'server';
  now: () => Date;
  /** How long a command waits for the lock before exit 4. */
  lockWaitMs?: number;
}

/**
 * The run a command names (io/run.ts): `--run` (or an MCP tool's `run`), else
 * `$AUTOPILOT_RUN`; undefined when neither names one (the default run, or the
 * overview where a repository has named runs only).
 */
export function runOf(given: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (given?.trim()) return checkRunName(given.trim(), '--run');
  if (env.AUTOPILOT_RUN?.trim()) return checkRunName(env.AUTOPILOT_RUN.trim(), '$AUTOPILOT_RUN');
  return undefined;
}

export type SessionSource = 'given' | 'env' | 'client' | 'default';

export const DEFAULT_SESSION = 'local';

/** Letters, digits and `._:@-`, up to a length: a session name goes into every journal line and the lease. */
const SESSION_NAME = /^[A-Za-z0-9][A-Za-z0-9._:@-]*$/;

function checked(name: string, from: string): string {
  if (name.length > SESSION_MAX_LENGTH || !SESSION_NAME.test(name)) {
    throw new InputError({
      message: `${from}: "${name.slice(0, 40)}${name.length > 40 ? '…' : ''}" is not a session name`,
      expected: `letters, digits and . _ : @ - (at most ${SESSION_MAX_LENGTH} characters), e.g. \`--session review-2\``,
      received: `${name.length} characters`,
    });
  }
  return name;
}

/** Who drives, and where the name came from. `client`: an id the client passed with the call (an MCP request's own). */
export function sessionOf(given: string | undefined, env: NodeJS.ProcessEnv = process.env, client?: string): { session: string; from: SessionSource } {
  const named = (value: string | undefined) => (value === undefined ? '' : value.trim());
  if (named(given)) return { session: checked(named(given), '--session'), from: 'given' };
  if (named(env.AUTOPILOT_SESSION)) return { session: checked(named(env.AUTOPILOT_SESSION), '$AUTOPILOT_SESSION'), from: 'env' };
  if (named(client)) return { session: checked(named(client), 'the client'), from: 'client' };
  for (const key of sessionEnv()) if (named(env[key])) return { session: checked(named(env[key]), `$${key}`), from: 'client' };
  return { session: DEFAULT_SESSION, from: 'default' };
}

/**
 * The clock a command runs by: the system's. The fault tests stand a clock
 * that is slow or fast up with AUTOPILOT_CLOCK_OFFSET_MS (milliseconds added
 * to it, as AUTOPILOT_MACHINE_ID stands a second machine up); nothing else
 * should set it.
 */
export function clockOf(env: NodeJS.ProcessEnv = process.env): () => Date {
  const offset = Number(env.AUTOPILOT_CLOCK_OFFSET_MS ?? '');
  if (!env.AUTOPILOT_CLOCK_OFFSET_MS || !Number.isFinite(offset)) return () => new Date();
  return () => new Date(Date.now() + offset);
}
