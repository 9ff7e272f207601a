/**
 * The bytes judged are the bytes committed (docs/git.md, "What a progress
 * commit holds"): each file a judge of `done` read goes into the step's
 * commit as it was read, not as it is when the commit is made. A file
 * changed after it was judged (rewritten, deleted, made a link) keeps its
 * change in the work tree, uncommitted, and is named; the commit holds the
 * version judged.
 *
 * Costs nothing in git when no file changed: the files are read again here
 * (twice, around git's own read of them) and compared, and a file git read
 * into the commit is checked by its blob id. Only a file that differs costs
 * git commands (`hash-object`, or `cat-file -e` when the text judged is not
 * at hand). Internal to src/git.
 */
import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { blobId } from '../hash.js';
import type { Entries, Entry, TreeChange } from './index-entries.js';
import { topPath } from './paths.js';
import { runGit, runGitOr, type GitHandle } from './run.js';

export interface JudgedFile {
  /** Relative to the repository root. */
  path: string;
  /** The blob id of the text judged (its UTF-8 bytes), in the repository's object format (`blobId`). */
  blob: string;
  /** The text judged, when this process judged it: committed as it is if the file changed since. */
  text?: string;
}

/** A judged file still as judged when the commit began: its bytes on disk then. */
interface Kept extends JudgedFile {
  top: string;
  bytes: Buffer;
}

export interface JudgedRead {
  kept: Kept[];
  /** Changed since it was judged: never read from the work tree into the commit. */
  moved: (JudgedFile & { top: string })[];
}

/** The bytes of a regular file (a link, a folder, nothing: undefined). */
function bytesOf(handle: GitHandle, top: string): Buffer | undefined {
  const file = join(handle.top, top);
  try {
    return lstatSync(file).isFile() ? readFileSync(file) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether these bytes read as the text judged (as a judge decodes them: UTF-8). */
const readsAsJudged = (judged: JudgedFile, bytes: Buffer, format: 'sha1' | 'sha256') =>
  judged.text !== undefined ? bytes.toString('utf8') === judged.text : blobId(bytes.toString('utf8'), format) === judged.blob;

/** Each judged file as it is now, in the work tree: still as judged, or changed since. Reads files; no git. */
export function readJudged(handle: GitHandle, judged: readonly JudgedFile[]): JudgedRead {
  const format = handle.objectFormat ?? 'sha1';
  const read: JudgedRead = { kept: [], moved: [] };
  for (const file of judged) {
    const top = topPath(handle, file.path);
    const bytes = bytesOf(handle, top);
    if (bytes && readsAsJudged(file, bytes, format)) read.kept.push({ ...file, top, bytes });
    else read.moved.push({ ...file, top });
  }
  return read;
}

export interface JudgedPins {
  /** Index entries to set in the commit's temporary index: the versions judged, where the tree does not hold them. */
  entries: Entries;
  /** Changed after they were judged (relative to the root): the commit holds the version judged, the work tree the change. */
  changed: string[];
  /** Changed after they were judged, with the version judged gone (a command stopped before its commit): left out of the commit. */
  left: string[];
}

/**
 * What the commit's tree must be given so that it holds each judged file as
 * judged, once git has read the rest of the work tree into it (`changes`:
 * the tree against HEAD). A kept file git read as the bytes judged (its blob
 * id, or the same blob through the repository's filters) needs nothing; one
 * swapped around git's read, or changed before, is set to the version judged.
 */
export async function judgedPins(handle: GitHandle, read: JudgedRead, changes: readonly TreeChange[]): Promise<JudgedPins> {
  const format = handle.objectFormat ?? 'sha1';
  const byPath = new Map(changes.map((c) => [c.path, c]));
  const pins: JudgedPins = { entries: new Map(), changed: [], left: [] };
  const shown = (top: string) => top.slice(handle.prefix.length);
  for (const file of read.kept) {
    const change = byPath.get(file.top);
    if (change) {
      if (change.entry?.sha === blobId(file.bytes, format)) continue;
      // Not the raw bytes: the repository's filters (line endings), or a swap after the first read. git tells which.
      const sha = await hashBytes(handle, file.top, file.bytes);
      if (sha === change.entry?.sha) continue;
      pins.entries.set(file.top, { mode: modeOf(handle, file.top, change.entry), sha });
    } else {
      // Not in the diff: the tree holds HEAD's version. Still the bytes judged now, so git read them (or they are HEAD's).
      const now = bytesOf(handle, file.top);
      if (now?.equals(file.bytes)) continue;
      pins.entries.set(file.top, { mode: modeOf(handle, file.top), sha: await hashBytes(handle, file.top, file.bytes) });
    }
    pins.changed.push(shown(file.top));
  }
  for (const file of read.moved) {
    if (file.text !== undefined) {
      pins.entries.set(file.top, { mode: modeOf(handle, file.top), sha: await hashBytes(handle, file.top, Buffer.from(file.text, 'utf8')) });
      pins.changed.push(shown(file.top));
    } else if ((await runGitOr(handle, ['cat-file', '-e', file.blob], 1)) !== undefined) {
      // The version judged is in the object database (a command that deferred its commit wrote it there).
      pins.entries.set(file.top, { mode: modeOf(handle, file.top), sha: file.blob });
      pins.changed.push(shown(file.top));
    } else pins.left.push(shown(file.top));
  }
  return pins;
}

/** The blob `git add` would record for these bytes at this path (its filters applied), written to the object database. */
async function hashBytes(handle: GitHandle, top: string, bytes: Buffer): Promise<string> {
  const out = await runGit(handle, ['hash-object', '-w', '--stdin', `--path=${top}`], bytes.length > 0 ? { input: bytes } : {});
  return out.trim();
}

/** The mode to commit a judged file with (a regular file, as judges read only those): the tree's, else executable as the work tree's file is. */
function modeOf(handle: GitHandle, top: string, entry?: Entry): string {
  if (entry?.mode === '100644' || entry?.mode === '100755') return entry.mode;
  const stat = lstatSync(join(handle.top, top), { throwIfNoEntry: false });
  return stat?.isFile() && stat.mode & 0o111 ? '100755' : '100644';
}

/**
 * Writes texts judged to the object database as they are (no filters: their
 * blob ids are the ones the journal names), so that a commit made later, by
 * another command, can still hold them as judged.
 */
export async function storeJudged(handle: GitHandle, texts: readonly string[]): Promise<void> {
  for (const text of texts) await runGit(handle, ['hash-object', '-w', '--no-filters', '--stdin'], text.length > 0 ? { input: text } : {});
}
