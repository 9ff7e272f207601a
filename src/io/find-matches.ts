/**
 * Resolves a flow pattern against the disk segment by segment: a literal
 * segment costs one stat, a glob segment one readdir of the folder it names.
 * Nothing else is read, so a `_docs/` of 100,000 files costs what the rules
 * name, not what the tree holds. picomatch matches the glob segments.
 */
import { closeSync, constants, opendirSync, openSync, readdirSync, readSync, realpathSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import picomatch from 'picomatch';
import { InputError } from '../errors.js';
import { BLANK_EVIDENCE_MAX_BYTES, LARGE_LISTING_BYTES, LISTING_BUFFER_ENTRIES } from '../limits.js';
import { folderIdentity, keepNames, keptNames } from './listing-cache.js';
import { displayPath } from './repo.js';

const GLOB = /[*?[\]{}!]/;
const matchers = new Map<string, (name: string) => boolean>();

/** Only `*` wildcards (`solution_draft_*.md`): most patterns, matched without compiling a glob. */
const STARS_ONLY = /^[^*?[\]{}!()+@\\]*(\*[^*?[\]{}!()+@\\]+|\*$)+$/;
/** What picomatch reads its own way (a `*` after a dot must match a character: `*.*` is not `a.`): left to it. */
const PICOMATCH_SHORTCUTS = /^(\*\.\*|\.\*)(\.\w+)?$/;

/** `*` matches any run of characters but `/`, and, as in picomatch with `dot: false`, never a leading dot. */
function starMatcher(segment: string): (name: string) => boolean {
  const parts = segment.split('*');
  const [first, ...rest] = parts as [string, ...string[]];
  const last = rest.pop()!;
  return (name) => {
    if (name === '' || name === '.' || name === '..' || !name.startsWith(first) || (first === '' && name.startsWith('.'))) return false;
    let at = first.length;
    for (const part of rest) {
      const found = name.indexOf(part, at);
      if (found < 0) return false;
      at = found + part.length;
    }
    return name.length - last.length >= at && name.endsWith(last);
  };
}

/** For the test that holds the fast path to picomatch's answers. */
export const matcherForTest = (segment: string) => matcherFor(segment);

function matcherFor(segment: string): (name: string) => boolean {
  let matcher = matchers.get(segment);
  if (!matcher) {
    const fast = STARS_ONLY.test(segment) && !segment.includes('**') && !PICOMATCH_SHORTCUTS.test(segment);
    matcher = fast ? starMatcher(segment) : picomatch(segment, { dot: false });
    matchers.set(segment, matcher);
  }
  return matcher;
}

/** Evidence must have content: an empty file, or one of nothing but whitespace, proves nothing. Folders count when named. */
function isEvidence(path: string, wantFolder: boolean, onEmpty?: () => void): boolean {
  const stat = statOf(path);
  if (!stat) return false;
  if (wantFolder || stat.isDirectory()) return stat.isDirectory();
  if (!stat.isFile()) return false;
  if (stat.size === 0 || (stat.size <= BLANK_EVIDENCE_MAX_BYTES && isBlank(path))) {
    onEmpty?.();
    return false;
  }
  return true;
}

/** One buffer for every file read by `isBlank` (a command reads a few dozen, one at a time). */
let blankBuffer: Buffer | undefined;

/** Whether a small file holds only whitespace; read until its first other byte, so a real file costs one short read. */
function isBlank(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    const buffer = (blankBuffer ??= Buffer.alloc(4096));
    for (let offset = 0; ;) {
      const n = readSync(fd, buffer, 0, buffer.length, offset);
      if (n === 0) return true;
      for (let i = 0; i < n; i++) if (!WHITESPACE.has(buffer[i]!)) return false;
      offset += n;
    }
  } finally {
    closeSync(fd);
  }
}

/** Space, tab, line feed, vertical tab, form feed, carriage return. */
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0b, 0x0c, 0x0d]);

function isFolder(path: string): boolean {
  return statOf(path)?.isDirectory() ?? false;
}

