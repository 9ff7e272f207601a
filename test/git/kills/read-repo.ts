/**
 * Reading a small repository's state without running git: the index (v2/v3),
 * refs, loose objects. The kill tests check hundreds of repositories, and a
 * process costs more than these few file reads. Only what those tests meet:
 * no packs, no split index, no index v4, SHA-1.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';

/** `path → "mode sha"` of every stage-0 entry of the index. */
export function readIndex(gitDir: string): Map<string, string> {
  const data = readFileSync(join(gitDir, 'index'));
  if (data.toString('latin1', 0, 4) !== 'DIRC') throw new Error('not an index');
  const version = data.readUInt32BE(4);
  if (version !== 2 && version !== 3) throw new Error(`index version ${version}`);
  const count = data.readUInt32BE(8);
  const entries = new Map<string, string>();
  let at = 12;
  for (let k = 0; k < count; k++) {
    const mode = data.readUInt32BE(at + 24);
    const sha = data.toString('hex', at + 40, at + 60);
    const flags = data.readUInt16BE(at + 60);
    const extended = version === 3 && (flags & 0x4000) !== 0;
    const nameAt = at + 62 + (extended ? 2 : 0);
    const end = data.indexOf(0, nameAt);
    const path = data.toString('utf8', nameAt, end);
    if (((flags >> 12) & 3) === 0) entries.set(path, `${mode.toString(8)} ${sha}`);
    // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
    at += Math.floor((end - at + 8) / 8) * 8;
  }
  return entries;
}

/** The sha a ref names (following `ref:` links), or undefined for a branch with no commit. */
export function readRef(gitDir: string, name = 'HEAD'): string | undefined {
  const file = join(gitDir, name);
  if (existsSync(file)) {
    const text = readFileSync(file, 'utf8').trim();
    return text.startsWith('ref: ') ? readRef(gitDir, text.slice(5)) : text;
  }
  const packed = join(gitDir, 'packed-refs');
  if (!existsSync(packed)) return undefined;
  const line = readFileSync(packed, 'utf8')
    .split('\n')
    .find((l) => l.endsWith(` ${name}`));
  return line?.split(' ')[0];
}

function readObject(gitDir: string, sha: string): { type: string; body: Buffer } {
  const raw = inflateSync(readFileSync(join(gitDir, 'objects', sha.slice(0, 2), sha.slice(2))));
  const nul = raw.indexOf(0);
  return { type: raw.toString('latin1', 0, nul).split(' ')[0]!, body: raw.subarray(nul + 1) };
}

export interface Commit {
  tree: string;
  parents: string[];
  message: string;
}

export function readCommit(gitDir: string, sha: string): Commit {
  const { type, body } = readObject(gitDir, sha);
  if (type !== 'commit') throw new Error(`${sha} is a ${type}`);
  const text = body.toString('utf8');
  const split = text.indexOf('\n\n');
  const headers = text.slice(0, split).split('\n');
  return {
    tree: headers.find((h) => h.startsWith('tree '))!.slice(5),
    parents: headers.filter((h) => h.startsWith('parent ')).map((h) => h.slice(7)),
    message: text.slice(split + 2),
  };
}

/** `path → "mode sha"` of every file in a tree, recursively. */
export function readTree(gitDir: string, sha: string, prefix = '', into = new Map<string, string>()): Map<string, string> {
  const { body } = readObject(gitDir, sha);
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    const nul = body.indexOf(0, space);
    const mode = body.toString('latin1', at, space);
    const name = body.toString('utf8', space + 1, nul);
    const child = body.toString('hex', nul + 1, nul + 21);
    if (mode === '40000') readTree(gitDir, child, `${prefix}${name}/`, into);
    else into.set(`${prefix}${name}`, `${mode} ${child}`);
    at = nul + 21;
  }
  return into;
}

/** The blob sha git would give the work-tree file (no filters), or undefined when it does not exist. */
export function hashFile(top: string, path: string): string | undefined {
  const file = join(top, path);
  if (!lstatSync(file, { throwIfNoEntry: false })?.isFile()) return undefined;
  const content = readFileSync(file);
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}
