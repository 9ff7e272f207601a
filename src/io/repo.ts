/**
 * Where things are in the user's repository, and the one gate every path goes
 * through: nothing autopilot reads or writes may lie outside the repository.
 */
import { existsSync, lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { basename, delimiter, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { InputError } from '../errors.js';
import { DOCS_PATH_MAX_LENGTH, DOCS_SEGMENT_MAX_LENGTH } from '../limits.js';
import { DEFAULT_RUN, checkRunName } from '../formats/run-name.js';
import { runDocsFolder, runDocsName, sharedRunFolder } from './run.js';

export const DEFAULT_DOCS = '_docs';

/**
 * One run of one repository (io/run.ts): the paths every command reads and
 * writes. `docs` and `docsName` are the run's docs folder (a named run's is
 * `<docs>/_runs/<name>/`); `repoDocs` and `repoDocsName` the repository's.
 */
export interface Repo {
  root: string;
  /** The run: `default`, or its name. */
  run: string;
  /** The run's docs folder as given (relative to the root), for messages and patterns shown to the agent. */
  docsName: string;
  docs: string;
  /** The repository's docs folder (the default run's), where the named runs' folders live. */
  repoDocsName: string;
  repoDocs: string;
  pointerFile: string;
  autopilotDir: string;
  journalFile: string;
  lockFile: string;
  /** The run's lease: `_autopilot/lease.json`, or a named run's in the common git folder (`sharedDir`), one for every work tree. */
  leaseFile: string;
  /** A named run's folder in the repository's common git folder (io/run.ts `sharedRunFolder`); undefined for the default run and outside git. */
  sharedDir?: string;
  flowCacheFile: string;
  journalIndexFile: string;
  repoFlowsDir: string;
  repoSkillsDir: string;
}

export interface RepoOptions {
  /** `-C DIR`: where to start; the current directory when absent. */
  dir?: string;
  /** `--docs DIR`: the docs folder, relative to the repository root. */
  docs?: string;
  /** `--run NAME`: the run (io/run.ts); the default run when absent or `default` (a name `listRuns` gives). */
  run?: string;
}

/** An absolute POSIX path with no empty, `.` or `..` segment: two of them compare by their text. */
const plain = (path: string) => sep === '/' && path.startsWith('/') && !/\/\.{0,2}(?=\/|$)/.test(path);

export function isInside(root: string, target: string): boolean {
  // Most paths are told by their text: path.relative resolves both, and a command asks this of each file it
  // reads, writes or names (a hundred-odd times). Two plain paths compare by their text; a path joined to the
  // root with no `..` is inside it.
  const prefix = root.endsWith(sep) ? root : root + sep;
  if (target === root) return true;
  if (plain(root) && plain(target)) return target.startsWith(prefix);
  if (target.startsWith(prefix) && !target.includes(`${sep}..`)) return true;
  const rel = relative(root, target);
  // `..` or `../…` climbs out; a name that starts with two dots (`..notes.md`) does not.
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * The folders the walk up never enters, as git's own `GIT_CEILING_DIRECTORIES`
 * says (absolute paths, separated as PATH is): autopilot stops looking where
 * git stops, so a stray `_docs/` above them (in a shared temporary folder, a
 * home folder) is never taken for a repository's root.
 */
function ceilings(env: NodeJS.ProcessEnv): Set<string> {
  const list = (env.GIT_CEILING_DIRECTORIES ?? '').split(delimiter).filter((d) => isAbsolute(d));
  return new Set(list.map((d) => resolve(d)));
}

/** Why a folder was taken for the root: the first of these it holds. */
export type RootMark = '.git' | '.autopilot' | 'pointer' | 'journal' | 'docs';

/** What in `dir` marks a run of autopilot's (its settings folder, the docs folder's pointer or journal); undefined when none does. */
function runMark(dir: string, docs: string): RootMark | undefined {
  if (existsSync(join(dir, '.autopilot'))) return '.autopilot';
  if (existsSync(join(dir, docs, '_autopilot_state.md'))) return 'pointer';
  if (existsSync(join(dir, docs, '_autopilot', 'journal.jsonl'))) return 'journal';
  return undefined;
}

export interface FoundRoot {
  root: string;
  /** What made it the root; absent when nothing did and the command works where it started. */
  mark?: RootMark;
}

/**
 * The repository's root for a command started in `start`, walking up as git
 * does and stopping where git stops (`GIT_CEILING_DIRECTORIES`):
 * - inside a git work tree, the nearest folder at or above `start` that holds
 *   the docs folder, `.autopilot/` or `.git` (a package of a monorepo may keep
 *   a run of its own);
 * - outside git, `start` when it holds the docs folder, else the nearest
 *   folder that holds `.autopilot/`, a pointer or a journal: a bare docs
 *   folder above (a stray `_docs/` in a shared temporary folder) is no run,
 *   and the command works where it started.
 */
export function findRoot(start: string, docs: string, env: NodeJS.ProcessEnv = process.env): FoundRoot {
  const stop = ceilings(env);
  let nearest: FoundRoot | undefined;
  let run: FoundRoot | undefined = existsSync(join(start, docs)) ? { root: start, mark: 'docs' } : undefined;
  for (let dir = start; ; dir = dirname(dir)) {
    const git = existsSync(join(dir, '.git'));
    const mark = runMark(dir, docs);
    nearest ??= git ? { root: dir, mark: '.git' } : mark ? { root: dir, mark } : existsSync(join(dir, docs)) ? { root: dir, mark: 'docs' } : undefined;
    run ??= mark ? { root: dir, mark } : undefined;
    if (git) return nearest!;
    if (dirname(dir) === dir || stop.has(dirname(dir))) return run ?? { root: start };
  }
}

/**
 * Whether `start` is the root `findRoot` would find by its first look alone:
 * a folder that holds the docs folder is the root whatever lies above it (in
 * a git work tree it is the nearest marked folder; outside, the folder the
 * command started in). One `stat` where the walk up costs five for each
 * folder to the file system's root, on every command.
 */
export function holdsDocs(start: string, docs: string): boolean {
  return existsSync(join(start, docs));
}

export function openRepo(options: RepoOptions = {}, cwd = process.cwd()): Repo {
  const start = resolve(cwd, options.dir ?? '.');
  const stat = statSync(start, { throwIfNoEntry: false });
  if (!stat?.isDirectory()) {
    throw new InputError({ message: `-C ${options.dir}: no such directory`, expected: 'the path of a repository, e.g. `-C ../my-project`', received: start });
  }
  const docsName = (options.docs ?? DEFAULT_DOCS).replace(/[\\/]+$/, '') || DEFAULT_DOCS;
  if (docsName.length > DOCS_PATH_MAX_LENGTH || docsName.split(/[\\/]/).some((segment) => segment.length > DOCS_SEGMENT_MAX_LENGTH)) {
    throw new InputError({
      message: `--docs: a docs folder name of ${docsName.length} characters is too long`,
      expected: `a short path relative to the repository root (at most ${DOCS_PATH_MAX_LENGTH} characters, ${DOCS_SEGMENT_MAX_LENGTH} a folder), e.g. \`--docs docs\``,
      received: `${docsName.slice(0, 40)}…`,
    });
  }
  if (isAbsolute(docsName)) {
    throw new InputError({
      message: `--docs ${docsName}: the docs folder must be inside the repository`,
      expected: 'a path relative to the repository root, e.g. `--docs docs`',
      received: docsName,
    });
  }
  const root = realpathSync.native(holdsDocs(start, docsName) ? start : findRoot(start, docsName, process.env).root);
  const docs = resolve(root, docsName);
  if (!isInside(root, docs) || docs === root || !isInside(root, realOrSelf(docs))) {
    throw new InputError({
      message: `--docs ${docsName}: the docs folder is outside the repository ${root}`,
      expected: 'a folder inside the repository, e.g. `--docs _docs`',
      received: docs,
    });
  }
  // `default` as listed by `listRuns` is the default run; what a person or agent names is checked where it is read (`runOf`).
  const run = options.run === undefined || options.run === DEFAULT_RUN ? DEFAULT_RUN : checkRunName(options.run, '--run');
  const runDocs = runDocsFolder(docs, run);
  const paths = runPaths(root, run, runDocsName(docsName, run), runDocs);
  const sharedDir = sharedRunFolder(root, run);
  if (sharedDir === undefined) return { ...paths, repoDocsName: docsName, repoDocs: docs };
  return { ...paths, leaseFile: join(sharedDir, 'lease.json'), sharedDir, repoDocsName: docsName, repoDocs: docs };
}

/** The files of the run `run` whose docs folder is `docs` (`docsName` as given). */
function runPaths(root: string, run: string, docsName: string, docs: string): Omit<Repo, 'repoDocsName' | 'repoDocs' | 'sharedDir'> {
  const autopilotDir = join(docs, '_autopilot');
  return {
    root,
    run,
    docsName,
    docs,
    pointerFile: join(docs, '_autopilot_state.md'),
    autopilotDir,
    journalFile: join(autopilotDir, 'journal.jsonl'),
    lockFile: join(autopilotDir, 'lock'),
    leaseFile: join(autopilotDir, 'lease.json'),
    flowCacheFile: join(autopilotDir, 'cache', 'flows.json'),
    journalIndexFile: join(autopilotDir, 'cache', 'journal-index.json'),
    repoFlowsDir: join(root, '.autopilot', 'flows'),
    repoSkillsDir: join(root, '.autopilot', 'skills'),
  };
}

/**
 * The path gate: every file autopilot writes goes through it first. The real
 * path of the deepest part that exists (a folder that is a symlink resolves to
 * where it leads) must lie inside the repository, and the file itself must not
 * be a symlink (even a dangling one): autopilot writes files, never through links.
 * A named run's shared folder in the common git folder (`sharedDir`, its
 * lease) is let through as well: in a linked work tree it lies outside.
 */
export function gatePath(repo: Repo, file: string): void {
  const refuse = (received: string, why: string) => {
    throw new InputError(
      { file: displayPath(file, repo.root), message: `${why}; autopilot does not write there`, expected: `a plain file inside ${repo.root}`, received },
      'Remove the link (or point the docs folder elsewhere with --docs), then run the command again.',
      'outside_repository',
    );
  };
  const own = lstatSync(file, { throwIfNoEntry: false });
  if (own?.isSymbolicLink()) refuse(`a symlink to ${readlinkQuietly(file)}`, 'this path is a symlink');
  let probe = dirname(file);
  const rest = [basename(file)];
  while (!lstatSync(probe, { throwIfNoEntry: false })) {
    rest.unshift(basename(probe));
    probe = dirname(probe);
  }
  let real: string;
  try {
    real = realpathSync.native(probe);
  } catch {
    return refuse(`${probe}, a link that leads nowhere`, 'this path goes through a dangling symlink');
  }
  const target = join(real, ...rest);
  // A named run's folder in the common git folder (its lease) is the one place outside the work tree autopilot writes.
  if (repo.sharedDir !== undefined && isInside(repo.sharedDir, target)) return;
  if (!isInside(repo.root, target)) refuse(target, 'this path leads outside the repository (through a symlink)');
}

function readlinkQuietly(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '?';
  }
}

/** The real path of `path`, or `path` itself when it does not exist yet. */
export function realOrSelf(path: string): string {
  try {
    return realpathSync.native(path);
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
