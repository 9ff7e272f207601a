/**
 * The one way the git layer runs git: a plain spawn of `git`, from the top of
 * the work tree, with an environment chosen for it, failing on any non-zero
 * exit. (It ran through simple-git until issue 23; a spawn does the same in a
 * page, without 21 KB of the package or simple-git's 50 ms wait after a
 * command that prints nothing.)
 *
 * The environment drops every `GIT_*` variable (and EDITOR, PAGER, …) but the
 * few a user sets for their own git (identity, TLS trust, the ssh command), so
 * a `GIT_DIR` or `GIT_INDEX_FILE` inherited from a hook cannot point us at
 * another repository or index.
 */
import { spawn } from 'node:child_process';
import { GIT_OUTPUT_MAX_CHARS } from '../limits.js';
import { GitCommandError, GitOutputTooLarge, GitTimedOut } from './errors.js';
import { releaseSlot, takeSlot, type SlotKind } from './slots.js';

export interface GitHandle {
  /** The folder given to `openGit` (autopilot's repository root); file paths are relative to it. */
  readonly root: string;
  /** The top folder of the work tree that holds `root`; git runs here. */
  readonly top: string;
  /** `root` relative to `top`, `''` or ending in `/` (`packages/app/`). */
  readonly prefix: string;
  /** This work tree's own git folder (`.git`, or `.git/worktrees/<name>` for a linked work tree). */
  readonly gitDir: string;
  /** The git folder every work tree of the repository shares (its refs, its objects); unknown to a handle not made by `openGit`. */
  readonly commonDir?: string;
  /** How the repository names its objects: `sha1` (40 hex digits) or `sha256` (64); sha1 when not said. */
  readonly objectFormat?: 'sha1' | 'sha256';
  /** The environment every git command runs with. */
  readonly env: Readonly<Record<string, string>>;
  /** A named run the handle acts for (docs/runs.md): its step snapshots are kept by refs of its own. */
  readonly run?: string;
}

/** From the user's environment: what their own `git commit` and `git push` would honour. */
const PASSED_THROUGH = [
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_AUTHOR_DATE',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'GIT_COMMITTER_DATE',
  'GIT_SSL_CAINFO',
  'GIT_SSL_CAPATH',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
];
/** Besides `GIT_*`, the names that steer git (an editor, a pager, a prompt), dropped like them. */
const GUARDED = new Set(['EDITOR', 'VISUAL', 'PAGER', 'PREFIX', 'SSH_ASKPASS']);

const isGuarded = (name: string) => name.toUpperCase().startsWith('GIT_') || GUARDED.has(name.toUpperCase());

/**
 * The environment for git: the given one (the process's by default) without
 * the guarded names we do not pass on, and never a password prompt: an agent
 * has no one to type it, so a push that needs one fails instead of hanging.
 */
export function gitEnvironment(base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    if (isGuarded(name) && !PASSED_THROUGH.includes(name.toUpperCase())) continue;
    env[name] = value;
  }
  env.GIT_TERMINAL_PROMPT = '0';
  return env;
}

export interface RunOptions {
  /** Added to the handle's environment for this command (`GIT_INDEX_FILE` for a temporary index, or names from `PASSED_THROUGH`). */
  env?: Record<string, string>;
  /** Written to git's standard input, which is then closed (it is closed at once without one). Must not be empty. */
  input?: string | Uint8Array;
  /**
   * Stop git (SIGINT) when it has printed nothing for this long, and throw
   * `GitTimedOut`: for the commands that talk to a remote, which otherwise
   * wait as long as the remote keeps the connection open. Such a git runs in
   * a process group of its own, and the whole group is stopped: git's http
   * helper outlives an interrupted `ls-remote` and would hold its pipes open.
   */
  timeoutMs?: number;
  /** What is collected of its output before git is stopped and the command fails as `GitOutputTooLarge` (default `GIT_OUTPUT_MAX_CHARS`). */
  maxOutputChars?: number;
}

/** How long a stopped git's group has to end on SIGINT before it is killed: a helper may ignore the interrupt. */
const GROUP_KILL_GRACE_MS = 1_000;

/**
 * A git command with a time limit, started in a process group of its own
 * (not on Windows, which has none): `stop` signals every process of the
 * group, git's helpers (`git remote-http`, ssh) included; the group is killed
 * if this process exits while it runs. Without a time limit, git as before.
 */
