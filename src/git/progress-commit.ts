/**
 * A progress commit: exactly the named files, as they are in the work tree,
 * committed on top of HEAD, and nothing else. The user's index is not used to
 * build it: the commit is assembled in a temporary index, the branch is moved
 * with a compare-and-swap, and then only the committed paths of the real index
 * are set to what was committed. Whatever the user had staged stays staged,
 * whatever they had not stays in the work tree.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { GitCommandError, ProgressCommitRefused, ProgressIndexNotUpdated } from './errors.js';
import { topPath } from './paths.js';
import { commitText, type CommitMessage } from './progress-message.js';
import { gitState, type GitState } from './repository.js';
import { runGit, runGitOr, type GitHandle } from './run.js';

export interface ProgressCommitInput extends CommitMessage {
  /** Paths relative to the repository root. A path that no longer exists is committed as deleted. */
  files: string[];
}

/**
 * Commits `files` with `message` and `trailers` on the checked-out branch and
 * returns the new commit's sha, or undefined when those files are already
 * committed as they are (no empty commit is made). Never pushes; runs no hooks
 * (`commit-tree` does not), but signs when `commit.gpgSign` says so.
 *
 * Throws `ProgressCommitRefused`, with nothing written, on a detached HEAD,
 * during a merge, rebase, am, cherry-pick, revert or bisect, and when another
 * commit lands on the branch meanwhile.
 */
export async function progressCommit(handle: GitHandle, input: ProgressCommitInput): Promise<string | undefined> {
  const paths = [...new Set(input.files.map((file) => topPath(handle, file)))];
  const text = commitText(input);
  if (paths.length === 0) return undefined;
  const state = await gitState(handle);
  refuseUnlessOnBranch(state);

  const tempIndex = join(handle.gitDir, `autopilot-index-${process.pid}-${randomUUID().slice(0, 8)}`);
  const inTempIndex = { env: { GIT_INDEX_FILE: tempIndex } };
  try {
    if (state.head) await runGit(handle, ['read-tree', state.head], inTempIndex);
    // --add takes in new files, --remove drops the ones gone from the work tree; --verbose only so git prints (see docs/git.md).
    const [, headTree] = await Promise.all([
      runGit(handle, ['update-index', '--add', '--remove', '--verbose', '--', ...paths], inTempIndex),
      state.head ? runGit(handle, ['rev-parse', `${state.head}^{tree}`]) : undefined,
    ]);
    const tree = (await runGit(handle, ['write-tree'], inTempIndex)).trim();
    if (tree === headTree?.trim()) return undefined;

    const commit = (await runGit(handle, ['commit-tree', tree, ...(state.head ? ['-p', state.head] : [])], { input: text })).trim();
    await moveBranch(handle, state, commit, text.split('\n')[0]!);
    await updateIndex(handle, paths, tempIndex, commit);
    return commit;
  } finally {
    rmSync(tempIndex, { force: true });
    rmSync(`${tempIndex}.lock`, { force: true });
  }
}

function refuseUnlessOnBranch(state: GitState): void {
  if (state.operation) throw new ProgressCommitRefused(state.operation, `${state.operation} in progress${state.branch ? ` on ${state.branch}` : ''}`);
  if (state.detached) throw new ProgressCommitRefused('detached', `detached HEAD${state.head ? ` at ${state.head.slice(0, 12)}` : ''}`);
}

/**
 * HEAD (through the branch it names) moves from the commit we built on to the
 * new one, or not at all: `update-ref` checks the old value under the ref's
 * lock. The transaction verbs make git answer (`start: ok`), which spares a
 * silent command simple-git's 50 ms wait for late output.
 */
async function moveBranch(handle: GitHandle, state: GitState, commit: string, subject: string): Promise<void> {
  const old = state.head ?? '0'.repeat(commit.length);
  try {
    await runGit(handle, ['update-ref', '-m', `autopilot progress commit: ${subject}`, '--stdin'], {
      input: `start\nupdate HEAD ${commit} ${old}\nprepare\ncommit\n`,
    });
  } catch (error) {
    const now = await runGitOr(handle, ['rev-parse', '--quiet', '--verify', 'HEAD^{commit}'], 1);
    if (error instanceof GitCommandError && now?.trim() !== state.head) {
      throw new ProgressCommitRefused(
        'head-moved',
        `${state.branch} moved from ${state.head?.slice(0, 12) ?? 'no commit'} to ${now?.trim().slice(0, 12) ?? 'nothing'}`,
      );
    }
    throw error;
  }
}

/**
 * Sets the real index entries of the committed paths to the committed blobs
 * (or removes them), and touches no other entry. The blobs come from the
 * temporary index, so what is staged is what was committed even if a file
 * changed a moment later.
 */
async function updateIndex(handle: GitHandle, paths: string[], tempIndex: string, commit: string): Promise<void> {
  try {
    const staged = await runGit(handle, ['--literal-pathspecs', 'ls-files', '-z', '--stage', '--', ...paths], { env: { GIT_INDEX_FILE: tempIndex } });
    const records = staged.split('\0').filter(Boolean);
    const present = new Set(records.map((record) => record.slice(record.indexOf('\t') + 1)));
    const zero = '0'.repeat(commit.length);
    const removals = paths.filter((path) => !present.has(path)).map((path) => `0 ${zero}\t${path}`);
    await runGit(handle, ['update-index', '--verbose', '-z', '--index-info'], { input: [...records, ...removals].map((record) => `${record}\0`).join('') });
  } catch (error) {
    throw new ProgressIndexNotUpdated(commit, paths, error);
  }
}
