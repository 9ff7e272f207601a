/** `status`: where the work stands, who drives, and any guard that is off. Never writes, never takes the lock. */
import { accessSync, constants, existsSync } from 'node:fs';
import { openRepo } from '../io/repo.js';
import type { Context } from './context.js';
import { leaseStatus } from './lease-view.js';
import { loadState } from './load-state.js';
import { readSettings } from './settings.js';
import { loadRepoFlows } from './step.js';
import { buildView, type View } from './view.js';
import { displayPath, type Repo } from '../io/repo.js';

/** Guards that cannot work in this repository, in words; empty when all is well. Said by `status` and `check` every time. */
export function guardProblems(repo: Repo): string[] {
  const problems: string[] = [];
  // The lock, the lease and the journal live in the autopilot folder, or, before the first write, wherever it will be made.
  let folder = repo.autopilotDir;
  while (!existsSync(folder) && folder !== repo.root) folder = folder.slice(0, folder.lastIndexOf('/')) || '/';
  try {
    accessSync(folder, constants.W_OK);
  } catch (error) {
    problems.push(
      `${displayPath(folder, repo.root)} is not writable (${(error as NodeJS.ErrnoException).code}): the lock and the lease cannot be taken, so step commands refuse to run`,
    );
  }
  if (existsSync(repo.journalFile)) {
    try {
      accessSync(repo.journalFile, constants.R_OK | constants.W_OK);
    } catch (error) {
      problems.push(
        `${displayPath(repo.journalFile, repo.root)} cannot be read and written (${(error as NodeJS.ErrnoException).code}): step commands refuse to run`,
      );
    }
  }
  return problems;
}

export async function runStatus(ctx: Context): Promise<{ view: View; exit: number }> {
  const repo = openRepo(ctx.repo);
  const flows = await loadRepoFlows(repo, false);
  const settings = await readSettings(repo);
  const loaded = loadState(repo, flows);
  const view = buildView('status', loaded, loaded.reconciled.position, undefined, {
    lease: leaseStatus(repo, ctx.session, ctx.now(), settings.staleMs),
    guards: guardProblems(repo),
    journalSeq: Math.max(loaded.head.lastSeq, loaded.pointer?.record?.seq ?? 0),
  });
  return { view, exit: 0 };
}
