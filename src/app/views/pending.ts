/** The question that waits for a person in a run, read from its state and journal: `status` and `runs` show it. Reads, never writes. */
import { forkDecision } from '../../engine/fork.js';
import { pendingQuestion, type PendingQuestion } from '../../engine/pending.js';
import { latestAbout } from '../../io/journal-head.js';
import type { Repo } from '../../io/repo.js';
import type { Loaded } from '../transaction/load-state.js';

/** The question a person answers, shown by `status` and `runs` so nobody runs `next` (which drives) to read it; a failure with its last reason. */
export function pendingOf(repo: Repo, loaded: Loaded): PendingQuestion | undefined {
  const position = loaded.reconciled.position;
  const failed =
    position.status === 'failed' && typeof position.step === 'number'
      ? latestAbout(repo.journalFile, { flow: loaded.flow.id, cycle: position.cycle, step: position.step }, new Set(['step_failed'] as const))
      : undefined;
  const fork = loaded.fork?.verdict.kind === 'disagree' ? forkDecision(loaded.fork.verdict) : undefined;
  return pendingQuestion(loaded.flow, position, loaded.boundary, fork, typeof failed?.reason === 'string' ? failed.reason : undefined);
}