function spawnGit(where: Pick<GitHandle, 'top' | 'env'>, args: readonly string[], options: Pick<RunOptions, 'env' | 'timeoutMs'>) {
  const grouped = options.timeoutMs !== undefined && process.platform !== 'win32';
  const child = spawn('git', [...args], {
    cwd: where.top,
    env: { ...where.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    windowsHide: true,
    detached: grouped,
  });
  const signal = (name: NodeJS.Signals) => {
    try {
      if (grouped && child.pid !== undefined) process.kill(-child.pid, name);
      else child.kill(name);
    } catch {
      // The group has ended already.
    }
  };
  const killAtExit = () => signal('SIGKILL');
  if (grouped) process.on('exit', killAtExit);
  let grace: NodeJS.Timeout | undefined;
  child.on('close', () => {
    clearTimeout(grace);
    // Whatever of the group is left (a helper that kept no pipe) ends with it.
    if (grouped) signal('SIGKILL');
    process.off('exit', killAtExit);
  });
  const stop = () => {
    signal('SIGINT');
    grace = setTimeout(() => signal('SIGKILL'), GROUP_KILL_GRACE_MS);
    grace.unref();
  };
  return { child, stop };
}

/** Runs `git <args>` and returns its stdout, exactly as printed; throws `GitCommandError` on any non-zero exit. */
export async function runGit(where: Pick<GitHandle, 'top' | 'env'>, args: readonly string[], options: RunOptions = {}): Promise<string> {
  if (options.input?.length === 0) throw new TypeError('runGit: empty input would leave git waiting on stdin');
  return startInSlot(where, args, options, 'command').end(options.input);
}

/** `git …` whose failure with exit code `code` (and only that) means "no": returns undefined then. */
export async function runGitOr(
  where: Pick<GitHandle, 'top' | 'env'>,
  args: readonly string[],
  code: number,
  options?: RunOptions,
): Promise<string | undefined> {
  try {
    return await runGit(where, args, options);
  } catch (error) {
    if (error instanceof GitCommandError && error.exitCode === code) return undefined;
    throw error;
  }
}

/** A git command fed its standard input a piece at a time, reading its answers as they come (`update-ref --stdin`). */
export interface GitConversation {
  /** Writes `text` to git and waits for `lines` more lines on its stdout; throws `GitCommandError` if git exits first. */
  say(text: string, lines: number): Promise<string[]>;
  /** Writes `input` (if any), closes git's stdin and waits for it to exit: its whole stdout; throws `GitCommandError` on a failure. */
  end(input?: string | Uint8Array): Promise<string>;
}

/**
 * Starts `git <args>` for a conversation, its input given a piece at a time
 * (`runGit` is one whose input is given at once), once one of the slots git
 * runs in is free (`slots.ts`: a few at once, conversations apart). If this process dies, git
 * reads the end of its input: `update-ref --stdin` then aborts an open
 * transaction. With `timeoutMs`, git and its helpers are stopped (SIGINT to
 * its process group, then SIGKILL) when it has printed nothing for that long,
 * and it fails as `GitTimedOut`; past `maxOutputChars` of output it is stopped
 * and fails as `GitOutputTooLarge`.
 */
export function converseWithGit(
  where: Pick<GitHandle, 'top' | 'env'>,
  args: readonly string[],
  options: Pick<RunOptions, 'env' | 'timeoutMs' | 'maxOutputChars'> = {},
): GitConversation {
  return startInSlot(where, args, options, 'conversation');
}

/** `git <args>` started once a slot of `kind` is free (`slots.ts`), given back when git has exited. */
function startInSlot(
  where: Pick<GitHandle, 'top' | 'env'>,
  args: readonly string[],
  options: Pick<RunOptions, 'env' | 'timeoutMs' | 'maxOutputChars'>,
  kind: SlotKind,
): GitConversation {
  const started = takeSlot(kind).then(() => {
    let released = false;
    const release = () => void (released || ((released = true), releaseSlot(kind)));
    try {
      return startGit(where, args, options, release);
    } catch (error) {
      release();
      throw error;
    }
  });
  return {
    say: (text, lines) => started.then((git) => git.say(text, lines)),
    end: (input) => started.then((git) => git.end(input)),
  };
}

/** `git <args>` started in a slot taken for it: `release` gives the slot back when git has exited (or could not start). */
function startGit(
  where: Pick<GitHandle, 'top' | 'env'>,
  args: readonly string[],
  options: Pick<RunOptions, 'env' | 'timeoutMs' | 'maxOutputChars'>,
  release: () => void,
): GitConversation {
  const { child, stop } = spawnGit(where, args, options);
  let stdout = '';
  let stderr = '';
  let exit: number | undefined;
  let startError: Error | undefined;
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const { timeoutMs } = options;
  const heard = () => {
    if (!timeoutMs) return;
    clearTimeout(timer);
    timer = setTimeout(() => ((timedOut = true), stop()), timeoutMs);
  };
  heard();
  const waiting = new Set<() => void>();
  const wake = () => waiting.forEach((check) => check());
  // What git prints is collected up to a limit: past it, git is stopped and nothing more is kept.
  const maxOutput = options.maxOutputChars ?? GIT_OUTPUT_MAX_CHARS;
  let tooLarge = false;
  const fits = (chunk: string) => {
    if (!tooLarge && stdout.length + stderr.length + chunk.length > maxOutput) {
      tooLarge = true;
      child.kill();
    }
    return !tooLarge;
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => void (fits(chunk) && ((stdout += chunk), heard(), wake())));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (fits(chunk) && ((stderr += chunk), heard())));
  child.stdin.on('error', () => undefined);
  child.on('error', (error) => ((startError = error), (exit = -1), clearTimeout(timer), release(), wake()));
  child.on('close', (code) => ((exit = exit ?? code ?? -1), clearTimeout(timer), release(), wake()));
  const failure = () =>
    tooLarge
      ? new GitOutputTooLarge(args, maxOutput, stderr)
      : timedOut && timeoutMs
        ? new GitTimedOut(args, timeoutMs, stdout, stderr)
        : new GitCommandError(args, exit ?? -1, stdout, stderr, startError);
  let read = 0;
  return {
    say(text, lines) {
      child.stdin.write(text);
      return new Promise((resolve, reject) => {
        const check = () => {
          const answered = stdout.slice(read).split('\n');
          if (answered.length > lines) {
            waiting.delete(check);
            const taken = answered.slice(0, lines);
            read += taken.reduce((sum, line) => sum + line.length + 1, 0);
            resolve(taken);
          } else if (exit !== undefined) {
            waiting.delete(check);
            reject(failure());
          }
        };
        waiting.add(check);
        check();
      });
    },
    end(input) {
      child.stdin.end(input);
      return new Promise((resolve, reject) => {
        const check = () => {
          if (exit === undefined) return;
          waiting.delete(check);
          if (exit === 0 && !tooLarge) resolve(stdout);
          else reject(failure());
        };
        waiting.add(check);
        check();
      });
    },
  };
}
