/**
 * Whether git can serve a repository at all, and what state its work tree is
 * in. `openGit` never throws for an ordinary reason (no git, not a work tree,
 * a git too old): it says why, so a caller can report "the git fallback is
 * off" and carry on without it. It asks git once (one `rev-parse`, whose
 * `--show-object-format` also proves git recent enough: no `git version`) for where the work tree is and what state it is in: the branch,
 * its commit and an operation under way come with the handle, so a command
 * that commits asks nothing more before it starts.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { GitCommandError } from './errors.js';
import { gitEnvironment, runGit, runGitOr, type GitHandle } from './run.js';

export type { GitHandle } from './run.js';

/** Oldest git with everything used here (`update-ref --stdin` transactions came in 2.27). */
export const MIN_GIT_VERSION = [2, 27] as const;

export type OpenGit = { handle: GitHandle; state: GitState; reason?: undefined } | { handle: undefined; reason: string };

export interface OpenGitOptions {
  /** The environment to look git up in and run it with; the process's by default. */
  env?: NodeJS.ProcessEnv;
  /** A named run the handle acts for: its snapshot refs are its own (`snapshotRef`). */
  run?: string;
}

/** Where the work tree is: `rev-parse`'s first six answers. */
const LOCATIONS = ['--is-inside-work-tree', '--show-toplevel', '--absolute-git-dir', '--show-prefix', '--show-object-format', '--git-common-dir'];

export async function openGit(root: string, options: OpenGitOptions = {}): Promise<OpenGit> {
  const env = gitEnvironment(options.env);
  const at = { top: resolve(root), env };
  if (!statSync(at.top, { throwIfNoEntry: false })?.isDirectory()) return { handle: undefined, reason: `${at.top} is not a folder` };
  let lines: string[];
  try {
    lines = await askState(at, LOCATIONS);
  } catch (error) {
    if (!(error instanceof GitCommandError)) throw error;
    if (error.exitCode < 0) return { handle: undefined, reason: 'git is not installed or not on PATH' };
    const said = error.stderr.trim().split('\n')[0];
    return { handle: undefined, reason: `${at.top} is not inside a git work tree${said ? ` (${said})` : ''}` };
  }
  const [inside, top, gitDir, prefix = '', format, commonDir] = lines;
  // `--show-object-format` came in git 2.29, so its answer proves git recent enough; an older rev-parse echoes the
  // option it does not know, and only then is git's version asked (2.27 and 2.28 name their objects with sha1).
  const tooOld = format === 'sha1' || format === 'sha256' ? undefined : await olderThanNeeded(at);
  if (tooOld) return { handle: undefined, reason: tooOld };
  if (inside !== 'true' || !top || !gitDir) return { handle: undefined, reason: `${at.top} is not inside a git work tree` };
  // The common folder is printed relative to the folder git ran in (`.git`) by older gits.
  const shared = commonDir ? resolve(at.top, commonDir) : undefined;
  const handle: GitHandle = {
    root: at.top,
    top,
    prefix,
    gitDir,
    commonDir: shared,
    env,
    objectFormat: format === 'sha256' ? 'sha256' : 'sha1',
    run: options.run,
  };
  return { handle, state: await stateFrom(handle, lines.slice(LOCATIONS.length)) };
}

/** Why this git is not used, when it is older than `MIN_GIT_VERSION`; undefined when it is recent enough. */
async function olderThanNeeded(at: Pick<GitHandle, 'top' | 'env'>): Promise<string | undefined> {
  const versionText = await runGit(at, ['version']);
  const version = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(versionText);
  if (version && Number(version[1]) * 1000 + Number(version[2]) >= MIN_GIT_VERSION[0] * 1000 + MIN_GIT_VERSION[1]) return undefined;
  return `${versionText.trim()} is older than git ${MIN_GIT_VERSION.join('.')}, which autopilot's git features need`;
}

export type GitOperation = 'merge' | 'rebase' | 'am' | 'cherry-pick' | 'revert' | 'bisect';

