/**
 * Progress commits (opt-in: `--commit`, or `commit: true` in
 * `.autopilot/config.yml`): when a step completes, is skipped, fails for
 * good, a decision is answered or a boundary is reached, the pointer, the
 * journal and that step's evidence files are committed — nothing else the
 * user staged or changed — with a message a reviewer reads and trailers the
 * engine can recover the position from. Never pushed.
 */
import { allMatches, evidenceFor } from '../engine/evidence.js';
import type { StampedEntry } from '../formats/journal-line.js';
import type { Transition } from '../engine/transitions.js';
import { InputError } from '../errors.js';
import type { Flow } from '../flow/model.js';
import type { GitHandle } from '../git/repository.js';
import type { Repo } from '../io/repo.js';
import type { Written } from './commit.js';
import { gitFallbackOff } from './git-source.js';
import type { Loaded } from './load-state.js';

/** Opens git and refuses, before anything is written, where a commit cannot be made (exit 2). */
export async function prepareProgressCommit(repo: Repo): Promise<GitHandle> {
  const off = gitFallbackOff(repo);
  const { openGit, gitState } = await import('../git/repository.js');
  const opened = off ? { handle: undefined, reason: off } : await openGit(repo.root);
  if (!opened.handle) {
    throw new InputError({
      message: `progress commits need git: ${opened.reason}`,
      expected: 'a git repository with `git` on PATH (or leave out --commit)',
      received: opened.reason,
    });
  }
  const state = await gitState(opened.handle);
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
  return opened.handle;
}

/** The entry a progress commit is about, or undefined when the command changed nothing worth one. */
function worthACommit(entries: StampedEntry[]): StampedEntry | undefined {
  const kinds = ['step_completed', 'step_skipped', 'decision_answered', 'boundary_answered', 'boundary_reached'];
  return entries.find((e) => kinds.includes(e.event) || (e.event === 'step_failed' && e.status === 'failed'));
}

export async function makeProgressCommit(
  handle: GitHandle,
  repo: Repo,
  loaded: Loaded,
  flow: Flow,
  transition: Transition,
  written: Written,
  session: string,
): Promise<string | undefined> {
  const about = worthACommit(written.entries);
  if (!about) return undefined;
  const { progressMessage } = await import('../git/progress-message.js');
  const { progressCommit } = await import('../git/progress-commit.js');
  // An answer moves the run on: the trailers then name where it resumes; a step's own result names that step.
  const answered = about.event === 'decision_answered' || about.event === 'boundary_answered';
  const at = answered
    ? transition.position
    : { step: about.step, name: about.name, status: about.status as typeof transition.position.status, cycle: about.cycle };
  const evidence =
    typeof about.step === 'number' && about.cycle === loaded.evidence.cycle
      ? allMatches(evidenceFor(loaded.evidence, about.step)).map((m) => `${repo.docsName}/${m}`)
      : [];
  const message = progressMessage({ flow: flow.id, step: at.step, steps: flow.steps.length, name: at.name, status: at.status, cycle: at.cycle, session });
  return progressCommit(handle, { ...message, files: [...written.files.filter((f) => !f.includes('/checkpoints/')), ...evidence] });
}
