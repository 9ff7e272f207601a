/**
 * A skill's folder as a run pins it: one short hash of every file in it, by
 * its path in the folder and its content (docs/state-and-journal.md, "Pinned
 * runs"). A SKILL.md, a template, any file beside them changed, added or
 * removed changes the hash. Bounded (`SKILL_FOLDER_MAX_FILES`,
 * `SKILL_FOLDER_MAX_DEPTH`, each file `SKILL_MAX_BYTES`); a link is hashed by
 * where it points, never followed; a file that cannot be read is hashed by
 * why. The folder missing hashes as `none`.
 */
import { lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { shortHash } from '../formats/skill-pins.js';
import { SKILL_FOLDER_MAX_DEPTH, SKILL_FOLDER_MAX_FILES, SKILL_MAX_BYTES } from '../limits.js';
import { readBounded } from './read-bounded.js';

export function skillFolderHash(dir: string): string {
  const entries: string[] = [];
  const walk = (rel: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(join(dir, rel)).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (entries.length >= SKILL_FOLDER_MAX_FILES) return;
      const path = rel ? `${rel}/${name}` : name;
      const full = join(dir, path);
      const stat = lstatSync(full, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isDirectory()) {
        if (depth < SKILL_FOLDER_MAX_DEPTH) walk(path, depth + 1);
      } else if (stat.isSymbolicLink()) entries.push(`${path}\0link:${readlinkSync(full)}`);
      else {
        const read = readBounded(full, path, 'skill file', SKILL_MAX_BYTES);
        entries.push(`${path}\0${'text' in read ? shortHash(read.text) : `unread:${read.problem.message}`}`);
      }
    }
  };
  if (!lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) return 'none';
  walk('', 1);
  return shortHash(entries.join('\n'));
}
