/** `status`: where the work stands, who drives, and any guard that is off. Never writes, never takes the lock. */
import { accessSync, constants, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { openRepo } from '../../io/repo.js';
import { conversationProcess } from '../../io/conversation.js';
import { owedSaid, stillOwed } from '../git/progress-commit.js';
import type { Context } from '../transaction/context.js';
import { readState } from '../transaction/read-state.js';
import { firstCommitMissing, gitFallbackOff } from '../git/source.js';
import { leaseStatus } from '../transaction/lease-view.js';
import type { Loaded } from '../transaction/load-state.js';
import { followThrough } from '../../engine/follow-through.js';
import { stepByNumber } from '../../formats/flow/model.js';
import { skillPosition } from '../transaction/skill-position.js';
import { skillDisagreement } from '../../engine/step-plan.js';
import { formatAge } from '../../engine/lease.js';
import { readSettings } from '../transaction/settings.js';
import { gatherBatches } from '../transaction/task-batches.js';
import { batchStatuses } from '../../engine/task-batches.js';
import { flowChangeNotice, loadRepoFlows } from '../transaction/flows.js';
import { buildView, type View } from './view.js';
import { displayPath, type Repo } from '../../io/repo.js';
import { lockInTheWay } from '../../io/lock-peek.js';
import { readAcCoverage } from './ac-coverage.js';
import { pendingOf } from './pending.js';
import type { RunLine } from './run-line.js';
import { listRuns } from '../../io/run.js';
import { namedRunsOnlyIn } from '../transaction/run-named.js';
import { skillChangeNotice } from '../transaction/skill-pins.js';

/**
 * Guards that cannot work in this repository, in words; empty when all is
 * well. Said by `status`, `check` and the SessionStart hook every time: a lock
 * left in the way (read, never taken), a folder or a journal step commands
 * cannot write.
 */
export function guardProblems(repo: Repo): string[] {
  const lock = lockInTheWay(repo.lockFile, repo.root);
  const problems: string[] = lock ? [lock] : [];
  // The lock, the lease and the journal live in the autopilot folder, or, before the first write, wherever it will be made.
  let folder = repo.autopilotDir;
  while (!existsSync(folder) && folder !== repo.root) folder = dirname(folder);
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

/** A step in progress whose last event is older than the threshold belongs to a session that looks stale. */
function staleStep(loaded: Loaded, now: Date, staleMs: number): string | undefined {
  const { position } = loaded.reconciled;
  const at = loaded.head.record?.at;
  if (position.status !== 'in_progress' || !at) return undefined;
  const age = now.getTime() - Date.parse(at);
  if (!(age > staleMs)) return undefined;
  return `step ${position.step} (${position.name}) has been in progress with no event for ${formatAge(age)}: the session working on it looks stale. \`autopilot next\` resumes it (from another session while its lease is held, a person takes over with --take-over)`;
}

export async function runStatus(ctx: Context, opened?: Repo): Promise<{ view: View; exit: number }> {
  const repo = opened ?? openRepo(ctx.repo);
  const flows = await loadRepoFlows(repo, false);
  const settings = await readSettings(repo);
  const loaded = await readState(repo, flows);
  const position = loaded.reconciled.position;
  const now = ctx.now();
  const step = typeof position.step === 'number' ? stepByNumber(loaded.flow, position.step) : undefined;
  const skill = step && position.status === 'in_progress' ? skillDisagreement(await skillPosition(repo, step, position.cycle), position.subStep) : undefined;
  const notices = [
    loaded.flowChange ? flowChangeNotice(loaded) : undefined,
    loaded.skills ? skillChangeNotice(loaded.skills) : undefined,
    settings.followThrough === false ? undefined : followThrough(loaded.pointer?.lastAction, position, now, settings.staleMs),
    staleStep(loaded, now, settings.staleMs),
    skill,
  ].filter((n): n is string => n !== undefined);
  const gitOff = gitFallbackOff(repo);
  // An owed commit the journal ends with: made, by what HEAD holds (this machine's note spares asking git); commits off: never made.
  const owed = settings.commit === false ? undefined : await stillOwed(repo, loaded.head);
  const commitsOff =
    settings.commit === false
      ? '`commit: false` in .autopilot/config.yml'
      : gitOff
        ? gitOff
        : firstCommitMissing(repo)
          ? 'the branch has no first commit yet: they start with it'
          : undefined;
  const pending = pendingOf(repo, loaded);
  const acceptance = readAcCoverage(repo, loaded.flow, position.cycle);
  // A step that walks its task index: its batches, as the run pinned them.
  const facts = step?.batches ? gatherBatches({ repo, flow: loaded.flow.id, step, position, report: false }) : undefined;
  const batches = facts ? batchStatuses(position, facts) : undefined;
  const view = buildView('status', loaded, position, undefined, {
    ...(notices.length > 0 ? { notices } : {}),
    pending,
    acceptance,
    batches,
    lease: leaseStatus(repo, { session: ctx.session, unnamed: ctx.sessionFrom === 'default' }, ctx.now(), settings.staleMs, () =>
      conversationProcess(ctx.role ?? 'cli'),
    ),
    guards: guardProblems(repo),
    gitOff,
    journalSeq: loaded.lastSeq,
    ...(owed ? { owedCommit: owed.seq, owed: owedSaid(owed) } : {}),
    commits: commitsOff ? { on: false, reason: commitsOff } : { on: true },
    runs: await otherRuns(ctx, repo),
  });
  return { view, exit: 0 };
}

/** Every run's line, where the repository holds a run besides the one shown: a `readdir` of `_runs/` only when it holds none (no git asked). */
async function otherRuns(ctx: Context, repo: Repo): Promise<RunLine[] | undefined> {
  const names = listRuns(repo.repoDocs);
  if (!names.some((name) => name !== repo.run)) return undefined;
  const { runLines } = await import('./runs.js');
  return runLines(ctx, { git: false, repoDocs: repo.repoDocs });
}

/** `status` as the command gives it: where no run is named and the repository holds named runs only, the overview of them; else the run's status. */
export async function statusOrOverview(ctx: Context): Promise<{ view: View; exit: number } | { overview: RunLine[]; exit: number }> {
  // The repository opened once, for the rule and for the status.
  const repo = openRepo(ctx.repo);
  if (!namedRunsOnlyIn(repo, ctx.repo.run !== undefined)) return runStatus(ctx, repo);
  const { runLines } = await import('./runs.js');
  return { overview: await runLines(ctx, { git: false }), exit: 0 };
}

/** Whether the repository has a run (a pointer or a journal): what a bare `autopilot` points to, `status` or `init`. False where the folder cannot be opened. */
export function hasRun(ctx: Pick<Context, 'repo'>): boolean {
  try {
    const repo = openRepo(ctx.repo);
    return existsSync(repo.pointerFile) || existsSync(repo.journalFile);
  } catch {
    return false;
  }
}
