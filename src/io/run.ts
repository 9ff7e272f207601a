/**
 * Runs: several share a repository (CONTRACT rule 12, docs/runs.md). The
 * default run is the docs folder's own pointer and journal, exactly as a
 * repository with one run has always had them. A named run keeps the same
 * files in a folder of its own, `<docs>/_runs/<name>/`, which is that run's
 * docs folder: its pointer, journal, checkpoints and step files. No two runs
 * write the same autopilot file, and nothing else builds a run's folder.
 * A named run's lease lives in the repository's common git folder
 * (`runLeaseFile`), so every work tree of the repository sees the one lease.
 */
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_RUN, isRunName } from '../formats/run-name.js';
import { gitFolders } from './git-folders.js';

/** The folder of the docs folder that holds the named runs, one folder each. */
export const RUNS_FOLDER = '_runs';

/** A run's docs folder as given (relative to the root): the docs folder itself for the default run. */
export function runDocsName(docsName: string, run: string): string {
  return run === DEFAULT_RUN ? docsName : `${docsName}/${RUNS_FOLDER}/${run}`;
}

/** A run's docs folder (absolute) in the repository's docs folder `docs`: `docs` itself for the default run. */
export function runDocsFolder(docs: string, run: string): string {
  return run === DEFAULT_RUN ? docs : join(docs, RUNS_FOLDER, run);
}

/** Whether a docs folder holds a run: its pointer or its journal. */
export function holdsRun(docs: string): boolean {
  return existsSync(join(docs, '_autopilot_state.md')) || existsSync(join(docs, '_autopilot', 'journal.jsonl'));
}

/**
 * Every run of the docs folder `docs` (absolute), by name, the default run
 * first where it exists, then the named ones in name order. A folder of
 * `_runs/` counts when its name is a run name and it holds a run.
 */
export function listRuns(docs: string): string[] {
  const runs = holdsRun(docs) ? [DEFAULT_RUN] : [];
  let entries: string[];
  try {
    entries = readdirSync(join(docs, RUNS_FOLDER));
  } catch {
    return runs;
  }
  for (const name of entries.sort()) if (isRunName(name) && holdsRun(runDocsFolder(docs, name))) runs.push(name);
  return runs;
}

/**
 * The folder a named run keeps in the repository's common git folder,
 * `<git common dir>/autopilot/runs/<name>/` (its real path): shared by every
 * linked work tree of the repository. Undefined for the default run and
 * outside git, whose lease stays in the run's `_autopilot/` folder. Read from
 * the `.git` files, no process started.
 */
export function sharedRunFolder(root: string, run: string): string | undefined {
  if (run === DEFAULT_RUN) return undefined;
  const folders = gitFolders(root);
  if (!folders) return undefined;
  let common = folders.common;
  try {
    common = realpathSync.native(common);
  } catch {
    return undefined;
  }
  return join(common, 'autopilot', 'runs', run);
}

/** A named run's lease in the common git folder (what `uninstall` removes with the run); undefined where the lease is the run's own `_autopilot/lease.json`. */
export function runLeaseFile(root: string, run: string): string | undefined {
  const shared = sharedRunFolder(root, run);
  return shared === undefined ? undefined : join(shared, 'lease.json');
}

/**
 * Whether a path (relative to the root, `/`-separated) belongs to another
 * run than `run` (docs/runs.md, "Commits, worktrees and merging back"): for
 * the default run, anything in `<docs>/_runs/`; for a named run, anything in
 * the repository's docs folder outside its own folder (the default run's step
 * files and every other run's). A run's progress commit never holds such a
 * path; code outside the docs folder belongs to whichever run's step changed it.
 */
export function ofAnotherRun(at: { run: string; docsName: string; repoDocsName: string }, path: string): boolean {
  const repoDocs = `${trimSlashes(at.repoDocsName)}/`;
  if (at.run === DEFAULT_RUN) return path.startsWith(`${repoDocs}${RUNS_FOLDER}/`);
  return path.startsWith(repoDocs) && !path.startsWith(`${trimSlashes(at.docsName)}/`);
}

const trimSlashes = (name: string) => name.replace(/^\.\/+/, '').replace(/\/+$/, '');
