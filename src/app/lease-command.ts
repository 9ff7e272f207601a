/** `autopilot lease --remote NAME`: take or renew the lease on a shared git remote; journaled when it takes one over. */
import { entry } from '../engine/journal-entry.js';
import { InputError } from '../errors.js';
import { openRepo } from '../io/repo.js';
import { commit } from './commit.js';
import type { Context } from './context.js';
import { readState } from './read-state.js';
import { holdRemoteLease, type RemoteLeaseResult } from './remote-lease.js';
import { readSettings } from './settings.js';
import { pointerPlan, takeLock } from './step.js';
import { loadRepoFlows } from './flows.js';

export async function runLease(ctx: Context, remote: string | undefined, takeOver: boolean): Promise<RemoteLeaseResult> {
  const repo = openRepo(ctx.repo);
  const settings = await readSettings(repo);
  const name = remote ?? settings.remote;
  if (!name)
    throw new InputError({
      message: 'which remote? none given, and none in the settings',
      expected: '`autopilot lease --remote origin`, or `lease: { remote: origin }` in .autopilot/config.yml',
    });
  const result = await holdRemoteLease(repo, name, ctx.session, ctx.now(), settings.staleMs, takeOver);
  if (result.taken === 'stale' || result.taken === 'take-over') {
    const flows = await loadRepoFlows(repo, false);
    const lock = await takeLock(repo, ctx.session, ctx.lockWaitMs ?? 10_000);
    try {
      const loaded = await readState(repo, flows);
      const position = loaded.reconciled.position;
      commit(
        repo,
        lock,
        loaded.lastSeq,
        {
          entries: [entry('lease_taken_over', position, { remote: name, reason: result.taken })],
          pointer: pointerPlan(loaded, position),
          flowHash: loaded.flow.hash,
        },
        { session: ctx.session, now: ctx.now },
      );
    } finally {
      lock.release();
    }
  }
  return result;
}
