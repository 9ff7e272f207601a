/**
 * Progress commits (`--commit`, or `commit: true` in `.autopilot/config.yml`;
 * docs/git.md): when a step completes, is skipped, fails for good, a decision
 * is answered or a boundary is reached, the command commits what the step did
 * — what changed in the work tree since the step started (`commit: true`),
 * or only the state and the step's evidence (`commit: evidence`) — with the
 * pointer and the journal, and nothing the person had changed or staged
 * before the step.
 *
 * The commit is part of the command: the journal records it as owed
 * (`progress_commit_owed`, in the same batch as the step's result), the
 * commit is made, and its making is journaled (`progress_commit_made`). A
 * kill or a git failure between the two leaves it owed; the next command
 * that writes settles it before doing anything else — finding it by its
 * `Autopilot-Event` trailer when it was made after all, so it is made once.
 */
import { allMatches, evidenceFor } from '../engine/evidence.js';
import type { Transition } from '../engine/transitions.js';
import { InputError } from '../errors.js';
import type { Flow } from '../flow/model.js';
import { entry, type JournalEntry, type KnownEntry, type StampedEntry } from '../formats/journal-line.js';
import type { CommitMode } from '../formats/settings.js';
import type { GitHandle } from '../git/repository.js';
import { TEMP_MARK } from '../io/atomic-write.js';
import { displayPath, type Repo } from '../io/repo.js';
import { gitFallbackOff } from './git-source.js';
import type { Loaded } from './load-state.js';

export type OwedCommit = Extract<KnownEntry, { event: 'progress_commit_owed' }>;

/** Opens git for progress commits and refuses, before anything is written, where one cannot be made (exit 2). Cleans what a killed commit left. */
export async function openForCommits(repo: Repo): Promise<GitHandle> {
  const handle = await openGitOr(repo, (reason) => {
    throw new InputError({
      message: `progress commits need git: ${reason}`,
      expected: 'a git repository with `git` on PATH (or leave out --commit)',
      received: reason,
    });
  });
  const { gitState } = await import('../git/repository.js');
  const state = await gitState(handle);
  const why = state.operation ? `a ${state.operation} is in progress` : state.detached ? 'HEAD is detached' : undefined;
  if (why) {
    throw new InputError(
      {
        message: `no progress commit now: ${why}; nothing was written`,
        expected: 'a branch checked out, with no merge, rebase or cherry-pick under way',
        received: why,
      },
      'Finish or abort the git operation (or check out a branch), then run the command again — or leave out --commit.',
    );
  }
  await repairAfterKill(handle);
  return handle;
}

async function openGitOr(repo: Repo, off: (reason: string) => never): Promise<GitHandle> {
  const reason = gitFallbackOff(repo);
  if (reason) off(reason);
  const { openGit } = await import('../git/repository.js');
  const opened = await openGit(repo.root);
  if (!opened.handle) off(opened.reason);
  return opened.handle;
}

/** What a killed progress commit can leave: a temporary index in `.git/`, and (never by autopilot's own order, but checked) an index behind HEAD. */
async function repairAfterKill(handle: GitHandle): Promise<void> {
  const { cleanLeftovers, repairIndex } = await import('../git/progress-commit.js');
  await cleanLeftovers(handle);
  await repairIndex(handle);
}

/** The entry of a command's result worth a commit, or undefined when the command changed nothing worth one. */
function worthACommit(entries: readonly JournalEntry[]): JournalEntry | undefined {
  const kinds = ['step_completed', 'step_skipped', 'decision_answered', 'boundary_answered', 'boundary_reached'];
  return entries.find((e) => kinds.includes(e.event) || (e.event === 'step_failed' && e.status === 'failed'));
}

/**
 * The commit a step command owes, as the journal entry that records it (the
 * last of the command's batch), or undefined when the command changed
 * nothing worth a commit. `tree`: the work tree when the step started.
 */
