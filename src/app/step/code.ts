/**
 * Stage `code` of the step pipeline, between the decision and the attempt: a
 * `done` the decision would record as a batch done (`batch_completed`, not
 * forced) asks what changed in the work tree since the batch began
 * (engine/batch-code.ts: a batch changes the code), and is decided again
 * with it (`decideStep`, pure). Asked only then, so a `done` refused for its
 * report starts no git. Where it cannot look (no git, no snapshot of the
 * batch's start, the snapshot pruned), it says why instead.
 */
import { join } from 'node:path';
import { evidenceFor, type Evidence } from '../../engine/evidence.js';
import { isCode, touchesOf, type TaskTouches } from '../../engine/batch-code.js';
import { decideStep } from '../../engine/step-plan.js';
import type { BatchFacts } from '../../engine/task-batches.js';
import type { Transition } from '../../engine/transitions.js';
import type { CommitSetting } from '../../formats/settings.js';
import { readBounded } from '../../io/read-bounded.js';
import { displayPath, type Repo } from '../../io/repo.js';
import { OUTPUT_FILE_MAX_BYTES } from '../../limits.js';
import { firstCommitMissing, gitFallbackOff } from '../git/source.js';
import type { Loaded } from '../transaction/load-state.js';
import type { CommitGitOpener } from '../git/progress-commit.js';
import { reached, type CodeSeen, type Stage } from './run.js';

/** Stage `code`: the code the batch changed, and the decision made again with it; the run as it was where no batch is done. */
export const code: Stage = {
  name: 'code',
  run: async (run) => {
    const { tx, loaded, input, decided } = reached(run, 'code', 'loaded', 'input', 'decided');
    const seen = await batchCode(loaded, input.state.evidence, decided, tx.prepared.commits, tx.settings.commit);
    if (!seen) return run;
    const refined = { ...input, state: { ...input.state, evidence: withCode(input.state.evidence, seen) } };
    return { ...run, code: seen, input: refined, decided: decideStep(refined) };
  },
};

/** What the work tree shows for the batch the decision would record done; undefined when it records none (or a person forced it). */
async function batchCode(
  loaded: Loaded,
  evidence: Evidence,
  decided: Transition,
  opener: CommitGitOpener | undefined,
  setting: CommitSetting,
): Promise<CodeSeen | undefined> {
  const completed = decided.entries.find((e) => e.event === 'batch_completed');
  if (completed?.event !== 'batch_completed' || completed.forced || typeof completed.step !== 'number') return undefined;
  const facts = evidenceFor(evidence, completed.step).batches;
  const report = facts?.report;
  if (!facts || !report || report.batch !== completed.batch || report.code) return undefined;
  const { repo } = loaded;
  const base = { docs: repo.docsName, touches: touchesOfBatch(repo, facts, completed.batch) };
  const unseen = (why: string): CodeSeen => ({ step: completed.step as number, facts: { ...base, seen: false, why } });
  if (opener?.mode === 'evidence') return unseen('with `commit: evidence` no snapshot of the work tree is taken as a batch begins');
  const commits = await opener?.open();
  if (!commits) return unseen(noGit(repo, setting));
  if (commits.mode !== 'work') return unseen('with `commit: evidence` no snapshot of the work tree is taken as a batch begins');
  if (!report.tree) return unseen(`no snapshot of the work tree was taken as batch ${completed.batch} began`);
  const { changedSince, SnapshotGone } = await import('../../git/progress-commit.js');
  try {
    const changes = await changedSince(commits.handle, report.tree);
    const changed = changes.map((c) => c.path).filter((p) => isCode(p, repo.docsName));
    return { step: completed.step, facts: { ...base, seen: true, changed } };
  } catch (error) {
    if (!(error instanceof SnapshotGone)) throw error;
    return unseen(`the snapshot of the work tree taken as batch ${completed.batch} began is gone from git (pruned by \`git gc\`)`);
  }
}

/** The evidence with the code the shell saw on the batch's report facts. */
function withCode(evidence: Evidence, seen: CodeSeen): Evidence {
  const steps = evidence.steps.map((s) =>
    s.step === seen.step && s.batches?.report ? { ...s, batches: { ...s.batches, report: { ...s.batches.report, code: seen.facts } } } : s,
  );
  return { ...evidence, steps };
}

/** Why no git can look at the work tree here. */
function noGit(repo: Repo, setting: CommitSetting): string {
  const off = gitFallbackOff(repo);
  if (off) return off;
  if (setting === false) return 'progress commits are off (`commit: false`), so no snapshot of the work tree is taken as a batch begins';
  if (firstCommitMissing(repo)) return 'the branch has no first commit yet, so no snapshot of the work tree is taken as a batch begins';
  return 'git could not be opened here';
}

/** Each task of the batch with the paths its task file names under Touches (a task with no task file, or none named, has none). */
function touchesOfBatch(repo: Repo, facts: BatchFacts, batch: number): TaskTouches[] {
  const ids = facts.plan[batch - 1] ?? [];
  return ids.map((id) => {
    const file = facts.tasks.find((t) => t.id === id)?.file;
    if (!file) return { task: id, paths: [] };
    const path = join(repo.docs, file);
    const read = readBounded(path, displayPath(path, repo.root), 'task file', OUTPUT_FILE_MAX_BYTES);
    return { task: id, paths: 'text' in read ? touchesOf(read.text) : [] };
  });
}
