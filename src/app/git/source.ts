/**
 * Git as the third source of the position (rule 2): consulted only when the
 * pointer does not parse, when pointer and journal are both gone from the
 * work tree, or pointer, journal and folder cannot decide. The
 * git layer is imported here, on demand, so a healthy repository
 * never loads it.
 */
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join, relative } from 'node:path';
import type { Flow } from '../../formats/flow/model.js';
import type { Repo } from '../../io/repo.js';
import { gitFolders as foldersOf } from '../../io/git-folders.js';
import { parsePointer, type ParsedPointer } from '../../formats/pointer/parse-pointer.js';
import type { Position } from '../../formats/pointer/position.js';
import { GIT_FALLBACK_MAX_COMMITS } from '../../limits.js';
import { DEFAULT_RUN } from '../../formats/run-name.js';

export interface FromGit {
  pointer: ParsedPointer;
  /** Where it came from, for the drift message: `the pointer committed in 1a2b3c4d`, `the progress commit 1a2b3c4d`. */
  from: string;
}

/** Why the git fallback is off here, or undefined when it is on. Cheap: no process is started. */
export function gitFallbackOff(repo: Repo): string | undefined {
  let dir = repo.root;
  for (;;) {
    if (existsSync(join(dir, '.git'))) break;
    const up = dirname(dir);
    if (up === dir) return 'not a git repository';
    dir = up;
  }
  const found = (process.env.PATH ?? '').split(delimiter).some((folder) => {
    if (!folder) return false;
    try {
      accessSync(join(folder, process.platform === 'win32' ? 'git.exe' : 'git'), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  return found ? undefined : '`git` is not on PATH';
}

/** The git folders of the repository that holds `repo` (io/git-folders.ts). */
const gitFolders = (repo: Repo) => foldersOf(repo.root);

/** A ref's commit as the common folder's files hold it: its loose file, else its `packed-refs` line; undefined for neither. */
function refOnDisk(common: string, ref: string): string | undefined {
  const loose = join(common, ref);
  if (existsSync(loose)) return readFileSync(loose, 'utf8').trim();
  const packed = join(common, 'packed-refs');
  if (!existsSync(packed)) return undefined;
  return readFileSync(packed, 'utf8')
    .split('\n')
    .find((line) => line.endsWith(` ${ref}`))
    ?.split(' ')[0];
}

/**
 * Whether the branch checked out has no commit yet (a fresh `git init`),
 * read from the git folder's files, with no process started: `HEAD` names a
 * branch that is neither a loose ref nor in `packed-refs`. Where it cannot
 * tell (another ref storage, a file it cannot read) it says no.
 */
export function firstCommitMissing(repo: Repo): boolean {
  try {
    const folders = gitFolders(repo);
    if (!folders) return false;
    const ref = /^ref:\s*(refs\/heads\/\S+)\s*$/.exec(readFileSync(join(folders.own, 'HEAD'), 'utf8'))?.[1];
    if (!ref || !existsSync(join(folders.common, 'refs', 'heads')) || existsSync(join(folders.common, 'reftable'))) return false;
    return refOnDisk(folders.common, ref) === undefined;
  } catch {
    return false;
  }
}

/** HEAD's commit, read from the git folder's files (no process): undefined where it cannot tell. */
export function headOnDisk(repo: Repo): string | undefined {
  try {
    const folders = gitFolders(repo);
    if (!folders) return undefined;
    const head = readFileSync(join(folders.own, 'HEAD'), 'utf8').trim();
    const ref = /^ref:\s*(\S+)$/.exec(head)?.[1];
    if (!ref) return /^[0-9a-f]{40,64}$/.test(head) ? head : undefined;
    return refOnDisk(folders.common, ref);
  } catch {
    return undefined;
  }
}

const rel = (repo: Repo, file: string) => relative(repo.root, file).split('\\').join('/');

/** The last committed pointer that parses, else the newest progress commit's trailers; undefined when git has neither. */
export async function positionFromGit(repo: Repo, flows: Flow[]): Promise<FromGit | undefined> {
  if (gitFallbackOff(repo)) return undefined;
  const { openGit } = await import('../../git/repository.js');
  const opened = await openGit(repo.root);
  if (!opened.handle) return undefined;
  const { committedVersions, progressTrailers } = await import('../../git/history.js');
  const known = (id: string) => flows.some((f) => f.id === id);
  for (const version of await committedVersions(opened.handle, rel(repo, repo.pointerFile), GIT_FALLBACK_MAX_COMMITS)) {
    try {
      const pointer = parsePointer(version.text, rel(repo, repo.pointerFile));
      if (known(pointer.position.flow)) return { pointer, from: `the pointer committed in ${version.sha.slice(0, 8)}` };
    } catch {
      // An older broken version: look further back.
    }
  }
  // A run's own commits only: a named run's carry its name (`Autopilot-Run`), the default run's none.
  const ours = (run: string | undefined) => (run ?? DEFAULT_RUN) === repo.run;
  const [latest] = (await progressTrailers(opened.handle, GIT_FALLBACK_MAX_COMMITS)).filter((t) => known(t.flow) && ours(t.run));
  if (!latest) return undefined;
  const position: Position = {
    flow: latest.flow,
    step: latest.step,
    name: latest.name,
    status: latest.status,
    subStep: '0',
    retryCount: latest.status === 'failed' ? 3 : 0,
    cycle: latest.cycle,
  };
  return {
    pointer: { position, preamble: '', extraSections: '', lines: { flow: 0, step: 0, name: 0, status: 0, sub_step: 0, retry_count: 0, cycle: 1 } },
    from: `the progress commit ${latest.sha.slice(0, 8)}`,
  };
}

/** The pointer and the journal as HEAD holds them, while the work tree has neither (rule 2). */
export interface AtHead {
  /** The paths HEAD holds, of the two (relative to the root). */
  files: string[];
  /** The journal's size in HEAD, when HEAD holds it. */
  journalBytes?: number;
  /** The journal event HEAD's pointer names (its marker), when it names one. */
  event?: number;
  /** The position: HEAD's pointer, else the last committed pointer that parses or the newest progress commit's trailers. */
  fromGit?: FromGit;
}

/**
 * Whether HEAD holds the pointer or the journal that the work tree lacks, and
 * what it says: undefined when git is off here, the branch has no commit, or
 * HEAD holds neither. One `git ls-tree`, and one `git cat-file` for HEAD's
 * pointer; called only when both files are gone from the work tree.
 */
export async function stateAtHead(repo: Repo, flows: Flow[]): Promise<AtHead | undefined> {
  if (gitFallbackOff(repo) || firstCommitMissing(repo)) return undefined;
  const { openGit } = await import('../../git/repository.js');
  const opened = await openGit(repo.root);
  if (!opened.handle) return undefined;
  const { heldAtHead, blobText } = await import('../../git/history.js');
  const pointerPath = rel(repo, repo.pointerFile);
  const journalPath = rel(repo, repo.journalFile);
  const held = await heldAtHead(opened.handle, [pointerPath, journalPath]);
  if (held.length === 0) return undefined;
  const pointerBlob = held.find((h) => h.path === pointerPath);
  const journal = held.find((h) => h.path === journalPath);
  let pointer: ParsedPointer | undefined;
  try {
    const parsed = pointerBlob ? parsePointer(await blobText(opened.handle, pointerBlob.sha), pointerPath) : undefined;
    if (parsed && flows.some((f) => f.id === parsed.position.flow)) pointer = parsed;
  } catch {
    // HEAD's pointer does not parse: the history further back, as for any pointer that does not.
  }
  const fromGit = pointer ? { pointer, from: `the pointer HEAD holds (${pointerPath})` } : await positionFromGit(repo, flows);
  const files = [pointerPath, journalPath].filter((p) => held.some((h) => h.path === p));
  return { files, journalBytes: journal?.size, event: pointer?.record?.seq, fromGit };
}

/** The two sides of a pointer that holds merge-conflict markers; undefined when it holds none. */
export function conflictSides(text: string): { ours: string; theirs: string } | undefined {
  if (!/^<{7}( |$)/m.test(text) || !/^>{7}( |$)/m.test(text)) return undefined;
  const ours: string[] = [];
  const theirs: string[] = [];
  let side: 'both' | 'ours' | 'base' | 'theirs' = 'both';
  for (const line of text.split('\n')) {
    if (/^<{7}( |$)/.test(line)) side = 'ours';
    else if (/^\|{7}( |$)/.test(line)) side = 'base';
    else if (/^={7}$/.test(line) && side !== 'both') side = 'theirs';
    else if (/^>{7}( |$)/.test(line)) side = 'both';
    else {
      if (side === 'both' || side === 'ours') ours.push(line);
      if (side === 'both' || side === 'theirs') theirs.push(line);
    }
  }
  return { ours: ours.join('\n'), theirs: theirs.join('\n') };
}