export function owedCommit(loaded: Loaded, flow: Flow, transition: Transition, mode: CommitMode, tree: string | undefined): JournalEntry | undefined {
  const about = worthACommit(transition.entries);
  if (!about) return undefined;
  const { repo } = loaded;
  // An answer moves the run on: the commit names where it resumes; a step's own result names that step.
  const answered = about.event === 'decision_answered' || about.event === 'boundary_answered';
  const at = answered
    ? transition.position
    : { ...transition.position, step: about.step, name: about.name, status: about.status as typeof transition.position.status, cycle: about.cycle };
  const evidence =
    typeof about.step === 'number' && about.cycle === loaded.evidence.cycle
      ? allMatches(evidenceFor(loaded.evidence, about.step)).map((m) => `${repo.docsName}/${m}`)
      : [];
  const state = [repo.pointerFile, repo.journalFile].map((f) => displayPath(f, repo.root));
  return entry('progress_commit_owed', at, {
    files: [...state, ...evidence],
    steps: flow.steps.length,
    ...(mode === 'work' && tree ? { tree } : {}),
  });
}

/**
 * The owed commit the journal ends with, if it ends with one: the newest
 * command's batch closes with it, and no `progress_commit_made` (a line of its
 * own, after it) settles it yet.
 */
export function owedOnRecord(head: { record?: { entry?: StampedEntry }; settled?: number }): OwedCommit | undefined {
  const last = head.record?.entry;
  return last?.event === 'progress_commit_owed' && head.settled !== last.seq ? last : undefined;
}

/**
 * Makes an owed commit, once: found by its trailer when a killed command made
 * it after all. Returns the details of the `progress_commit_made` entry that
 * settles it. Git gone since (not a repository any more, no `git`): dropped,
 * said. Git refusing (a hook, a lock, a failing signature): the error, with
 * git's words, and the commit stays owed.
 */
export async function makeOwedCommit(
  repo: Repo,
  owed: OwedCommit,
  handle?: GitHandle,
): Promise<{ owed: number; sha?: string; found?: true; dropped?: string }> {
  let git = handle;
  if (!git) {
    let dropped: string | undefined;
    try {
      git = await openForCommits(repo);
    } catch (error) {
      const off = gitFallbackOff(repo);
      if (off) dropped = off;
      else throw error;
    }
    if (!git) return { owed: owed.seq, dropped: dropped! };
  }
  const { progressMessage } = await import('../git/progress-message.js');
  const { findProgressCommit } = await import('../git/history.js');
  const { progressCommit, changedSince } = await import('../git/progress-commit.js');
  const status = owed.status as Parameters<typeof progressMessage>[0]['status'];
  const message = progressMessage({
    flow: owed.flow,
    step: owed.step,
    steps: owed.steps ?? 0,
    name: owed.name,
    status,
    cycle: owed.cycle,
    session: owed.session,
    event: owed.seq,
  });
  const found = await findProgressCommit(git, message.trailers);
  if (found) return { owed: owed.seq, sha: found, found: true };
  // autopilot's machine-local files (the lease, the lock, caches, checkpoints, temporaries) are never part of a commit, ignored or not.
  const local = `${displayPath(repo.autopilotDir, repo.root)}/`;
  const journal = displayPath(repo.journalFile, repo.root);
  const ours = (path: string) => (path.startsWith(local) && path !== journal) || path.includes(TEMP_MARK);
  const changed = typeof owed.tree === 'string' ? (await changedSince(git, owed.tree)).filter((c) => !ours(c.path)) : [];
  const sha = await progressCommit(git, { ...message, files: owed.files ?? [], changed });
  return { owed: owed.seq, ...(sha ? { sha } : {}) };
}

/** The work tree now, for the step that starts: what its commit will be measured against. */
export async function startTree(handle: GitHandle): Promise<string> {
  const { snapshotWorkTree } = await import('../git/progress-commit.js');
  return snapshotWorkTree(handle);
}
