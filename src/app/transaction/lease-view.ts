/** The lease as people and agents read it: who holds the repository, how long ago they were last seen, how to take over. */
import { formatAge, heartbeatAge, holds, leaseStanding, sameConversation, seenText, type LeaseVerdict } from '../../engine/lease.js';
import { HeldError } from '../../errors.js';
import type { Lease, ProcessRef } from '../../formats/lease.js';
import { conversationGone } from '../../io/conversation.js';
import { readLease } from '../../io/lease-file.js';
import { localLeasePlace, readSighting } from '../../io/lease-sightings.js';
import { thisMachine } from '../../io/machine.js';
import { displayPath, type Repo } from '../../io/repo.js';

/** `running`: the holder's conversation was seen running on this machine (false or absent: it could not be told). */
type Held = (Extract<LeaseVerdict, { kind: 'held' }> & { running?: boolean }) | { kind: 'held'; holder: undefined; unreadable: string };

/** The person's choice at exit 4: wait for the other session, or take over (theirs to make, never the agent's). */
function takeOverDecision(who: string, otherMachine: boolean, running = true) {
  return {
    id: 'take-over',
    question: `${who} holds this repository. Take it over?`,
    options: [
      { option: 'A', choice: 'Wait: let that session finish or end, then run /autopilot again', then: 'wait' },
      { option: 'B', choice: 'Take over: the person runs `autopilot next --take-over` (journaled)', then: 'take-over' },
    ],
    recommendation: {
      option: 'A',
      reason: otherMachine
        ? 'a session on another machine may still be working; take over only once you know it has stopped'
        : running
          ? 'its conversation is still running; take over only if you know it has stopped working here'
          : 'it was last seen recently; take over only if you know it has stopped working here',
    },
    answer_with: 'ask the person: only they take over (`autopilot next --take-over`); never take it over yourself',
  };
}

export function heldError(repo: Repo, verdict: Held): HeldError {
  const file = displayPath(repo.leaseFile, repo.root);
  if (!verdict.holder) {
    return new HeldError({
      message: `the lease file cannot be read (${'unreadable' in verdict ? verdict.unreadable : '?'}), so autopilot cannot tell who drives this repository`,
      file,
      hint: 'A person decides: if no other session is working here, they take the repository over with `--take-over` (journaled).',
      decision: takeOverDecision('An unknown session', false),
    });
  }
  const h = verdict.holder;
  const age = formatAge(verdict.ageMs);
  const where = verdict.otherMachine ? `on another machine (${h.host})` : `on this machine (pid ${h.pid} was its last call)`;
  const { seen } = verdict;
  const ahead = verdict.aheadMs
    ? `its last heartbeat (${h.heartbeat}) is ${formatAge(verdict.aheadMs)} in the future: a clock ahead, or this clock set back, so how long it has been quiet cannot be told`
    : undefined;
  // Another machine's heartbeat is that machine's clock: what this machine has seen of it is said instead of an age.
  const quiet = verdict.otherMachine ? `its last heartbeat ${h.heartbeat} by its own clock, ${seenText(seen)}` : `last seen ${age} ago`;
  // A holder whose conversation runs, its heartbeat older than the threshold: a clock that jumped reads the same.
  const when = seen.staleAt
    ? ` It is taken over as stale from ${seen.staleAt} if still unchanged${verdict.oldWhileRunning ? ` (its age alone may be a clock that jumped; ${seenText(seen)})` : ''}.`
    : '';
  return new HeldError({
    message: ahead
      ? `another session drives this repository: \`${h.session}\` ${where}; ${ahead}`
      : `another session drives this repository: \`${h.session}\` ${where}, ${quiet}`,
    file,
    hint: ahead
      ? 'A heartbeat in the future never makes a lease stale nor fresh by itself. A person decides: check the clocks; once that session has stopped, they take over with `--take-over` (journaled).'
      : verdict.otherMachine
        ? 'A lease from another machine is never taken because it looks old. A person decides: once that session has stopped, they take over with `--take-over` (journaled).'
        : `${
            verdict.running
              ? 'Its conversation is still running.'
              : "Whether its conversation still runs cannot be told from here (a sandbox that hides other processes, as Codex's does, or a holder that named none)."
          }${when} A person decides: once that session has stopped working here, they take over with \`--take-over\` (journaled).`,
    holder: {
      session: h.session,
      host: h.host,
      pid: h.pid,
      taken_at: h.taken_at,
      heartbeat: h.heartbeat,
      age_seconds: Math.round(verdict.ageMs / 1000),
      ...(verdict.aheadMs ? { ahead_seconds: Math.round(verdict.aheadMs / 1000) } : {}),
      seen_since: seen.sighting.since,
      ...(seen.staleAt ? { stale_at: seen.staleAt } : {}),
    },
    decision: takeOverDecision(
      ahead ? `Session \`${h.session}\` ${where}, with a heartbeat in the future,` : `Session \`${h.session}\` ${where}, ${quiet},`,
      verdict.otherMachine,
      verdict.running === true,
    ),
  });
}

