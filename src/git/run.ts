/**
 * The one way the git layer runs git: through simple-git, from the top of the
 * work tree, with an environment chosen for it, failing on any non-zero exit.
 *
 * simple-git 4 strips every `GIT_*` variable (and EDITOR, PAGER, …) from the
 * child's environment unless it is named, and refuses a named one it was not
 * told to allow. We pass on the few a user sets for their own git (identity,
 * TLS trust, the ssh command) and drop the rest, so a `GIT_DIR` or
 * `GIT_INDEX_FILE` inherited from a hook cannot point us at another repository
 * or index.
 */
import { spawn } from 'node:child_process';
import { GitPluginError, simpleGit } from 'simple-git';
import { GitCommandError, GitTimedOut } from './errors.js';

export interface GitHandle {
  /** The folder given to `openGit` (autopilot's repository root); file paths are relative to it. */
  readonly root: string;
  /** The top folder of the work tree that holds `root`; git runs here. */
  readonly top: string;
  /** `root` relative to `top`, `''` or ending in `/` (`packages/app/`). */
  readonly prefix: string;
  /** This work tree's own git folder (`.git`, or `.git/worktrees/<name>` for a linked work tree). */
  readonly gitDir: string;
  /** `git --version`'s number, e.g. `2.39.5`. */
  readonly version: string;
  /** The environment every git command runs with. */
  readonly env: Readonly<Record<string, string>>;
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
/** Set by the git layer itself, for one command or for all. */
const SET_HERE = ['GIT_INDEX_FILE', 'GIT_TERMINAL_PROMPT'];
/** Besides `GIT_*`, the names simple-git guards (see @simple-git/argv-parser). */
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
  /** Added to the handle's environment for this command (names from `SET_HERE` or `PASSED_THROUGH`). */
  env?: Record<string, string>;
  /** Written to git's standard input. Must not be empty: simple-git would leave stdin open. */
  input?: string;
  /**
   * Stop git (SIGINT) when it has printed nothing for this long, and throw
   * `GitTimedOut`: for the commands that talk to a remote, which otherwise
   * wait as long as the remote keeps the connection open.
   */
  timeoutMs?: number;
}

/** Runs `git <args>` and returns its stdout, exactly as printed; throws `GitCommandError` on any non-zero exit. */
export async function runGit(where: Pick<GitHandle, 'top' | 'env'>, args: readonly string[], options: RunOptions = {}): Promise<string> {
  if (options.input === '') throw new TypeError('runGit: empty input would leave git waiting on stdin');
  const input = options.input;
  // simple-git wraps an error that is not its own; keep ours to throw it as it is.
  let failure: GitCommandError | undefined;
  const git = simpleGit({
    baseDir: where.top,
    trimmed: false,
    allowEnvironment: [...PASSED_THROUGH, ...SET_HERE],
    // Only so a GIT_SSH_COMMAND of the user's own environment reaches `git push`.
    unsafe: { allowUnsafeSshCommand: true },
    // simple-git's default treats an exit code without stderr as success (`symbolic-ref -q` on a detached HEAD); any non-zero exit is a failure here.
    errors: (error, result) => {
      if (result.exitCode === 0 && error === undefined) return undefined;
      const text = (chunks: Buffer[]) => Buffer.concat(chunks).toString('utf8');
      failure =
        error instanceof GitPluginError && error.plugin === 'timeout' && options.timeoutMs
          ? new GitTimedOut(args, options.timeoutMs, text(result.stdOut), text(result.stdErr), error)
          : new GitCommandError(args, result.exitCode, text(result.stdOut), text(result.stdErr), error instanceof Error ? error : undefined);
      return failure;
    },
    ...(input === undefined ? {} : { input: () => input }),
    ...(options.timeoutMs ? { timeout: { block: options.timeoutMs } } : {}),
  });
  try {
    return await git.env(options.env ? { ...where.env, ...options.env } : { ...where.env }).raw([...args]);
  } catch (error) {
    throw failure ?? error;
  }
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
  end(input?: string): Promise<string>;
}

/**
 * Starts `git <args>` for a conversation: what simple-git cannot do, since it
 * writes the whole input at once. Same folder and environment as `runGit`.
 * If this process dies, git reads the end of its input: `update-ref --stdin`
 * then aborts an open transaction.
 */
export function converseWithGit(where: Pick<GitHandle, 'top' | 'env'>, args: readonly string[], options: Pick<RunOptions, 'env'> = {}): GitConversation {
  const child = spawn('git', [...args], { cwd: where.top, env: { ...where.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let exit: number | undefined;
  let startError: Error | undefined;
  const waiting = new Set<() => void>();
  const wake = () => waiting.forEach((check) => check());
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => ((stdout += chunk), wake()));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.on('error', () => undefined);
  child.on('error', (error) => ((startError = error), (exit = -1), wake()));
  child.on('close', (code) => ((exit = exit ?? code ?? -1), wake()));
  const failure = () => new GitCommandError(args, exit ?? -1, stdout, stderr, startError);
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
          if (exit === 0) resolve(stdout);
          else reject(failure());
        };
        waiting.add(check);
        check();
      });
    },
  };
}

/**
 * `runGit` without simple-git, for a command that may print nothing
 * (`read-tree`, `add`, a `diff-tree` with no difference): simple-git waits
 * 50 ms more after such a command. Same folder, environment and errors.
 */
export function runGitDirect(where: Pick<GitHandle, 'top' | 'env'>, args: readonly string[], options: Pick<RunOptions, 'env' | 'input'> = {}): Promise<string> {
  return converseWithGit(where, args, options).end(options.input);
}
