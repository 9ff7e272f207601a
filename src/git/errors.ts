/**
 * What the git layer throws. A caller tells them apart with `instanceof`:
 * a refusal is the user's situation (exit 2, nothing written), a failed
 * command is git's own answer, passed on with its words. One a caller outside
 * the git bundle tells apart carries a brand (`brand` in `errors.ts`).
 */
import { brand, InputError } from '../errors.js';

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

/**
 * git was stopped because it printed nothing for `timeoutMs` (only commands
 * given a timeout: those that talk to a remote).
 */
export class GitTimedOut extends GitCommandError {
  readonly timeoutMs: number;
  constructor(args: readonly string[], timeoutMs: number, stdout: string, stderr: string, cause?: unknown) {
    super(args, -1, stdout, stderr, cause);
    this.name = 'GitTimedOut';
    this.timeoutMs = timeoutMs;
    const command = args.find((arg) => !arg.startsWith('-')) ?? '';
    this.message = `git ${command} was stopped: no answer within ${timeoutMs / 1000} s${stderr.trim() ? ` (${stderr.trim().split('\n')[0]})` : ''}`;
  }
}

/**
 * git printed more than the git layer collects from one command
 * (`GIT_OUTPUT_MAX_CHARS`), and was stopped: a repository larger than
 * autopilot handles, or a file in it far larger than any of autopilot's.
 */
export class GitOutputTooLarge extends GitCommandError {
  readonly limit: number;
  constructor(args: readonly string[], limit: number, stderr: string) {
    super(args, -1, '', stderr);
    this.name = 'GitOutputTooLarge';
    this.limit = limit;
    const command = args.find((arg) => !arg.startsWith('-')) ?? '';
    this.message = `git ${command} printed more than ${limit.toLocaleString('en')} characters, more than autopilot reads from one git command, so it was stopped: the repository is larger than autopilot handles`;
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
 * `commit.gpgSign` (or the caller) asked for a signed progress commit and git
 * could not sign it: a missing key, a locked agent, a wrong `gpg.format`.
 * Nothing was committed: the branch, the index and the work tree are as they
 * were. `stderr` holds git's (and gpg's or ssh-keygen's) own words.
 */
export class SigningFailed extends GitCommandError {
  constructor(failure: GitCommandError) {
    super(failure.args, failure.exitCode, failure.stdout, failure.stderr, failure);
    this.name = 'SigningFailed';
    this.message = `the progress commit could not be signed, so nothing was committed (git is told to sign, by commit.gpgSign; check user.signingKey and gpg.format): ${said(failure)}`;
  }
}

/**
 * A git command that talks to `remote` printed nothing for `timeoutMs` and
 * was stopped: a remote that accepts the connection and never answers, a
 * network that swallows packets. Whether a push reached the remote before
 * it fell silent is not known: read the remote again before deciding.
 */
export class RemoteNotAnswering extends GitTimedOut {
  static {
    brand(this, 'RemoteNotAnswering');
  }
  readonly remote: string;
  constructor(remote: string, failure: GitTimedOut) {
    super(failure.args, failure.timeoutMs, failure.stdout, failure.stderr, failure);
    this.name = 'RemoteNotAnswering';
    this.remote = remote;
    const timeoutMs = failure.timeoutMs;
    const command = failure.args.find((arg) => !arg.startsWith('-')) ?? '';
    this.message =
      `the remote ${remote} did not answer within ${timeoutMs / 1000} s (git ${command}), so autopilot stopped waiting; ` +
      `check that it is reachable (\`git ls-remote ${remote}\`) and its URL (\`git remote -v\`), or give it longer`;
  }
}

/**
 * The work-tree snapshot a step's commit is measured against is no longer in
 * the object database (`git gc --prune` removed it while nothing referenced
 * it): what changed during the step cannot be told. The caller falls back to
 * a narrower commit (the step's own files).
 */
export class SnapshotGone extends Error {
  readonly tree: string;
  constructor(tree: string, cause?: unknown) {
    super(
      `the work-tree snapshot ${tree} is no longer in the repository (pruned by git gc?): what changed since cannot be told`,
      cause === undefined ? undefined : { cause },
    );
    this.name = 'SnapshotGone';
    this.tree = tree;
  }
}

/** What git says when it cannot read an index file (read-cache.c): a torn write, a disk error, bytes that are not an index. */
const INDEX_UNREADABLE =
  /index file smaller than expected|index file corrupt|bad signature 0x[0-9a-f]+|bad index version|bad index file sha1 signature|index uses .{1,40} extension, which we do not understand|unknown index entry format|\.git\/index: index file open failed/i;

/**
 * git cannot read the user's index (`.git/index`): every command that reads
 * it (`git status` too) fails alike. Bad input, exit 2, naming the file and
 * the fix — never an internal error. Nothing was written.
 */
export class IndexUnreadable extends InputError {
  readonly file: string;
  constructor(file: string, failure: GitCommandError) {
    // git names the file it read: autopilot's copy of the index, when a snapshot read it; the person's file is this one.
    const why = said(failure)
      .split('\n')[0]!
      .replace(/^(fatal|error): /, '')
      .replace(/\S*autopilot-index-\d+-[0-9a-f]{8}/g, file);
    super(
      {
        file,
        message: `git cannot read its index (${why}): rebuild it from HEAD with \`rm ${file} && git reset\``,
        expected: 'an index git can read (`git status` works)',
        received: 'an index file git refuses',
      },
      `\`rm ${file} && git reset\` rebuilds the index from HEAD: your files in the work tree stay as they are; what you had staged must be staged again. Then run the command again.`,
    );
    this.name = 'IndexUnreadable';
    this.file = file;
  }
}

/** The failure as `IndexUnreadable` when git could not read an index (the user's, or autopilot's copy of it), else itself. */
export function indexUnreadable(indexFile: string, failure: unknown): unknown {
  return failure instanceof GitCommandError && INDEX_UNREADABLE.test(failure.stderr) ? new IndexUnreadable(indexFile, failure) : failure;
}

/** git's own words from a failure, at most four lines. */
function said(failure: GitCommandError): string {
  return (failure.stderr.trim() || failure.stdout.trim() || failure.message).split('\n').slice(0, 4).join('\n');
}
