/**
 * Index entries by path, read and written with plumbing (`ls-files --stage`,
 * `update-index --index-info`), so one path can be set without touching any
 * other: what a progress commit needs to bring the user's index up to the
 * commit for the committed paths, and only for them. Internal to src/git.
 */
import { isAbsolute, join, relative } from 'node:path';
import { indexUnreadable } from './errors.js';
import { runGit, type GitHandle, type RunOptions } from './run.js';

/** The user's index file as a person finds it from the repository root (`.git/index`). */
export function userIndexFile(handle: Pick<GitHandle, 'root' | 'gitDir'>): string {
  const file = join(handle.gitDir, 'index');
  const shown = relative(handle.root, file);
  return shown && !isAbsolute(shown) ? shown.replaceAll('\\', '/') : file;
}

/** Runs git on an index; a failure to read the user's index (no `GIT_INDEX_FILE` given) says so, naming it (`IndexUnreadable`). */
async function onIndex(handle: GitHandle, args: readonly string[], options: RunOptions): Promise<string> {
  try {
    return await runGit(handle, args, options);
  } catch (error) {
    throw options.env?.GIT_INDEX_FILE ? error : indexUnreadable(userIndexFile(handle), error);
  }
}

/** A stage-0 index entry or tree entry: `100644` and a blob's sha (`160000` and a commit for a submodule). */
export interface Entry {
  mode: string;
  sha: string;
}

/** What a path should hold in the index: an entry, or `undefined` for no entry at all. */
export type Entries = Map<string, Entry | undefined>;

export const sameEntry = (a: Entry | undefined, b: Entry | undefined): boolean => (a === undefined ? b === undefined : a.mode === b?.mode && a.sha === b.sha);

/** Pathspecs per `ls-files` call: a long list is read in slices, far below any command-line limit. */
const SLICE = 500;

export interface IndexRead {
  /** The stage-0 entry of each path that has one. */
  entries: Map<string, Entry>;
  /** Paths with conflict stages (1–3): a merge left them unresolved. */
  unmerged: Set<string>;
}

/**
 * The index entries of exactly these paths (top-relative), from the index
 * `options.env.GIT_INDEX_FILE` names, else the user's. A path the index does
 * not hold is absent from the answer.
 */
export async function readEntries(handle: GitHandle, paths: readonly string[], options: Pick<RunOptions, 'env'> = {}): Promise<IndexRead> {
  const wanted = new Set(paths);
  const read: IndexRead = { entries: new Map(), unmerged: new Set() };
  for (let i = 0; i < paths.length; i += SLICE) {
    // Direct: nothing is printed when none of the paths is in the index.
    const out = await onIndex(handle, ['--literal-pathspecs', 'ls-files', '-z', '--stage', '--', ...paths.slice(i, i + SLICE)], options);
    for (const record of out.split('\0')) {
      const tab = record.indexOf('\t');
      if (tab < 0) continue;
      const path = record.slice(tab + 1);
      // A pathspec naming a folder matches the files inside it: only the paths asked for count.
      if (!wanted.has(path)) continue;
      const [mode = '', sha = '', stage = ''] = record.slice(0, tab).split(' ');
      if (stage === '0') read.entries.set(path, { mode, sha });
      else read.unmerged.add(path);
    }
  }
  return read;
}

/**
 * Sets each path's index entry (the user's index unless `options.env` names
 * another) to the given one, or removes it (`undefined`), in one
 * `update-index --index-info`: git writes the new index whole under
 * `index.lock` and renames it into place, so a kill leaves the old index or
 * the new one, never a mix. Stat data of the set entries is left empty: git
 * refreshes it on the next `git status`.
 */
export async function writeEntries(handle: GitHandle, entries: Entries, shaLength: number, options: Pick<RunOptions, 'env'> = {}): Promise<void> {
  if (entries.size === 0) return;
  const zero = '0'.repeat(shaLength);
  const lines = [...entries].map(([path, entry]) => (entry ? `${entry.mode} ${entry.sha} 0\t${path}` : `0 ${zero}\t${path}`));
  await onIndex(handle, ['update-index', '-z', '--index-info'], { ...options, input: lines.map((line) => `${line}\0`).join('') });
}

export type Change = 'added' | 'modified' | 'deleted';

export interface TreeChange {
  /** Top-relative. */
  path: string;
  change: Change;
  /** The entry after the change; undefined for a deletion. */
  entry: Entry | undefined;
  /** The entry before it; undefined for an addition. */
  before: Entry | undefined;
}

/**
 * Parses `git diff-tree -r -z --raw --no-renames` (without a commit id line):
 * `:<old mode> <new mode> <old sha> <new sha> <letter>\0<path>\0`, one per
 * changed file.
 */
export function parseRawDiff(out: string): TreeChange[] {
  const fields = out.split('\0');
  const changes: TreeChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const head = fields[i]!;
    if (!head.startsWith(':')) {
      // Not a raw record (a commit id line): step back one field to stay aligned.
      i -= 1;
      continue;
    }
    const [oldMode = '', newMode = '', oldSha = '', newSha = '', letter = ''] = head.slice(1).split(' ');
    const before = /^0+$/.test(oldMode) ? undefined : { mode: oldMode, sha: oldSha };
    const entry = /^0+$/.test(newMode) ? undefined : { mode: newMode, sha: newSha };
    const change: Change = letter.startsWith('A') ? 'added' : letter.startsWith('D') ? 'deleted' : 'modified';
    changes.push({ path: fields[i + 1]!, change, entry, before });
  }
  return changes;
}