/**
 * Whether a lease is this conversation's: by its id where the hook names it,
 * else by the conversation's process where the lease or the hook has no name
 * (two names given on purpose are two sessions).
 */
export function heldByThisConversation(lease: Lease, id: string | undefined, conversation: ProcessRef | undefined): boolean {
  if (lease.machine !== thisMachine().machine) return false;
  if (id !== undefined && lease.session === id) return true;
  if (id !== undefined && lease.session !== 'local') return false;
  return conversation !== undefined && lease.conversation?.pid === conversation.pid && lease.conversation.start === conversation.start;
}

export interface LeaseStatus {
  holder?: Lease;
  ageMs?: number;
  /** Its heartbeat is this far in the future (a clock ahead, or this one set back): its age cannot be judged. */
  aheadMs?: number;
  /** The holder is another session on this machine and has been quiet past the threshold. */
  stale?: boolean;
  /** The holder is another session on this machine whose conversation has ended (its process is gone): the next step command takes the lease over. */
  gone?: boolean;
  mine?: boolean;
  /** The holder is another machine: its heartbeat is that machine's clock. */
  otherMachine?: boolean;
  /**
   * What this machine has seen of another session's lease: since when it has
   * seen it unchanged (`since`; absent when no step command here has seen it
   * as it is), and from when the next step command takes it over if it is
   * still unchanged (`staleAt`; absent when only a person takes it).
   */
  seen?: { since?: string; staleAt?: string };
  problem?: string;
}

/**
 * Who holds the lease, as `status` shows it. `conversation`: the caller's
 * conversation process, asked for only when another name holds the lease
 * and one of the two names is no name (the same conversation, then). Reads
 * this machine's notes of the lease, never writes them (`status` writes
 * nothing): a lease no step command here has seen as it is has no `since`.
 */
export function leaseStatus(
  repo: Repo,
  caller: { session: string; unnamed: boolean },
  now: Date,
  staleMs: number,
  conversation: () => ProcessRef | undefined = () => undefined,
): LeaseStatus {
  const onDisk = readLease(repo.leaseFile);
  if ('unreadable' in onDisk) return { problem: `the lease file cannot be read (${onDisk.unreadable})` };
  const holder = onDisk.lease;
  if (!holder) return {};
  const me = thisMachine();
  const mine =
    holds(holder, { session: caller.session, ...me }) ||
    ((caller.unnamed || holder.session === 'local') &&
      sameConversation(holder, { session: caller.session, ...me, unnamed: caller.unnamed, conversation: conversation() }));
  if (mine) return { holder, ageMs: heartbeatAge(holder, now), mine, stale: false, gone: false };
  // Only a lease of this machine goes stale, or is probed: another machine's is never taken for its age.
  const here = holder.machine === me.machine;
  const holderGone = here && holder.conversation !== undefined ? conversationGone(holder.conversation) : undefined;
  const noted = readSighting(repo, me.machine, localLeasePlace(repo));
  const standing = leaseStanding(holder, me.machine, now, staleMs, { holderGone, ...(noted ? { noted } : {}) });
  const { seen } = standing;
  return {
    holder,
    ageMs: standing.ageMs,
    mine,
    ...(standing.otherMachine ? { otherMachine: true } : {}),
    stale: standing.stale,
    gone: holderGone === true,
    ...(standing.aheadMs > 0 ? { aheadMs: standing.aheadMs } : {}),
    // A first sighting is this read's, not one a step command noted: a wait that counts from it starts when one does.
    seen: {
      ...(seen.first ? {} : { since: seen.sighting.since }),
      ...(seen.staleAt && (!seen.first || holderGone !== false) ? { staleAt: seen.staleAt } : {}),
    },
  };
}
