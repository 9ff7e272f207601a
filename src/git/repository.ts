/**
 * Whether git can serve a repository at all, and what state its work tree is
 * in. `openGit` never throws for an ordinary reason (no git, not a work tree,
 * a git too old): it says why, so a caller can report "the git fallback is
 * off" and carry on without it.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { GitCommandError } from './errors.js';
import { gitEnvironment, runGit, runGitOr, type GitHandle } from './run.js';

export type { GitHandle } from './run.js';

/** Oldest git with everything used here (`update-ref --stdin` transactions came in 2.27). */
export const MIN_GIT_VERSION = [2, 27] as const;

export type OpenGit = { handle: GitHandle; reason?: undefined } | { handle: undefined; reason: string };

export interface OpenGitOptions {
  /** The environment to look git up in and run it with; the process's by default. */
  env?: NodeJS.ProcessEnv;
}

export async function openGit(root: string, options: OpenGitOptions = {}): Promise<OpenGit> {
  const env = gitEnvironment(options.env);
  const at = { top: resolve(root), env };
  if (!statSync(at.top, { throwIfNoEntry: false })?.isDirectory()) return { handle: undefined, reason: `${at.top} is not a folder` };
  let versionText: string;
  let locations: string;
  try {
    [versionText, locations] = await Promise.all([
      runGit(at, ['version']),
      runGit(at, ['rev-parse', '--is-inside-work-tree', '--show-toplevel', '--absolute-git-dir', '--show-prefix', '--show-object-format']),
    ]);
  } catch (error) {
    if (!(error instanceof GitCommandError)) throw error;
    if (error.exitCode < 0) return { handle: undefined, reason: 'git is not installed or not on PATH' };
    const said = error.stderr.trim().split('\n')[0];
    return { handle: undefined, reason: `${at.top} is not inside a git work tree${said ? ` (${said})` : ''}` };
  }
  const version = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(versionText);
  if (!version || Number(version[1]) * 1000 + Number(version[2]) < MIN_GIT_VERSION[0] * 1000 + MIN_GIT_VERSION[1]) {
    return { handle: undefined, reason: `${versionText.trim()} is older than git ${MIN_GIT_VERSION.join('.')}, which autopilot's git features need` };
  }
  const [inside, top, gitDir, prefix = '', format] = locations.split('\n');
  if (inside !== 'true' || !top || !gitDir) return { handle: undefined, reason: `${at.top} is not inside a git work tree` };
  return { handle: { root: at.top, top, prefix, gitDir, version: version[0], env, objectFormat: format === 'sha256' ? 'sha256' : 'sha1' } };
}

export type GitOperation = 'merge' | 'rebase' | 'am' | 'cherry-pick' | 'revert' | 'bisect';

export interface GitState {
  /** The checked-out branch (`main`); absent when HEAD is detached. */
  branch?: string;
  detached: boolean;
  /** The commit HEAD names; absent on a branch with no commit yet. */
  head?: string;
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

export async function gitState(handle: GitHandle): Promise<GitState> {
  const [paths, symbolic, head] = await Promise.all([
    // --git-path resolves each name where this work tree keeps it (linked work trees keep their own).
    runGit(handle, ['rev-parse', ...MARKS.flatMap((mark) => ['--git-path', mark.path])]),
    runGitOr(handle, ['symbolic-ref', '--quiet', 'HEAD'], 1),
    runGitOr(handle, ['rev-parse', '--quiet', '--verify', 'HEAD^{commit}'], 1),
  ]);
  const found = paths
    .split('\n')
    .slice(0, MARKS.length)
    .findIndex((path) => path !== '' && existsSync(resolve(handle.top, path)));
  const ref = symbolic?.trim();
  return {
    ...(ref ? { branch: ref.replace(/^refs\/heads\//, '') } : {}),
    detached: ref === undefined,
    ...(head ? { head: head.trim() } : {}),
    ...(found >= 0 ? { operation: MARKS[found]!.operation } : {}),
  };
}