/**
 * The names in a folder that match a glob segment, sorted. An absent folder
 * holds nothing; one that cannot be read is an error, never "no artifacts"
 * (which would move the pointer back). A small folder is read in one call,
 * which is cheaper to start. A folder whose listing is large (its size says
 * so) is read entry by entry and matched as the entries come: one pass, not an
 * array of 100,000 names; and its matching names are kept outside the
 * repository (`io/listing-cache.ts`) for as long as the folder stays as it was,
 * so the next command does not list it again.
 */
function listMatching(path: string, segment: string, glob: (name: string) => boolean): string[] {
  try {
    if ((statOf(path)?.size ?? 0) <= LARGE_LISTING_BYTES)
      return readdirSync(path)
        .filter((name) => glob(name))
        .sort();
    // Taken before the listing: a folder that changes while it is read never matches what was kept.
    const folder = folderIdentity(path, Date.now());
    const kept = folder && keptNames(path, folder.identity, segment);
    if (kept) return kept;
    const names = streamNames(path, glob).sort();
    if (folder?.quiet) keepNames(path, folder.identity, segment, names);
    return names;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error instanceof InputError ? error : unreadable(path, error);
  }
}

function streamNames(path: string, keep: (name: string) => boolean): string[] {
  const names: string[] = [];
  const dir = opendirSync(path, { bufferSize: LISTING_BUFFER_ENTRIES });
  try {
    for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) if (keep(entry.name)) names.push(entry.name);
  } finally {
    dir.closeSync();
  }
  return names;
}

function statOf(path: string) {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') return undefined;
    throw unreadable(path, error);
  }
}

export function unreadable(path: string, error: unknown): InputError {
  const code = (error as NodeJS.ErrnoException).code ?? 'an error';
  return new InputError(
    {
      file: displayPath(path),
      message: `autopilot cannot read this path (${code}), so it cannot tell which steps are done; nothing was changed`,
      expected: 'a folder autopilot can list (check its permissions, or a symlink loop)',
      received: code,
    },
    undefined,
    'guard_off',
  );
}

/** Where evidence may live: inside this folder (the repository), checked on the real path; links out are reported, never counted. */
export interface Confinement {
  root: string;
  refused: (rel: string, real: string) => void;
  /** A file that matches but is empty: not evidence, and worth saying so. */
  empty?: (rel: string) => void;
}

/**
 * Folders of other people's code that a glob never descends into when it
 * looks for a project's own files: `npm install` fills `node_modules/` with
 * `*.js` in an otherwise empty repository, which is not the project's code.
 */
export const DEPENDENCY_FOLDERS = new Set(['node_modules', 'bower_components', 'vendor', 'venv', '__pycache__', 'site-packages']);

function confined(abs: string, rel: string, within: Confinement | undefined): boolean {
  if (!within) return true;
  let real: string;
  try {
    real = realpathSync.native(abs);
  } catch {
    return false;
  }
  const inside = real === within.root || real.startsWith(within.root + sep);
  if (!inside) within.refused(rel, real);
  return inside;
}

/**
 * Paths (relative to `base`) that match `pattern`, at most `limit` of them.
 * A trailing `/` asks for folders only. With `within`, a match whose real
 * path lies outside that folder (a symlink out of the repository) does not count.
 */
export function findMatches(base: string, pattern: string, limit = 3, within?: Confinement, skip?: ReadonlySet<string>): string[] {
  const wantFolder = pattern.endsWith('/');
  const segments = pattern.replace(/\/+$/, '').split('/');
  let candidates = [''];
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    const next: string[] = [];
    for (const dir of candidates) {
      // A literal segment is one stat; only a glob is matched (called with the name only: picomatch reads
      // a second argument as "return an object", which is always truthy).
      const glob = GLOB.test(segment) ? matcherFor(segment) : undefined;
      const names = glob ? listMatching(join(base, dir), segment, glob).filter((name) => !skip?.has(name)) : [segment];
      for (const name of names) {
        const rel = dir ? `${dir}/${name}` : name;
        const abs = join(base, rel);
        const found = last ? isEvidence(abs, wantFolder, () => within?.empty?.(rel)) : isFolder(abs);
        if (found && (!last || confined(abs, rel, within))) next.push(rel);
        if (last && next.length >= limit) break;
      }
    }
    candidates = next;
  });
  return candidates.slice(0, limit);
}
