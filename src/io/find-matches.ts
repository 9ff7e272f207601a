/**
 * Resolves a flow pattern against the disk segment by segment: a literal
 * segment costs one stat, a glob segment one readdir of the folder it names.
 * Nothing else is read, so a `_docs/` of 100,000 files costs what the rules
 * name, not what the tree holds. picomatch matches the glob segments.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import picomatch from 'picomatch';

const GLOB = /[*?[\]{}!]/;
const matchers = new Map<string, (name: string) => boolean>();

function matcherFor(segment: string): (name: string) => boolean {
  let matcher = matchers.get(segment);
  if (!matcher) {
    matcher = picomatch(segment, { dot: false });
    matchers.set(segment, matcher);
  }
  return matcher;
}

/** Evidence must have content: an empty file proves nothing. Folders count when named. */
function isEvidence(path: string, wantFolder: boolean): boolean {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return false;
  if (wantFolder) return stat.isDirectory();
  return stat.isDirectory() || (stat.isFile() && stat.size > 0);
}

function isFolder(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

function listFolder(path: string): string[] {
  try {
    return readdirSync(path).sort();
  } catch {
    return [];
  }
}

/**
 * Paths (relative to `base`) that match `pattern`, at most `limit` of them.
 * A trailing `/` asks for folders only.
 */
export function findMatches(base: string, pattern: string, limit = 3): string[] {
  const wantFolder = pattern.endsWith('/');
  const segments = pattern.replace(/\/+$/, '').split('/');
  let candidates = [''];
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    const next: string[] = [];
    for (const dir of candidates) {
      const matches = matcherFor(segment);
      // Called with the name only: picomatch reads a second argument as "return an object", which is always truthy.
      const names = GLOB.test(segment) ? listFolder(join(base, dir)).filter((name) => matches(name)) : [segment];
      for (const name of names) {
        const rel = dir ? `${dir}/${name}` : name;
        const abs = join(base, rel);
        if (last ? isEvidence(abs, wantFolder) : isFolder(abs)) next.push(rel);
        if (last && next.length >= limit) break;
      }
    }
    candidates = next;
  });
  return candidates.slice(0, limit);
}
