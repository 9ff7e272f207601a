/**
 * The edge of the walk over work found on disk (issue 23, point 7;
 * `engine/reconcile.ts`, `walkFolder`): each step the walk would complete gets
 * the checks `done` gives it. Its skill's declared outputs are gathered and
 * judged here, as `done` gathers and judges them (`stepOutputs`); the pure
 * walk then stops at the first step whose files fail.
 */
import { judgeOutputs, type Evidence, type OutputsEvidence } from '../engine/evidence.js';
import { evidenceFor } from '../engine/evidence.js';
import type { Finding } from '../evidence/types.js';
import { stepByNumber, type Flow, type Step } from '../flow/model.js';
import { gatherOutputs } from '../io/gather-outputs.js';
import { attemptRecord, latestAbout } from '../io/journal-head.js';
import type { Repo } from '../io/repo.js';
import { foundKey, type JudgedSteps, type Loaded } from './load-state.js';
import { outputsForStep, skillOutputs, type DeclaredOutputs } from './skill-outputs.js';

/**
 * What the judges of `step`'s declared outputs read: their files and texts,
 * and what the journal says of the step's attempt (the files as it began —
 * only when `baseline` — and the commands it ran) and of a repeated round
 * (its drafts' hashes). Shared by `done` and the walk.
 */
export function stepOutputs(repo: Repo, flow: Flow, step: Step, evidence: Evidence, declared: DeclaredOutputs, baseline = true): OutputsEvidence {
  const cycle = evidence.cycle;
  const at = { flow: flow.id, cycle, step: step.number };
  const outputs = gatherOutputs(repo, step, cycle, declared);
  const attempt = attemptRecord(repo.journalFile, at);
  // Commands count only in an attempt the journal saw begin: a report found on disk with no attempt names no run of it.
  if (attempt.start) {
    const start = attempt.start;
    outputs.attempt = {
      ...(baseline && start.hashes ? { baseline: start.hashes } : {}),
      number: start.event === 'step_started' && typeof start.attempt === 'number' ? start.attempt : start.retry_count + 1,
      runs: attempt.runs.map((r) => ({
        command: typeof r.command === 'string' ? r.command : '',
        exitCode: r.exit_code === undefined ? null : r.exit_code,
        ...(r.totals ? { totals: r.totals } : {}),
        seq: r.seq,
      })),
    };
  }
  if (evidenceFor(evidence, step.number).roundBaseline) {
    const answered = latestAbout(repo.journalFile, at, new Set(['decision_answered'] as const));
    if (answered?.round_hashes) outputs.round = answered.round_hashes;
  }
  return outputs;
}

/**
 * The findings of `done`'s checks for each step the first, unjudged walk
 * completed (`loaded.reconciled.walk.found`); undefined when it completed
 * none. The `fresh` check does not apply to a step found on disk: no attempt
 * of it began, so there is nothing its files could be new against. Only the
 * step the run stood in (the journal's last record), whose attempt the
 * journal recorded as it began (or as a `fail` ended the one before), is held
 * to it, as `done` would hold it: a failed step's files unchanged are not
 * walked over.
 */
export async function judgeFound(loaded: Loaded, known: JudgedSteps = new Map()): Promise<JudgedSteps | undefined> {
  // The walk that placed the run, and the walk a hand edit is judged by (from the journal's position): each step not judged yet.
  const found = [...(loaded.reconciled.walk?.found ?? []), ...(loaded.gateWalk ?? [])].filter((f) => !known.has(foundKey(f.cycle, f.step)));
  if (found.length === 0) return undefined;
  const { repo, flow, evidence } = loaded;
  const record = loaded.head.record?.pointer;
  const judged = new Map<string, Finding[]>(known);
  for (const { step: number, cycle } of found) {
    if (judged.has(foundKey(cycle, number))) continue;
    const step = stepByNumber(flow, number)!;
    const declared = outputsForStep(await skillOutputs(repo, step.skill), step);
    // A step of a cycle the evidence read does not describe (a walk into the next cycle) is judged by its own cycle's files.
    const ev: Evidence = evidence.cycle === cycle ? evidence : { cycle, steps: [] };
    // The step the run stands in (started, or failed and not yet retried): its attempt's files, as the journal recorded them, count.
    const current = record?.flow === flow.id && record.step === number && record.cycle === cycle;
    judged.set(foundKey(cycle, number), declared ? judgeOutputs(stepOutputs(repo, flow, step, ev, declared, current), step) : []);
  }
  return judged;
}