export interface GitState {
  /** The checked-out branch (`main`); absent when HEAD is detached. */
  branch?: string;
  detached: boolean;
  /** The commit HEAD names; absent on a branch with no commit yet. */
  head?: string;
  /** That commit's tree. */
  tree?: string;
  /** A multi-step git command that has stopped half-way, waiting for the user. */
  operation?: GitOperation;
}

/** The marks each operation leaves in the git folder, in the order they are checked (a rebase may stop on a cherry-pick). */
const MARKS: { path: string; operation: GitOperation }[] = [
  { path: 'rebase-merge', operation: 'rebase' },
  { path: 'rebase-apply/applying', operation: 'am' },
  { path: 'rebase-apply', operation: 'rebase' },
  { path: 'MERGE_HEAD', operation: 'merge' },
  { path: 'CHERRY_PICK_HEAD', operation: 'cherry-pick' },
  { path: 'REVERT_HEAD', operation: 'revert' },
  { path: 'BISECT_LOG', operation: 'bisect' },
];

/** The state of the work tree now: one `rev-parse`, and the branch read from the git folder's `HEAD`. */
export async function gitState(handle: GitHandle): Promise<GitState> {
  return stateFrom(handle, await askState(handle, []));
}

/**
 * `git rev-parse <before…>`, then the path of each operation's mark
 * (`--git-path` resolves each where this work tree keeps it: linked work
 * trees keep their own), then HEAD's commit and its tree: its lines. On a
 * branch with no commit yet git prints all but the last two and fails on
 * HEAD (exit 128): those lines, and two empty ones.
 */
async function askState(where: Pick<GitHandle, 'top' | 'env'>, before: readonly string[]): Promise<string[]> {
  const args = ['rev-parse', ...before, ...MARKS.flatMap((mark) => ['--git-path', mark.path]), 'HEAD^{commit}', 'HEAD^{tree}', '--'];
  const count = before.length + MARKS.length;
  try {
    return (await runGit(where, args)).split('\n').slice(0, count + 2);
  } catch (error) {
    // Every line but HEAD's printed: HEAD names no commit. Anything less is the failure it says.
    const lines = error instanceof GitCommandError && error.exitCode === 128 ? error.stdout.split('\n') : [];
    if (lines.length <= count) throw error;
    return [...lines.slice(0, count), '', ''];
  }
}

/** The state from `askState`'s lines after the locations (the marks' paths, then HEAD's commit and tree, or `''`). */
async function stateFrom(handle: GitHandle, lines: readonly string[]): Promise<GitState> {
  const found = lines.slice(0, MARKS.length).findIndex((path) => path !== '' && existsSync(resolve(handle.top, path)));
  const [head, tree] = [lines[MARKS.length]?.trim(), lines[MARKS.length + 1]?.trim()];
  const ref = await symbolicHead(handle);
  const state: GitState = { detached: ref === undefined };
  if (ref) state.branch = ref.replace(/^refs\/heads\//, '');
  if (head && tree) Object.assign(state, { head, tree });
  if (found >= 0) state.operation = MARKS[found]!.operation;
  return state;
}

/**
 * The ref HEAD names (`refs/heads/main`), or undefined when it is detached:
 * read from this work tree's `HEAD` file, as `git symbolic-ref` reads it;
 * asked of git where the file does not say (another ref storage keeps
 * `refs/heads/.invalid` there).
 */
async function symbolicHead(handle: GitHandle): Promise<string | undefined> {
  let text: string | undefined;
  try {
    text = readFileSync(join(handle.gitDir, 'HEAD'), 'utf8');
  } catch {
    text = undefined;
  }
  const named = text === undefined ? undefined : /^ref: (refs\/\S+)\s*$/.exec(text)?.[1];
  if (named && named !== 'refs/heads/.invalid') return named;
  if (text !== undefined && /^[0-9a-f]{40}(?:[0-9a-f]{24})?\s*$/.test(text)) return undefined;
  return (await runGitOr(handle, ['symbolic-ref', '--quiet', 'HEAD'], 1))?.trim() || undefined;
}
