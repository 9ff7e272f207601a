/**
 * What git history remembers of autopilot's files: the last committed text of
 * a file (to recover a pointer that no longer parses) and the trailers of
 * autopilot's own progress commits (a position when nothing else can tell).
 * Only the history of HEAD is read; a branch with no commit yet has none.
 */
import { topPath } from './paths.js';
import { oneLine, parseProgressTrailers, TRAILER, type ProgressTrailers } from './progress-message.js';
import { GitCommandError } from './errors.js';
import { runGit, runGitOr, type GitHandle } from './run.js';

/**
 * The newest commits (up to `limit`) that left `relPath` with content, newest
 * first. A commit that deleted it is passed over. `-m` gives merges a diff, so
 * a merge that resolved a conflict in the file counts (it is listed once per
 * parent, hence the dedupe); `--diff-filter=ACMRT` rather than `=d`, which
 * passes over a root commit.
 */
async function commitsWithFile(handle: GitHandle, relPath: string, limit: number): Promise<{ path: string; shas: string[] }> {
  const path = topPath(handle, relPath);
  const out = await runGit(handle, [
    '--literal-pathspecs',
    'log',
    `--max-count=${Math.max(0, Math.floor(limit))}`,
    '-m',
    '--diff-filter=ACMRT',
    '--format=%H',
    // An unborn branch is "no history", not an error.
    '--ignore-missing',
    'HEAD',
    '--',
    path,
  ]);
  return { path, shas: [...new Set(out.split('\n').filter(Boolean))] };
}

const showFile = (handle: GitHandle, sha: string, path: string) => runGit(handle, ['show', `${sha}:${path}`]);

/** The file's text as last committed on this branch, or undefined when it never was. */
export async function lastCommittedText(handle: GitHandle, relPath: string): Promise<string | undefined> {
  const { path, shas } = await commitsWithFile(handle, relPath, 1);
  return shas[0] === undefined ? undefined : showFile(handle, shas[0], path);
}

export interface CommittedVersion {
  sha: string;
  text: string;
}

/** The file's committed versions, newest first, at most `limit`: for finding the last one that parses. */
export async function committedVersions(handle: GitHandle, relPath: string, limit: number): Promise<CommittedVersion[]> {
  const { path, shas } = await commitsWithFile(handle, relPath, limit);
  const versions: CommittedVersion[] = [];
  // A few `git show` at a time: enough to overlap them, not enough to crowd a small machine.
  for (let i = 0; i < shas.length; i += 4) {
    const batch = shas.slice(i, i + 4);
    const texts = await Promise.all(batch.map((sha) => showFile(handle, sha, path)));
    batch.forEach((sha, k) => versions.push({ sha, text: texts[k]! }));
  }
  return versions;
}

export interface HeldAtHead {
  /** The path as given (relative to the handle's root). */
  path: string;
  /** The blob HEAD's tree holds there. */
  sha: string;
  size: number;
}

/**
 * The files of `relPaths` that HEAD's tree holds, with their blob and size,
 * in one `git ls-tree`; none on a branch with no commit yet. For telling a
 * file deleted from the work tree (HEAD still holds it) from one never
 * committed.
 */
export async function heldAtHead(handle: GitHandle, relPaths: readonly string[]): Promise<HeldAtHead[]> {
  const byTop = new Map(relPaths.map((p) => [topPath(handle, p), p] as const));
  const out = await runGitOr(handle, ['--literal-pathspecs', 'ls-tree', '-l', '-z', 'HEAD', '--', ...byTop.keys()], 128);
  const held: HeldAtHead[] = [];
  for (const record of (out ?? '').split('\0')) {
    // `<mode> blob <sha> <size>\t<path>`; a folder of that name is no file.
    const match = /^\d+ blob ([0-9a-f]{40,64}) +(\d+)\t(.*)$/s.exec(record);
    const path = match ? byTop.get(match[3]!) : undefined;
    if (match && path !== undefined) held.push({ path, sha: match[1]!, size: Number(match[2]) });
  }
  return held;
}

/** A blob's text (`git cat-file blob`). */
export const blobText = (handle: GitHandle, sha: string) => runGit(handle, ['cat-file', 'blob', sha]);

export interface ProgressCommitInfo extends ProgressTrailers {
  sha: string;
}

/**
 * The trailers of autopilot's progress commits (those with an
 * `Autopilot-Flow` line), newest first. Up to `limit` commits are read; one
 * whose trailers do not parse is left out, so fewer may come back.
 */
