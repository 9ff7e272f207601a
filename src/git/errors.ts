/**
 * What the git layer throws. A caller tells them apart with `instanceof`:
 * a refusal is the user's situation (exit 2, nothing written), a failed
 * command is git's own answer, passed on with its words.
 */
import { InputError } from '../errors.js';

/** A git command exited with a failure, or could not be started at all. */
export class GitCommandError extends Error {
  readonly args: readonly string[];
  /** The exit code; negative when git could not be started (not on PATH). */
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  constructor(args: readonly string[], exitCode: number, stdout: string, stderr: string, cause?: unknown) {
    const said = (stderr.trim() || stdout.trim() || (cause instanceof Error ? cause.message : '')).split('\n').slice(0, 4).join('\n');
    const command = args.find((arg) => !arg.startsWith('-')) ?? '';
    super(
      `git ${command} ${exitCode >= 0 ? `failed (exit ${exitCode})` : 'could not be started'}${said ? `: ${said}` : ''}`,
      cause === undefined ? undefined : { cause },
    );
    this.name = 'GitCommandError';
    this.args = args;
    this.exitCode = exitCode;
    this.stdout = stdout;
    this.stderr = stderr;
  }
}

export type RefusalReason = 'detached' | 'merge' | 'rebase' | 'am' | 'cherry-pick' | 'revert' | 'bisect' | 'head-moved';

const REFUSALS: Record<RefusalReason, { message: string; expected: string }> = {
  detached: { message: 'HEAD is detached', expected: 'a branch checked out, e.g. `git switch main`' },
  merge: { message: 'a merge is in progress', expected: 'the merge finished (`git commit`) or abandoned (`git merge --abort`)' },
  rebase: { message: 'a rebase is in progress', expected: 'the rebase finished (`git rebase --continue`) or abandoned (`git rebase --abort`)' },
  am: { message: '`git am` is applying patches', expected: 'the patches applied (`git am --continue`) or abandoned (`git am --abort`)' },
  'cherry-pick': {
    message: 'a cherry-pick is in progress',
    expected: 'the cherry-pick finished (`git cherry-pick --continue`) or abandoned (`git cherry-pick --abort`)',
  },
  revert: { message: 'a revert is in progress', expected: 'the revert finished (`git revert --continue`) or abandoned (`git revert --abort`)' },
  bisect: { message: 'a bisect is in progress', expected: 'the bisect ended (`git bisect reset`)' },
  'head-moved': { message: 'another commit landed on the branch while autopilot was committing', expected: 'the command run again' },
};

/**
 * A progress commit refused before anything was written: the branch and the
 * index are as they were. An `InputError`, so the command exits 2.
 */
export class ProgressCommitRefused extends InputError {
  readonly reason: RefusalReason;
  constructor(reason: RefusalReason, received: string) {
    const { message, expected } = REFUSALS[reason];
    super({ message: `no progress commit: ${message}`, expected, received });
    this.name = 'ProgressCommitRefused';
    this.reason = reason;
  }
}

/**
 * The progress commit is made and the branch points to it, but the index
 * could not be brought up to it for the committed paths (another git command
 * held `index.lock`): `git status` shows them as staged reversals until
 * `git reset -q -- <paths>` is run.
 */
export class ProgressIndexNotUpdated extends Error {
  readonly sha: string;
  readonly paths: readonly string[];
  constructor(sha: string, paths: readonly string[], cause: unknown) {
    super(
      `committed ${sha.slice(0, 12)}, but the index could not be updated for ${paths.join(', ')}; run \`git reset -q -- ${paths.join(' ')}\` (${cause instanceof Error ? cause.message : String(cause)})`,
      { cause },
    );
    this.name = 'ProgressIndexNotUpdated';
    this.sha = sha;
    this.paths = paths;
  }
}
