/**
 * The lease on a shared git remote (agents on several machines driving one
 * project): `refs/autopilot/lease` on that remote, taken and renewed with
 * `git push --force-with-lease` as a compare-and-swap, so git's own server
 * decides who wins. A push the compare-and-swap rejects is exit 4 naming the
 * holder. Another session's lease is taken only by a person's `--take-over`,
 * never for its age (the clocks and the network between the machines are
 * unknown), unless the settings turn unattended takeover on
 * (`lease.remote_stale_after_minutes`, `staleMs` here): then a lease whose
 * heartbeat is older than that is taken over, journaled.
 */
import { formatAge } from '../engine/lease.js';
import { GitFailed, HeldError, InputError } from '../errors.js';
import { thisMachine } from '../io/machine.js';
import type { Repo } from '../io/repo.js';
import { gitFallbackOff } from './git-source.js';

export interface RemoteLeaseResult {
  remote: string;
  sha: string;
  taken: 'new' | 'renewed' | 'stale' | 'take-over';
}

/**
 * `staleMs`: undefined (the default) never takes a lease for its age.
 * `timeoutMs`: how long the remote may stay silent; a remote that does not answer is exit 1 naming it and what to check.
 */
export async function holdRemoteLease(...args: Parameters<typeof holdIt>): Promise<RemoteLeaseResult> {
  try {
    return await holdIt(...args);
  } catch (error) {
    if (error instanceof Error && error.name === 'RemoteNotAnswering')
      throw new GitFailed(error.message, 'Nothing was written. Run the command again once the remote answers (or raise `lease.remote_timeout_seconds`).');
    throw error;
  }
}

async function holdIt(
  repo: Repo,
  remote: string,
  session: string,
  now: Date,
  staleMs: number | undefined,
  takeOver: boolean,
  timeoutMs: number,
): Promise<RemoteLeaseResult> {
  const off = gitFallbackOff(repo);
  const { openGit } = await import('../git/repository.js');
  const opened = off ? { handle: undefined, reason: off } : await openGit(repo.root);
  if (!opened.handle)
    throw new InputError({
      message: `the remote lease needs git: ${opened.reason}`,
      expected: 'a git repository with the remote configured',
      received: opened.reason,
    });
  const { readRemoteLease, takeRemoteLease, isLeaseStale } = await import('../git/remote-lease.js');
  const me = thisMachine();
  const current = await readRemoteLease(opened.handle, remote, { timeoutMs });
  const holder = current?.lease;
  const mine = holder && holder.session === session && holder.machine === me.machine;
  const stale = holder && staleMs !== undefined ? isLeaseStale(holder, now, staleMs) : false;
  if (current && !mine && !stale && !takeOver) throw held(remote, holder, now, undefined, staleMs);
  const lease = { session, host: me.host, machine: me.machine, taken_at: mine ? holder.taken_at : now.toISOString(), heartbeat: now.toISOString() };
  const change = await takeRemoteLease(opened.handle, remote, lease, current?.sha, { timeoutMs });
  if (!change.ok) throw held(remote, change.holder, now, change.reason);
  return { remote, sha: change.sha, taken: !current ? 'new' : mine ? 'renewed' : stale ? 'stale' : 'take-over' };
}

function held(
  remote: string,
  holder: { session: string; host: string; heartbeat: string } | undefined,
  now: Date,
  reason?: string,
  staleMs?: number,
): HeldError {
  const who = holder ? `\`${holder.session}\` on ${holder.host}, last seen ${formatAge(now.getTime() - Date.parse(holder.heartbeat))} ago` : 'another session';
  return new HeldError({
    message: `the lease on the remote ${remote} is held by ${who}${reason ? ` (${reason})` : ''}`,
    hint:
      staleMs === undefined
        ? 'A remote lease is never taken for its age. A person decides: once that session has stopped, they take over with `--take-over` (journaled).'
        : `It is taken over once it has been quiet for ${formatAge(staleMs)} (\`lease.remote_stale_after_minutes\`). A person may take over sooner with \`--take-over\` (journaled), once that session has stopped.`,
    ...(holder ? { holder } : {}),
  });
}
