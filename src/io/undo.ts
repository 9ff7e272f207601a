/**
 * What one commit has changed so far, so that a write that fails later (a
 * full disk) takes it all back and the command did nothing. Taking it back
 * needs no free space: the journal is cut back to its length before the
 * batch (or removed, when the batch made it), a file the commit created is
 * removed, a folder it made is removed, and a file it replaced or removed is
 * put back from a hard link to the old version, kept beside it before the
 * change (named like a temporary file, so a kill that leaves one has it
 * removed by the next write of that file). Where hard links cannot be made,
 * the old version is kept in memory and written back, which a full disk may
 * refuse: that is said, never hidden.
 */
import { linkSync, lstatSync, mkdirSync, readFileSync, renameSync, rmdirSync, statSync, truncateSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { TEMP_MARK, writeFileAtomically } from './atomic-write.js';
import { randomHex } from './random.js';

interface Step {
  /** The path this step puts back. */
  path: string;
  undo: () => void;
  /** Once the commit is whole: what the step kept is let go. */
  done?: () => void;
}

/** unlink, not rmSync: rmSync loads Node's recursive remover on its first call, which every renewal of the lease paid. */
function removeIfThere(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

export class Undo {
  private readonly steps: Step[] = [];

  /** Before `file` is created, replaced or removed: how to put it back as it is now. */
  keep(file: string): void {
    if (!lstatSync(file, { throwIfNoEntry: false })) {
      this.steps.push({ path: file, undo: () => removeIfThere(file) });
      return;
    }
    const kept = join(dirname(file), `${basename(file)}${TEMP_MARK}kept-${process.pid}-${randomHex(4)}`);
    try {
      linkSync(file, kept);
      const back = () => {
        // Still the same file (its write failed before the rename): rename() of two links to one file does nothing, so the link is let go.
        const now = statSync(file, { throwIfNoEntry: false });
        const old = statSync(kept);
        if (now && now.ino === old.ino && now.dev === old.dev) unlinkSync(kept);
        else renameSync(kept, file);
      };
      this.steps.push({ path: file, undo: back, done: () => removeIfThere(kept) });
    } catch {
      // No hard links here (some network and FUSE file systems), or no room for one more name: the old text, in memory.
      const text = readFileSync(file, 'utf8');
      this.steps.push({ path: file, undo: () => writeFileAtomically(file, text) });
    }
  }

  /** Before the journal is appended to: its length now, or that it does not exist yet. */
  journal(file: string): void {
    const size = statSync(file, { throwIfNoEntry: false })?.size;
    this.steps.push({ path: file, undo: () => (size === undefined ? removeIfThere(file) : truncateSync(file, size)) });
  }

  /** Makes `folder` (and what it lacks above it); undone, the folders it made are removed again, up to one that holds something else by then. */
  mkdir(folder: string): void {
    const first = mkdirSync(folder, { recursive: true });
    if (first === undefined) return;
    this.steps.push({
      path: first,
      undo: () => {
        for (let dir = folder; dir.length >= first.length; dir = dirname(dir)) {
          try {
            rmdirSync(dir);
          } catch {
            return;
          }
        }
      },
    });
  }

  /** Puts back everything, newest first; returns the paths that could not be put back (each step is tried). */
  undo(): string[] {
    const failed: string[] = [];
    for (const step of this.steps.splice(0).reverse()) {
      try {
        step.undo();
      } catch {
        failed.push(step.path);
      }
    }
    return failed;
  }

  /** The commit is whole: the old versions kept are let go. */
  done(): void {
    for (const step of this.steps.splice(0)) {
      try {
        step.done?.();
      } catch {
        // A kept link that cannot be removed is a leftover the next write of its file removes.
      }
    }
  }
}
