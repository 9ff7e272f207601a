/** `autopilot lease --remote NAME`: take or renew the lease on a shared git remote; journaled when it takes one over. */
import { entry } from '../../formats/journal-line.js';
import { InputError } from '../../errors.js';
import type { Context } from '../transaction/context.js';
import { holdRemoteLease, type RemoteLeaseResult } from '../git/remote-lease.js';
import { pointerAt, transact, type Opened } from '../transaction/transact.js';

export async function runLease(ctx: Context, remote: string | undefined, takeOver: boolean): Promise<RemoteLeaseResult> {
  const spec = {
    flows: 'read' as const,
    prepare: async ({ repo, settings }: Opened) => {
      const name = remote ?? settings.remote;
      if (!name)
        throw new InputError({
          message: 'which remote? none given, and none in the settings',
          expected: '`autopilot lease --remote origin`, or `lease: { remote: origin }` in .autopilot/config.yml',
        });
      return holdRemoteLease(repo, name, ctx.session, ctx.now(), settings.remoteStaleMs, takeOver, settings.remoteTimeoutMs);
    },
  };
  const { result } = await transact(ctx, spec, async ({ prepared: held, state }) => {
    if (held.taken !== 'stale' && held.taken !== 'take-over') return { plan: { entries: [] }, answer: () => held };
    const loaded = await state();
    const position = loaded.reconciled.position;
    return {
      plan: { entries: [entry('lease_taken_over', position, { remote: held.remote, reason: held.taken })], pointer: pointerAt(loaded, position) },
      answer: () => held,
    };
  });
  return result;
}
