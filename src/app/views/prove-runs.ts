/**
 * Merge-back that cannot lose work (docs/runs.md, "Commits, worktrees and
 * merging back"): for every run of the repository, each step its journal
 * records as completed still has its evidence files in the work tree, by
 * content (engine/run-proof.ts). `check` reports what a merge dropped; the
 * overviews (`status`, `runs`) may call it too.
 *
 * Cost: a `readdir` of `<docs>/_runs/`, each run's whole journal read once
 * (as `check` reads its own), and each recorded evidence file read and hashed
 * once; no git. A run with 10 steps of 2 files each: some 20 small reads.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { judgeProof, runRecord, type RunProof } from '../../engine/run-proof.js';
import { blobId } from '../../hash.js';
import { readJournal } from '../../io/journal.js';
import { displayPath, openRepo, type Repo, type RepoOptions } from '../../io/repo.js';
import { listRuns } from '../../io/run.js';

export type { RunProof };

/** The proof for every run of the repository `options` names (the default run first), whichever run the options name. */
export function proveRuns(options: RepoOptions): RunProof[] {
  const repo = openRepo(options);
  return listRuns(repo.repoDocs).map((run) => proveRun(openRepo({ ...options, run })));
}

/** The proof for one run: its journal folded, each recorded file's bytes now hashed as git hashes a blob. */
export function proveRun(repo: Repo): RunProof {
  const { entries } = existsSync(repo.journalFile) ? readJournal(repo.journalFile, displayPath(repo.journalFile, repo.root)) : { entries: [] };
  const hashed = new Map<string, Buffer | null>();
  const bytesOf = (path: string) => {
    if (!hashed.has(path)) hashed.set(path, readOrNull(join(repo.root, path)));
    return hashed.get(path)!;
  };
  return judgeProof(repo.run, runRecord(entries), (path, format) => {
    if (format === undefined) return existsSync(join(repo.root, path)) ? path : undefined;
    const bytes = bytesOf(path);
    return bytes === null ? undefined : blobId(bytes, format);
  });
}

function readOrNull(file: string): Buffer | null {
  try {
    return readFileSync(file);
  } catch {
    return null;
  }
}
