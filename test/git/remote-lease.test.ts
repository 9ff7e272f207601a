/**
 * The lease on a shared remote, with a local bare repository standing for the
 * server and two repositories pushing to it standing for two machines. Time
 * is passed in, never waited for.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holdRemoteLease } from '../../src/app/git/remote-lease.js';
import { exitCodeOfError, HeldError } from '../../src/errors.js';
import { GitCommandError, RemoteNotAnswering } from '../../src/git/errors.js';
import { openRepo } from '../../src/io/repo.js';
import { LEASE_REF, parseLease, readRemoteLease, releaseRemoteLease, takeRemoteLease, type LeaseChange, type RemoteLease } from '../../src/git/remote-lease.js';
import type { GitHandle } from '../../src/git/repository.js';
import { commit, git, handleFor, newRepo, tempDir } from '../helpers/git.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');
const MINUTE = 60_000;

function leaseOf(session: string, heartbeat: number, takenAt = heartbeat): RemoteLease {
  return {
    session,
    host: `${session}-host`,
    machine: `${session}-machine`,
    taken_at: new Date(takenAt).toISOString(),
    heartbeat: new Date(heartbeat).toISOString(),
  };
}

/** A bare "server" and two "machines", each a repository with the server as `origin`. */
async function twoMachines(): Promise<{ server: string; a: GitHandle; b: GitHandle }> {
  const base = tempDir();
  const server = join(base, 'server.git');
  git(base, 'init', '--quiet', '--bare', server);
  const machine = async (name: string) => {
    const dir = newRepo(join(base, name));
    git(dir, 'remote', 'add', 'origin', server);
    return handleFor(dir);
  };
  return { server, a: await machine('a'), b: await machine('b') };
}

function taken(change: LeaseChange): string {
  if (!change.ok) throw new Error(`expected the lease to be taken, got ${JSON.stringify(change)}`);
  return change.sha;
}

