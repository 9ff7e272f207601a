/**
 * Where things are in the user's repository, and the one gate every path goes
 * through: nothing autopilot reads or writes may lie outside the repository.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { InputError } from '../errors.js';

export const DEFAULT_DOCS = '_docs';

export interface Repo {
  root: string;
  /** The docs folder as given (relative to the root), for messages and patterns shown to the agent. */
  docsName: string;
  docs: string;
  pointerFile: string;
  autopilotDir: string;
  journalFile: string;
  flowCacheFile: string;
  repoFlowsDir: string;
  repoSkillsDir: string;
}

export interface RepoOptions {
  /** `-C DIR`: where to start; the current directory when absent. */
  dir?: string;
  /** `--docs DIR`: the docs folder, relative to the repository root. */
  docs?: string;
}

export function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** The nearest folder at or above `start` that holds the docs folder, `.autopilot/` or `.git`. */
function findRoot(start: string, docs: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, docs)) || existsSync(join(dir, '.autopilot')) || existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return start;
  }
}

export function openRepo(options: RepoOptions = {}, cwd = process.cwd()): Repo {
  const start = resolve(cwd, options.dir ?? '.');
  const stat = statSync(start, { throwIfNoEntry: false });
  if (!stat?.isDirectory()) {
    throw new InputError({ message: `-C ${options.dir}: no such directory`, expected: 'the path of a repository, e.g. `-C ../my-project`', received: start });
  }
  const docsName = (options.docs ?? DEFAULT_DOCS).replace(/[\\/]+$/, '') || DEFAULT_DOCS;
  if (isAbsolute(docsName)) {
    throw new InputError({
      message: `--docs ${docsName}: the docs folder must be inside the repository`,
      expected: 'a path relative to the repository root, e.g. `--docs docs`',
      received: docsName,
    });
  }
  const root = realpathSync(findRoot(start, docsName));
  const docs = resolve(root, docsName);
  if (!isInside(root, docs) || docs === root || !isInside(root, realOrSelf(docs))) {
    throw new InputError({
      message: `--docs ${docsName}: the docs folder is outside the repository ${root}`,
      expected: 'a folder inside the repository, e.g. `--docs _docs`',
      received: docs,
    });
  }
  const autopilotDir = join(docs, '_autopilot');
  return {
    root,
    docsName,
    docs,
    pointerFile: join(docs, '_autopilot_state.md'),
    autopilotDir,
    journalFile: join(autopilotDir, 'journal.jsonl'),
    flowCacheFile: join(autopilotDir, 'cache', 'flows.json'),
    repoFlowsDir: join(root, '.autopilot', 'flows'),
    repoSkillsDir: join(root, '.autopilot', 'skills'),
  };
}

/**
 * Refuses to write through a symlink (or a symlinked folder) that leads out of
 * the repository: everything autopilot writes stays inside it.
 */
export function assertInside(repo: Repo, file: string): void {
  let real = realOrSelf(file);
  if (real === file) real = resolve(realOrSelf(dirname(file)), relative(dirname(file), file));
  if (!isInside(repo.root, real)) {
    throw new InputError({
      file: relative(repo.root, file),
      message: 'this path leads outside the repository (through a symlink); autopilot does not write there',
      expected: `a file inside ${repo.root}`,
      received: real,
    });
  }
}

/** The real path of `path`, or `path` itself when it does not exist yet. */
function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * A path as a person reads it: a file of the repository relative to its root
 * (`_docs/_autopilot_state.md`, whatever `-C` said), any other relative to the
 * working directory when inside it, else absolute.
 */
export function displayPath(path: string, root?: string, cwd = process.cwd()): string {
  if (root && isInside(root, path)) return relative(root, path) || '.';
  return isInside(cwd, path) ? relative(cwd, path) || '.' : path;
}
