/**
 * A session lease kept on a shared git remote, for agents on several machines
 * driving one project. The lease is the ref `refs/autopilot/lease` on the
 * remote; it names a small commit whose tree holds `lease.json`. Taking,
 * renewing and releasing it are pushes with `--force-with-lease=<ref>:<sha>`:
 * the remote's receive-pack moves the ref only if it still holds the sha the
 * caller last saw (or, with no sha, only if the ref does not exist), under the
 * ref's lock. So git's own server is the coordinator, and of two machines
 * pushing from the same old value exactly one wins.
 */
import { createHash, randomUUID } from 'node:crypto';
import { InputError, LeaseMoved } from '../errors.js';
import { parseRemoteLease, serializeRemoteLease, type RemoteLease } from '../formats/lease.js';
import { GitCommandError, GitTimedOut, RemoteNotAnswering } from './errors.js';
import { oneLine } from './progress-message.js';
import { runGit, runGitOr, type GitHandle } from './run.js';

/** What a caller outside the git layer tells apart, from the bundle it loaded this from. */
export { RemoteNotAnswering };
export type { RemoteLease };

export const LEASE_REF = 'refs/autopilot/lease';
const LEASE_FILE = 'lease.json';

export interface RemoteLeaseState {
  /** The commit the remote's lease ref names: the expected value for the next take or release. */
  sha: string;
  /** Undefined when the ref holds something autopilot did not write; it can still be taken over with `sha`. */
  lease: RemoteLease | undefined;
}

export type LeaseChange = { ok: true; sha: string } | { ok: false; reason: string; sha?: string; holder?: RemoteLease };

/** `lease.json` as written by autopilot (`formats/lease.ts`), or undefined for anything else. */
export function parseLease(text: string): RemoteLease | undefined {
  const parsed = parseRemoteLease(text, LEASE_FILE);
  return 'lease' in parsed ? parsed.lease : undefined;
}

/** How long a git command talking to the remote may stay silent before it is stopped, by default. */
export const REMOTE_TIMEOUT_MS = 5_000;

export interface RemoteOptions {
  /**
   * Stop each git command that talks to the remote (`ls-remote`, `fetch`,
   * `push`) when it has had no answer for this long, and throw
   * `RemoteNotAnswering`; `REMOTE_TIMEOUT_MS` by default. One call of this
   * module runs at most a few such commands in a row.
   */
  timeoutMs?: number;
}

/** A git command that talks to `remote`: stopped after `timeoutMs` of silence, as `RemoteNotAnswering`. */
async function network(handle: GitHandle, remote: string, args: string[], options: RemoteOptions): Promise<string> {
  try {
    return await runGit(handle, args, { timeoutMs: options.timeoutMs ?? REMOTE_TIMEOUT_MS });
  } catch (error) {
    if (error instanceof GitTimedOut) throw new RemoteNotAnswering(remote, error);
    throw error;
  }
}

/**
 * The lease on `remote` and the commit holding it, or undefined when nobody
 * holds it. A remote that does not answer within `options.timeoutMs` throws
 * `RemoteNotAnswering`; one that cannot be reached, `GitCommandError`; a lease
 * that moves under every one of 3 reads (another session taking or renewing
 * it), `LeaseMoved` (exit 4: run the command again).
 */
export async function readRemoteLease(handle: GitHandle, remote: string, options: RemoteOptions = {}): Promise<RemoteLeaseState | undefined> {
  checkRemote(remote);
  // The ref may move between `ls-remote` and `fetch`; then the object we were told about is not the one fetched, so ask again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const sha = await remoteLeaseSha(handle, remote, options);
    if (!sha) return undefined;
    const local = await leaseText(handle, sha);
    if (local !== undefined) return { sha, lease: parseLease(local) };
    await network(handle, remote, ['fetch', '--no-tags', remote, `+${LEASE_REF}:${trackingRef(remote)}`], options);
    const fetched = await leaseText(handle, sha);
    if (fetched !== undefined) return { sha, lease: parseLease(fetched) };
    if (await runGitOr(handle, ['cat-file', '-t', sha], 128)) return { sha, lease: undefined };
  }
  throw new LeaseMoved(remote);
}

/**
 * Takes or renews the lease: succeeds only if the remote's lease ref still
 * names `expectedSha` (undefined: only if nobody holds it). On refusal, says
 * who holds it now and at which sha, for the caller's next decision. A remote
 * that does not answer in time throws `RemoteNotAnswering`: the push may or
 * may not have landed, so read the lease again before deciding.
 */
export async function takeRemoteLease(
  handle: GitHandle,
  remote: string,
  lease: RemoteLease,
  expectedSha: string | undefined,
  options: RemoteOptions = {},
): Promise<LeaseChange> {
  checkRemote(remote);
  const commit = await writeLeaseCommit(handle, lease);
  return pushLease(handle, remote, `${commit}:${LEASE_REF}`, expectedSha, commit, options);
}