describe('the remote lease', () => {
  it('is taken by one machine; the other, expecting nobody or a wrong sha, is refused and told who holds it', async () => {
    const { server, a, b } = await twoMachines();
    expect(await readRemoteLease(b, 'origin')).toBeUndefined();

    const first = taken(await takeRemoteLease(a, 'origin', leaseOf('alice', T0), undefined));
    expect(git(server, 'rev-parse', LEASE_REF).trim()).toBe(first);
    expect(await readRemoteLease(b, 'origin')).toEqual({ sha: first, lease: leaseOf('alice', T0) });

    const refused = await takeRemoteLease(b, 'origin', leaseOf('bob', T0 + MINUTE), undefined);
    expect(refused).toEqual({ ok: false, reason: expect.stringMatching(/rejected/), sha: first, holder: leaseOf('alice', T0) });
    const wrong = await takeRemoteLease(b, 'origin', leaseOf('bob', T0 + MINUTE), '1'.repeat(40));
    expect(wrong).toMatchObject({ ok: false, sha: first, holder: leaseOf('alice', T0) });

    // The holder renews with the sha it holds; the renewal is a new commit.
    const renewed = taken(await takeRemoteLease(a, 'origin', leaseOf('alice', T0 + MINUTE, T0), first));
    expect(renewed).not.toBe(first);
    expect(await readRemoteLease(b, 'origin')).toEqual({ sha: renewed, lease: leaseOf('alice', T0 + MINUTE, T0) });
  });

  it('gone stale, is taken over with the sha last read, even where non-fast-forward pushes are refused; its old holder cannot renew it', async () => {
    const { server, a, b } = await twoMachines();
    // `git init --bare --shared` sets this; it guards branches, and the lease ref is not one.
    git(server, 'config', 'receive.denyNonFastForwards', 'true');
    const aliceSha = taken(await takeRemoteLease(a, 'origin', leaseOf('alice', T0), undefined));

    const seen = (await readRemoteLease(b, 'origin'))!;
    expect(seen).toEqual({ sha: aliceSha, lease: leaseOf('alice', T0) });
    const bobSha = taken(await takeRemoteLease(b, 'origin', leaseOf('bob', T0 + 10 * MINUTE), seen.sha));

    const late = await takeRemoteLease(a, 'origin', leaseOf('alice', T0 + 11 * MINUTE, T0), aliceSha);
    expect(late).toEqual({ ok: false, reason: expect.any(String), sha: bobSha, holder: leaseOf('bob', T0 + 10 * MINUTE) });
  });

  it("another machine's lease, a day quiet, is never taken for its age by default; only by --take-over, or once a fleet turns `remote_stale_after_minutes` on", async () => {
    const { a, b } = await twoMachines();
    taken(await takeRemoteLease(a, 'origin', leaseOf('alice', T0), undefined));
    const repoB = openRepo({ dir: b.root });
    const aDayLater = new Date(T0 + 24 * 60 * MINUTE);
    let refused: unknown;
    try {
      await holdRemoteLease(repoB, 'origin', 'bob', aDayLater, undefined, false, 5000);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(HeldError);
    expect(exitCodeOfError(refused)).toBe(4);
    expect((refused as HeldError).message).toMatch(
      /`alice` on alice-host, its last heartbeat 2026-03-01T10:00:00.000Z by its own clock; first seen now by this machine/,
    );
    expect((refused as HeldError).hint).toMatch(/never taken for its age.*--take-over/);
    expect((await readRemoteLease(b, 'origin'))?.lease).toEqual(leaseOf('alice', T0));

    // The fleet's setting: seen unchanged by this machine for longer than 30 minutes, taken over unattended.
    const later = (minutes: number) => new Date(aDayLater.getTime() + minutes * MINUTE);
    const early = await holdRemoteLease(repoB, 'origin', 'bob', later(20), 30 * MINUTE, false, 5000).catch((e: unknown) => e);
    expect(early).toBeInstanceOf(HeldError);
    expect((early as HeldError).message).toMatch(/unchanged since this machine first saw it at /);
    expect((early as HeldError).hint).toMatch(new RegExp(`: from ${later(30).toISOString().replace(/\./g, '\\.')}\\. A person`));
    expect(await holdRemoteLease(repoB, 'origin', 'bob', later(31), 30 * MINUTE, false, 5000)).toMatchObject({ taken: 'stale' });
    expect((await readRemoteLease(a, 'origin'))?.lease).toMatchObject({ session: 'bob' });

    // A person's --take-over, at any age, with the default.
    expect(await holdRemoteLease(openRepo({ dir: a.root }), 'origin', 'alice', aDayLater, undefined, true, 5000)).toMatchObject({ taken: 'take-over' });
  });

  it('a holder whose clock is 11 minutes slow: 0 takeovers in 10 renewals with `remote_stale_after_minutes: 10`; stopped, it is taken once this machine has seen it unchanged for 10 minutes', async () => {
    const { a, b } = await twoMachines();
    const repoB = openRepo({ dir: b.root });
    let sha: string | undefined;
    let takeovers = 0;
    for (let i = 0; i < 10; i++) {
      const t = T0 + i * 2 * MINUTE;
      // Its heartbeat reads 11 minutes old the moment it is written.
      sha = taken(await takeRemoteLease(a, 'origin', leaseOf('alice', t - 11 * MINUTE, T0 - 11 * MINUTE), sha));
      const tried = await holdRemoteLease(repoB, 'origin', 'bob', new Date(t + MINUTE), 10 * MINUTE, false, 5000).catch((e: unknown) => e);
      if (!(tried instanceof HeldError)) takeovers++;
    }
    expect(takeovers).toBe(0);
    // alice stops renewing: bob's first sighting of the last commit was a minute after it was written.
    const last = T0 + 18 * MINUTE;
    const stillHeld = await holdRemoteLease(repoB, 'origin', 'bob', new Date(last + 10 * MINUTE), 10 * MINUTE, false, 5000).catch((e: unknown) => e);
    expect(stillHeld).toBeInstanceOf(HeldError);
    expect(await holdRemoteLease(repoB, 'origin', 'bob', new Date(last + 11 * MINUTE + 1), 10 * MINUTE, false, 5000)).toMatchObject({ taken: 'stale' });
  });

  it('is released only by the sha its holder holds, and can then be taken afresh', async () => {
    const { server, a, b } = await twoMachines();
    const aliceSha = taken(await takeRemoteLease(a, 'origin', leaseOf('alice', T0), undefined));
    expect(await releaseRemoteLease(b, 'origin', '1'.repeat(40))).toMatchObject({ ok: false, sha: aliceSha, holder: leaseOf('alice', T0) });
    expect(await releaseRemoteLease(a, 'origin', aliceSha)).toEqual({ ok: true });
    expect(git(server, 'for-each-ref', 'refs/autopilot/')).toBe('');
    expect(await readRemoteLease(b, 'origin')).toBeUndefined();
    taken(await takeRemoteLease(b, 'origin', leaseOf('bob', T0 + MINUTE), undefined));
  });

  const ROUNDS = 10;
  it(`raced by two machines from the same expected value, has exactly one winner (${ROUNDS} rounds × 2 machines, 1 winner each)`, async () => {
    const { server, a, b } = await twoMachines();
    let expected: string | undefined;
    for (let round = 0; round < ROUNDS; round++) {
      const at = T0 + round * MINUTE;
      const byA = takeRemoteLease(a, 'origin', leaseOf('alice', at), expected);
      const byB = takeRemoteLease(b, 'origin', leaseOf('bob', at), expected);
      const results = { alice: await byA, bob: await byB };
      const winners = Object.entries(results).filter(([, change]) => change.ok);
      expect(
        winners.map(([session]) => session),
        `round ${round}: ${JSON.stringify(results)}`,
      ).toHaveLength(1);
      const [winner, won] = winners[0]!;
      const lost = results[winner === 'alice' ? 'bob' : 'alice'];
      expect(git(server, 'rev-parse', LEASE_REF).trim()).toBe(taken(won));
      // The loser is told who won.
      expect(lost).toMatchObject({ ok: false, sha: taken(won), holder: { session: winner } });
      expected = taken(won);
    }
  });

  it('holding something autopilot did not write, reads as no lease but can be taken over with its sha', async () => {
    const { a, b } = await twoMachines();
    const foreign = commit(a.root, 'not a lease', { 'x.md': 'x\n' });
    git(a.root, 'push', '--quiet', 'origin', `${foreign}:${LEASE_REF}`);
    expect(await readRemoteLease(b, 'origin')).toEqual({ sha: foreign, lease: undefined });
    taken(await takeRemoteLease(b, 'origin', leaseOf('bob', T0), foreign));
  });

  it('fails loudly, rather than refusing, when the remote cannot be reached or named', async () => {
    const { a } = await twoMachines();
    await expect(readRemoteLease(a, 'nowhere')).rejects.toBeInstanceOf(GitCommandError);
    await expect(takeRemoteLease(a, 'nowhere', leaseOf('alice', T0), undefined)).rejects.toBeInstanceOf(GitCommandError);
    await expect(takeRemoteLease(a, '--receive-pack=evil', leaseOf('alice', T0), undefined)).rejects.toThrow(/not a remote/);
    await expect(takeRemoteLease(a, 'origin', { ...leaseOf('alice', T0), heartbeat: 'yesterday' }, undefined)).rejects.toThrow(/not a lease/);
  });
});

/** A "remote" that accepts TCP connections and never says a word; closed (and its connections cut) by `close`. */
async function silentServer(): Promise<{ port: number; connections: () => number; open: () => number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let count = 0;
  const server: Server = createServer((socket) => {
    count += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    // What the client says is read and dropped, so that its end (FIN) is seen: an http client speaks first.
    socket.resume();
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    connections: () => count,
    open: () => sockets.size,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

describe('a remote that accepts and never answers', () => {
  const TIMEOUT = 1_000;
  /** The bound each call must return within: the timeout, plus room for a loaded machine. */
  const BOUND = TIMEOUT + 4_000;

  async function bounded(call: Promise<unknown>, remote: string): Promise<number> {
    const start = Date.now();
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    const took = Date.now() - start;
    expect(error).toBeInstanceOf(RemoteNotAnswering);
    expect(error).toBeInstanceOf(GitCommandError);
    expect(error).toMatchObject({ remote, timeoutMs: TIMEOUT, message: expect.stringContaining(`the remote ${remote} did not answer within 1 s`) });
    expect((error as Error).message).toMatch(/git ls-remote|git push/);
    expect(took).toBeLessThan(BOUND);
    return took;
  }

  it(`over git://: reading, taking and releasing the lease each give up after the timeout (${TIMEOUT} ms, bound ${BOUND} ms)`, async () => {
    const server = await silentServer();
    try {
      const dir = newRepo();
      git(dir, 'remote', 'add', 'silent', `git://127.0.0.1:${server.port}/x.git`);
      const handle = await handleFor(dir);
      const times = [
        await bounded(readRemoteLease(handle, 'silent', { timeoutMs: TIMEOUT }), 'silent'),
        await bounded(takeRemoteLease(handle, 'silent', leaseOf('alice', T0), undefined, { timeoutMs: TIMEOUT }), 'silent'),
        await bounded(releaseRemoteLease(handle, 'silent', '1'.repeat(40), { timeoutMs: TIMEOUT }), 'silent'),
      ];
      expect(server.connections()).toBeGreaterThanOrEqual(3);
      console.log(`silent git:// remote: gave up after ${times.join(', ')} ms (timeout ${TIMEOUT} ms)`);
    } finally {
      await server.close();
    }
  });

  it('over http:// (git runs its http helper): reading gives up after the timeout, and the helper is stopped with git: 0 connections left open', async () => {
    const server = await silentServer();
    try {
      const dir = newRepo();
      git(dir, 'remote', 'add', 'web', `http://127.0.0.1:${server.port}/x.git`);
      const handle = await handleFor(dir);
      await bounded(readRemoteLease(handle, 'web', { timeoutMs: TIMEOUT }), 'web');
      expect(server.connections()).toBeGreaterThanOrEqual(1);
      await expect.poll(() => server.open(), { timeout: 3_000 }).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('over ssh (core.sshCommand reaching the silent server): gives up after the timeout too', async () => {
    const server = await silentServer();
    try {
      const dir = newRepo();
      // A fake ssh: connects to the server and relays nothing back, as a host that accepted and hung.
      const ssh = join(dir, '.git', 'fake-ssh');
      writeFileSync(
        ssh,
        `#!/bin/sh\nexec ${process.execPath} -e "const s=require('net').connect(${server.port},'127.0.0.1');process.stdin.pipe(s);s.on('error',()=>{})"\n`,
      );
      chmodSync(ssh, 0o755);
      git(dir, 'config', 'core.sshCommand', ssh);
      // Or git first runs the command with -G to learn which ssh it is.
      git(dir, 'config', 'ssh.variant', 'ssh');
      git(dir, 'remote', 'add', 'hung', 'ssh://git@example.invalid/x.git');
      const handle = await handleFor(dir);
      await bounded(readRemoteLease(handle, 'hung', { timeoutMs: TIMEOUT }), 'hung');
      expect(server.connections()).toBe(1);
      // git, stopped, takes its ssh down with it: nothing is left holding the connection.
      await expect.poll(() => server.open(), { timeout: 3_000 }).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe('parseLease', () => {
  it('reads what autopilot writes and nothing else', () => {
    const lease = leaseOf('alice', T0);
    expect(parseLease(JSON.stringify({ ...lease, extra: 1 }))).toEqual(lease);
    expect(parseLease('not json')).toBeUndefined();
    expect(parseLease('null')).toBeUndefined();
    expect(parseLease(JSON.stringify({ ...lease, session: '' }))).toBeUndefined();
    expect(parseLease(JSON.stringify({ ...lease, heartbeat: 'soon' }))).toBeUndefined();
  });
});