export async function progressTrailers(handle: GitHandle, limit: number): Promise<ProgressCommitInfo[]> {
  const out = await runGit(handle, [
    'log',
    `--max-count=${Math.max(0, Math.floor(limit))}`,
    `--grep=^${TRAILER.flow}:`,
    '--regexp-ignore-case',
    '--format=%H%n%(trailers:only,unfold)',
    '-z',
    '--ignore-missing',
    'HEAD',
  ]);
  const commits: ProgressCommitInfo[] = [];
  for (const record of out.split('\0')) {
    const newline = record.indexOf('\n');
    const sha = record.slice(0, newline < 0 ? undefined : newline).trim();
    if (!/^[0-9a-f]{40,64}$/.test(sha)) continue;
    const trailers = parseProgressTrailers(newline < 0 ? '' : record.slice(newline + 1));
    if (trailers) commits.push({ sha, ...trailers });
  }
  return commits;
}

export interface FindProgressCommitOptions {
  /** How many commits of HEAD's first-parent history to look at, newest first; 50 by default. */
  limit?: number;
}

/**
 * Whether HEAD's recent history already holds the progress commit these
 * trailers describe: the sha of the newest commit, among the last `limit`
 * on HEAD's first-parent line, that carries every given trailer with the
 * given value (names compared without case, values flattened as the commit
 * writes them), else undefined. The trailers must include `Autopilot-Event`
 * (the journal event the commit records), which makes them one commit's.
 *
 * For "exactly once": a command that may have been killed after its commit
 * was made looks first, and commits only when nothing is found.
 */
export async function findProgressCommit(
  handle: GitHandle,
  trailers: Record<string, string>,
  options: FindProgressCommitOptions = {},
): Promise<string | undefined> {
  const wanted = Object.entries(trailers)
    .map(([key, value]) => [key.toLowerCase(), oneLine(value)] as const)
    .filter(([, value]) => value !== '');
  if (!wanted.some(([key]) => key === TRAILER.event.toLowerCase())) {
    throw new TypeError(`findProgressCommit: the trailers must name the journal event (${TRAILER.event}), or any commit of the same step would match`);
  }
  const out = await runGit(handle, [
    'log',
    '--first-parent',
    `--max-count=${Math.max(0, Math.floor(options.limit ?? 50))}`,
    '--format=%H%n%(trailers:only,unfold)',
    '-z',
    '--ignore-missing',
    'HEAD',
  ]);
  for (const record of out.split('\0')) {
    const [sha = '', ...lines] = record.split('\n');
    if (!/^[0-9a-f]{40,64}$/.test(sha.trim())) continue;
    const has = new Set(
      lines.flatMap((line) => {
        const match = /^([A-Za-z0-9-]+)\s*:\s*(.*?)\s*$/.exec(line);
        return match ? [`${match[1]!.toLowerCase()}\0${match[2]}`] : [];
      }),
    );
    if (wanted.every(([key, value]) => has.has(`${key}\0${value}`))) return sha.trim();
  }
  return undefined;
}

/**
 * Whether HEAD's tree holds the file exactly as the work tree has it, and if
 * so the newest commit on HEAD that left it so (the one that wrote that
 * version), else undefined. How a progress commit is recognised: the
 * journal's last line is the event the commit records, so a HEAD that holds
 * the journal as it is holds that event; a `git revert` of the commit, or a
 * run started over, gives the work tree a journal HEAD does not hold, and the
 * commit is made again. Two git calls side by side, a third when found.
 * An absent file, or a branch with no commit yet, is never held.
 */
export async function commitHolding(handle: GitHandle, relPath: string): Promise<string | undefined> {
  const path = topPath(handle, relPath);
  let here: string;
  let committed: string | undefined;
  try {
    [committed, here] = await Promise.all([
      runGitOr(handle, ['rev-parse', '--quiet', '--verify', `HEAD:${path}`], 1),
      runGit(handle, ['hash-object', '--', path]),
    ]);
  } catch (error) {
    // The file is gone from the work tree (hash-object cannot read it): nothing to hold.
    if (error instanceof GitCommandError) return undefined;
    throw error;
  }
  if (!committed || committed.trim() !== here.trim()) return undefined;
  const sha = (await runGit(handle, ['--literal-pathspecs', 'log', '-1', '--format=%H', 'HEAD', '--', path])).trim();
  return sha || undefined;
}