/** Deletes the lease ref, only if it still names `expectedSha` (the caller's own lease). Times out as `takeRemoteLease`. */
export async function releaseRemoteLease(
  handle: GitHandle,
  remote: string,
  expectedSha: string,
  options: RemoteOptions = {},
): Promise<{ ok: true } | Extract<LeaseChange, { ok: false }>> {
  checkRemote(remote);
  const result = await pushLease(handle, remote, `:${LEASE_REF}`, expectedSha, '', options);
  return result.ok ? { ok: true } : result;
}

async function remoteLeaseSha(handle: GitHandle, remote: string, options: RemoteOptions): Promise<string | undefined> {
  const out = await network(handle, remote, ['ls-remote', remote, LEASE_REF], options);
  // ls-remote matches the pattern against the end of each name; only the exact ref counts.
  const line = out.split('\n').find((l) => l.endsWith(`\t${LEASE_REF}`));
  return line?.split('\t')[0];
}

const leaseText = (handle: GitHandle, sha: string) => runGitOr(handle, ['cat-file', 'blob', `${sha}:${LEASE_FILE}`], 128);

/** Where a fetched lease is kept locally, so its objects stay reachable: `refs/autopilot/remotes/origin/lease`. */
function trackingRef(remote: string): string {
  const name = /^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(remote) ? remote : `url-${createHash('sha1').update(remote).digest('hex').slice(0, 12)}`;
  return `refs/autopilot/remotes/${name}/lease`;
}

/**
 * The lease as a commit of its own (no parent, a tree with `lease.json`). A
 * fixed identity, so a machine without `user.name` can still take it; never
 * signed; a nonce in the message, so two takes never make the same commit
 * (git would call the second push "up to date" without checking the lease).
 */
async function writeLeaseCommit(handle: GitHandle, lease: RemoteLease): Promise<string> {
  const json = serializeRemoteLease(lease);
  if (!parseLease(json)) throw new TypeError(`not a lease (every field a non-empty string, times in ISO form): ${json}`);
  const blob = (await runGit(handle, ['hash-object', '-w', '--stdin'], { input: json })).trim();
  const tree = (await runGit(handle, ['mktree'], { input: `100644 blob ${blob}\t${LEASE_FILE}\n` })).trim();
  const date = `@${Math.floor(Date.parse(lease.heartbeat) / 1000)} +0000`;
  const identity = {
    GIT_AUTHOR_NAME: 'autopilot',
    GIT_AUTHOR_EMAIL: 'autopilot@localhost',
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: 'autopilot',
    GIT_COMMITTER_EMAIL: 'autopilot@localhost',
    GIT_COMMITTER_DATE: date,
  };
  const message = `autopilot lease: ${oneLine(lease.session, 80)} on ${oneLine(lease.host, 80)}\n\nNonce: ${randomUUID()}\n`;
  return (await runGit(handle, ['commit-tree', '--no-gpg-sign', tree], { input: message, env: identity })).trim();
}

interface PushStatus {
  /** `*` new, `+` forced, ` ` fast-forward, `-` deleted, `=` up to date, `!` rejected. */
  flag: string;
  summary: string;
}

/** The status line `git push --porcelain` prints for the lease ref. */
function pushStatus(output: string): PushStatus | undefined {
  for (const line of output.split('\n')) {
    const match = /^(.)\t[^\t]*:([^\t]+)\t(.*)$/.exec(line);
    if (match && match[2] === LEASE_REF) return { flag: match[1]!, summary: match[3]! };
  }
  return undefined;
}

async function pushLease(
  handle: GitHandle,
  remote: string,
  refspec: string,
  expectedSha: string | undefined,
  sha: string,
  options: RemoteOptions,
): Promise<LeaseChange> {
  // --no-verify: the user's pre-push hook is about their branches, not this ref, and may be slow.
  const args = ['push', '--porcelain', '--no-verify', `--force-with-lease=${LEASE_REF}:${expectedSha ?? ''}`, remote, refspec];
  let output: string;
  try {
    output = await network(handle, remote, args, options);
  } catch (error) {
    // A refused ref exits 1 but still prints its status line; no status line means the push itself failed (network, no such remote).
    if (!(error instanceof GitCommandError) || !pushStatus(error.stdout)) throw error;
    output = error.stdout;
  }
  const status = pushStatus(output);
  if (!status) throw new GitCommandError(args, 0, output, 'no status line for the lease ref');
  if (status.flag !== '!') return { ok: true, sha };
  const current = await readRemoteLease(handle, remote, options);
  return { ok: false, reason: status.summary, ...(current ? { sha: current.sha, holder: current.lease } : {}) };
}

function checkRemote(remote: string): void {
  if (!remote || remote.startsWith('-')) {
    throw new InputError({ message: `--remote ${remote}: not a remote`, expected: 'a remote name or URL, e.g. `--remote origin`', received: remote });
  }
}
