/**
 * The lease on a shared git remote (agents on several machines driving one
 * project): `refs/autopilot/lease` on that remote, taken and renewed with
 * `git push --force-with-lease` as a compare-and-swap, so git's own server
 * decides who wins. A push the compare-and-swap rejects is exit 4 naming the
 * holder; a lease that moves under every read is exit 4 too (`lease_moved`:
 * run it again). Another session's lease is taken only by a person's `--take-over`,
 * never for its age (the clocks and the network between the machines are
 * unknown), unless the settings turn unattended takeover on
 * (`lease.remote_stale_after_minutes`, `staleMs` here): then a lease this
 * machine has seen unchanged for that long, by its own clock, is taken over,
 * journaled. Its heartbeat, written by another machine's clock, is never
 * compared with this one: a holder whose clock is slow or fast keeps its lease
 * for as long as it renews it, and a first sighting is never stale.
 */
import { formatAge, judgeBySighting, seenText, type Seen } from '../../engine/lease.js';
import { GitFailed, HeldError, InputError } from '../../errors.js';
import { noteSighting, readSighting } from '../../io/lease-sightings.js';
import { thisMachine } from '../../io/machine.js';
import type { Repo } from '../../io/repo.js';
import { gitFallbackOff } from './source.js';
import { isoTime } from '../../timestamp.js';

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
    // The class of the bundle that threw it, or of any copy: it carries a brand (`errors.ts`).
    const { RemoteNotAnswering } = await import('../../git/remote-lease.js');
    if (error instanceof RemoteNotAnswering)
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
  const { openGit } = await import('../../git/repository.js');
  const opened = off ? { handle: undefined, reason: off } : await openGit(repo.root);
  if (!opened.handle)
    throw new InputError({
      message: `the remote lease needs git: ${opened.reason}`,
      expected: 'a git repository with the remote configured',
      received: opened.reason,
    });
  const { readRemoteLease, takeRemoteLease } = await import('../../git/remote-lease.js');
  const me = thisMachine();
  const current = await readRemoteLease(opened.handle, remote, { timeoutMs });
  const holder = current?.lease;
  const mine = holder && holder.session === session && holder.machine === me.machine;
  let stale = false;
  if (current && !mine && !takeOver) {
    // The ref's commit changes with every renewal (each carries a nonce): how long this machine has seen the same one is the quiet.
    const place = `remote:${remote}`;
    const judged = judgeBySighting(current.sha, readSighting(repo, me.machine, place), now, staleMs);
    if (judged.first) noteSighting(repo, me.machine, place, judged.sighting);
    if (!judged.stale) throw held(remote, holder, undefined, staleMs, judged);
    stale = true;
  }
  const lease = { session, host: me.host, machine: me.machine, taken_at: mine ? holder.taken_at : isoTime(now), heartbeat: isoTime(now) };
  const change = await takeRemoteLease(opened.handle, remote, lease, current?.sha, { timeoutMs });
  if (!change.ok) throw held(remote, change.holder, change.reason);
  return { remote, sha: change.sha, taken: !current ? 'new' : mine ? 'renewed' : stale ? 'stale' : 'take-over' };
}

function held(
  remote: string,
  holder: { session: string; host: string; heartbeat: string } | undefined,
  reason?: string,
  staleMs?: number,
  seen?: Seen,
): HeldError {
  const who = holder ? `\`${holder.session}\` on ${holder.host}, its last heartbeat ${holder.heartbeat} by its own clock` : 'another session';
  return new HeldError({
    message: `the lease on the remote ${remote} is held by ${who}${seen ? `; ${seenText(seen)}` : ''}${reason ? ` (${reason})` : ''}`,
    hint:
      staleMs === undefined
        ? 'A remote lease is never taken for its age. A person decides: once that session has stopped, they take over with `--take-over` (journaled).'
        : `It is taken over as stale once this machine has seen it unchanged for ${formatAge(staleMs)} (\`lease.remote_stale_after_minutes\`)${seen?.staleAt ? `: from ${seen.staleAt}` : ''}. A person may take over sooner with \`--take-over\` (journaled), once that session has stopped.`,
    ...(holder ? { holder: { ...holder, ...(seen ? { seen_since: seen.sighting.since, ...(seen.staleAt ? { stale_at: seen.staleAt } : {}) } : {}) } } : {}),
  });
}
