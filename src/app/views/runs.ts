/**
 * The overview of every run in the repository (CONTRACT rule 12,
 * docs/runs.md "Seeing every run"): for each, one line of where it stands,
 * what it waits for with the exact command that answers it (`--run NAME`
 * said for a named run), the branch its last progress commit is on and who
 * holds its lease. Read-only: no lock, no lease taken, nothing written. A run
 * whose files cannot be read is listed with its problem; it never stops the
 * listing. Git is asked once for every run's branch, and only by `runs`
 * (`status` lists the other runs without git).
 */
import { openRepo, type Repo } from '../../io/repo.js';
import { listRuns } from '../../io/run.js';
import { readBackwards } from '../../io/journal.js';
import { readLease } from '../../io/lease-file.js';
import { commandForRun } from '../../formats/run-name.js';
import type { RunLine } from './run-line.js';
import type { Context } from '../transaction/context.js';
import { loadRepoFlows } from '../transaction/flows.js';
import { readState } from '../transaction/read-state.js';
import { pendingOf } from './pending.js';
import { notedCommit } from '../git/progress-commit.js';
import { proveRun } from './prove-runs.js';

/** The repository's runs, every one, the default run first; `git`: ask git for each last commit's branch (`runs`; never `status`). */
export async function runLines(ctx: Pick<Context, 'repo'>, options: { git: boolean; repoDocs?: string } = { git: true }): Promise<RunLine[]> {
  const docs = options.repoDocs ?? openRepo({ ...ctx.repo, run: undefined }).repoDocs;
  const lines: RunLine[] = [];
  for (const run of listRuns(docs)) lines.push(await runLine(ctx, run));
  if (options.git) await addBranches(ctx, lines);
  return lines;
}

/** One run's line; its problem, where its files cannot be read. */
async function runLine(ctx: Pick<Context, 'repo'>, run: string): Promise<RunLine> {
  let repo: Repo | undefined;
  const line: RunLine = { run };
  try {
    repo = openRepo({ ...ctx.repo, run });
    const loaded = await readState(repo, await loadRepoFlows(repo, false));
    const { position } = loaded.reconciled;
    Object.assign(line, { flow: loaded.flow.id, step: position.step, name: position.name, status: position.status });
    const pending = pendingOf(repo, loaded);
    if (pending) line.waits = { kind: pending.kind, question: pending.question, command: commandForRun(pending.command, run) };
  } catch (error) {
    line.problem = (error instanceof Error ? error.message : String(error)).split('\n', 1)[0];
  }
  if (!repo) return line;
  // Merge-back that cannot lose work: a completed step whose files a merge dropped is shown where a person looks.
  const lost = proveRun(repo).lost.map((s) => ({ step: s.step, name: s.name, cycle: s.cycle, files: s.files.map((f) => f.path) }));
  if (lost.length > 0) line.lost = lost;
  const sha = lastCommit(repo);
  if (sha) line.commit = { sha };
  const lease = readLease(repo.leaseFile);
  if ('unreadable' in lease) line.lease = { problem: `the lease file cannot be read (${lease.unreadable})` };
  else if (lease.lease) line.lease = { session: lease.lease.session, host: lease.lease.host, heartbeat: lease.lease.heartbeat };
  return line;
}

/**
 * The sha of the run's last progress commit: this machine's note of the last
 * one it made or found (`app/git/progress-commit.ts`), else the journal's last
 * `progress_commit_made` that names one (a commit made after it was owed).
 */
function lastCommit(repo: Repo): string | undefined {
  const noted = notedCommit(repo)?.sha;
  if (noted) return noted;
  let sha: string | undefined;
  try {
    readBackwards(repo.journalFile, (e) => {
      if (e.event === 'progress_commit_made' && typeof e.sha === 'string') sha = e.sha;
      return sha !== undefined;
    });
  } catch {
    return undefined;
  }
  return sha;
}

/**
 * Each commit's branch, asked of git once for all runs (`git name-rev`: the
 * nearest local branch whose history holds it). No git, or git refusing: no
 * branch, and the listing goes on.
 */
async function addBranches(ctx: Pick<Context, 'repo'>, lines: RunLine[]): Promise<void> {
  const shas = [...new Set(lines.flatMap((l) => (l.commit ? [l.commit.sha] : [])))];
  if (shas.length === 0) return;
  const { branchesOf } = await import('../../git/branches.js');
  const branches = await branchesOf(openRepo({ ...ctx.repo, run: undefined }).root, shas);
  for (const line of lines) if (line.commit && branches.get(line.commit.sha)) line.commit.branch = branches.get(line.commit.sha);
}
