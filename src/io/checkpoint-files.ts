/**
 * The checkpoint files, `_docs/_autopilot/checkpoints/<id>.json`: listed,
 * read and named here; written and pruned only by the one write path
 * (`app/transaction/commit.ts`). The format is `formats/checkpoint.ts`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCheckpointId } from '../engine/checkpoint-id.js';
import { InputError } from '../errors.js';
import { parseCheckpoint, type Checkpoint } from '../formats/checkpoint.js';
import type { Repo } from './repo.js';
import { firstEventAt } from './journal.js';

export const checkpointsDir = (repo: Repo) => join(repo.autopilotDir, 'checkpoints');
export const checkpointFile = (repo: Repo, id: string) => join(checkpointsDir(repo), `${id}.json`);
/** Where pruned checkpoints go, compressed: `checkpoints/archive/<id>.json.gz` (listed by `checkpoints --all`, restorable). */
export const archiveDir = (repo: Repo) => join(checkpointsDir(repo), 'archive');
export const archivedFile = (repo: Repo, id: string) => join(archiveDir(repo), `${id}.json.gz`);

/** The checkpoint ids of the files in `folder` named `<id><extension>`, newest first; other files are left out. */
function idsIn(folder: string, extension: string): string[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith(extension))
    .map((n) => n.slice(0, -extension.length))
    .filter((id) => parseCheckpointId(id) !== undefined)
    .sort()
    .reverse();
}

/** The ids of the archived checkpoints, newest first. */
export const archivedIds = (repo: Repo): string[] => idsIn(archiveDir(repo), '.json.gz');

/** The ids of the checkpoints on disk, newest first; files that are not checkpoints are left out. */
export const checkpointIds = (repo: Repo): string[] => idsIn(checkpointsDir(repo), '.json');

/** When the run last had a checkpoint: the newest one's time (from its id: one listing), else the run's first event. */
export function lastCheckpointAt(repo: Repo): Date | undefined {
  const newest = checkpointIds(repo)[0];
  return newest === undefined ? firstEventAt(repo.journalFile) : parseCheckpointId(newest)?.at;
}

export function readCheckpoint(repo: Repo, id: string): Checkpoint {
  if (!parseCheckpointId(id)) {
    throw new InputError({
      message: `"${id.slice(0, 80)}" is not a checkpoint id`,
      expected: 'an id from `autopilot checkpoints`, e.g. 2026-11-26T010203.000Z-boundary',
      received: id.slice(0, 80),
    });
  }
  let file = checkpointFile(repo, id);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // An archived one is restorable as well.
    try {
      file = archivedFile(repo, id);
      text = process.getBuiltinModule('node:zlib').gunzipSync(readFileSync(file)).toString('utf8');
    } catch {
      throw new InputError({ message: `no checkpoint ${id}`, expected: 'an id from `autopilot checkpoints --all`', received: id });
    }
  }
  const parsed = parseCheckpoint(text, file);
  if ('problem' in parsed) throw new InputError(parsed.problem);
  return parsed.checkpoint;
}
