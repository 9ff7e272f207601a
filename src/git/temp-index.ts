/**
 * autopilot's temporary indexes: files in the git folder named
 * `autopilot-index-<pid>-<random>`, each used by one command (a progress
 * commit, a snapshot of the work tree) and removed when it ends. A killed
 * process cannot remove its own; `cleanLeftovers` removes those of processes
 * that are gone.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from '../processes.js';
import type { GitHandle } from './run.js';

const NAME = /^autopilot-index-(\d+)-[0-9a-f]{8}(\.lock)?$/;

/** A leftover this old is removed even if a process of its pid is alive (the pid was reused). */
const MAX_AGE_MS = 24 * 60 * 60 * 1000;

/**
 * Runs `work` with a fresh temporary index (its `GIT_INDEX_FILE` environment
 * and its path), and removes the index and its lock afterwards, whether
 * `work` succeeded or threw.
 */
export async function withTempIndex<T>(handle: GitHandle, work: (inTempIndex: { env: { GIT_INDEX_FILE: string } }, path: string) => Promise<T>): Promise<T> {
  const path = join(handle.gitDir, `autopilot-index-${process.pid}-${randomUUID().slice(0, 8)}`);
  try {
    return await work({ env: { GIT_INDEX_FILE: path } }, path);
  } finally {
    rmSync(path, { force: true });
    rmSync(`${path}.lock`, { force: true });
  }
}

export interface CleanLeftoversOptions {
  /** Whether a pid is alive; `process.kill(pid, 0)` by default. */
  isAlive?: (pid: number) => boolean;
  /** The clock, for the age limit. */
  now?: number;
}

/**
 * Removes autopilot's temporary indexes (and their `.lock`) left in this work
 * tree's git folder by a process that is gone: a command killed half-way
 * through a progress commit or a snapshot. A file whose process still runs is
 * left alone (another command may be using it right now), unless it is more
 * than a day old: its pid was reused. Returns the names removed, relative to
 * the git folder. Never touches the user's `index` or `index.lock`, nor
 * anything else of git's.
 */
export async function cleanLeftovers(handle: GitHandle, options: CleanLeftoversOptions = {}): Promise<string[]> {
  const isAlive = options.isAlive ?? processAlive;
  const now = options.now ?? Date.now();
  let names: string[];
  try {
    names = readdirSync(handle.gitDir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names.sort()) {
    const match = NAME.exec(name);
    if (!match) continue;
    const file = join(handle.gitDir, name);
    const age = now - (statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? now);
    if (isAlive(Number(match[1])) && age < MAX_AGE_MS) continue;
    rmSync(file, { force: true });
    removed.push(name);
  }
  return removed;
}
