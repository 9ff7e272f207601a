/**
 * The git folders of the repository that holds a folder, read from its files
 * with no process started: the work tree's own (its HEAD) and the common one
 * (its refs, and what every linked work tree of the repository shares: a
 * linked work tree's `.git` file names its own folder, whose `commondir`
 * names the common one). Undefined outside git.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';

export interface GitFolders {
  own: string;
  common: string;
}

/** The git folders of the repository `root` lies in (walking up to its `.git`); undefined outside git or where `.git` names no folder. */
export function gitFolders(root: string): GitFolders | undefined {
  let dir = root;
  while (!existsSync(join(dir, '.git'))) {
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
  let own = join(dir, '.git');
  if (!statSync(own).isDirectory()) {
    const named = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(own, 'utf8'))?.[1];
    if (!named) return undefined;
    own = isAbsolute(named) ? named : join(dir, named);
  }
  const commonFile = join(own, 'commondir');
  return { own, common: existsSync(commonFile) ? join(own, readFileSync(commonFile, 'utf8').trim()) : own };
}
