/**
 * The edge of the walk over work found on disk (issue 23, point 7;
 * `engine/reconcile.ts`, `walkFolder`): each step the walk would complete gets
 * the checks `done` gives it. Its skill's declared outputs are gathered and
 * judged here, as `done` gathers and judges them (`stepOutputs`); the pure
 * walk then stops at the first step whose files fail.
 */
import { judgeOutputs, type Evidence, type OutputsEvidence } from '../../engine/evidence.js';
import { evidenceFor } from '../../engine/evidence.js';
import type { Finding } from '../../evidence/types.js';
import { stepByNumber, type Flow, type Step } from '../../formats/flow/model.js';
import { gatherOutputs } from '../../io/gather-outputs.js';
import { attemptRecord, latestAbout } from '../../io/journal-head.js';
import type { Repo } from '../../io/repo.js';
import { runsOf, verifyFacts, verifyNow } from './verify.js';
import { readSettings } from './settings.js';
import { checksOf } from '../../evidence/index.js';
import { foundKey, type JudgedSteps, type Loaded } from './load-state.js';
import { atStep } from '../../engine/reconcile.js';
import { reportOf } from '../../engine/task-batches.js';
import { gatherBatches } from './task-batches.js';
import { outputsForStep, type DeclaredOutputs } from './skill-outputs.js';
import { runSkillOutputs } from './skill-pins.js';

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
      runs: runsOf(attempt.runs),
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
    const declared = outputsForStep(await runSkillOutputs(repo, loaded.skills, step.skill), step);
    // A step of a cycle the evidence read does not describe (a walk into the next cycle) is judged by its own cycle's files.
    const ev: Evidence = evidence.cycle === cycle ? evidence : { cycle, steps: [] };
    // The step the run stands in (started, or failed and not yet retried): its attempt's files, as the journal recorded them, count.
    const current = record?.flow === flow.id && record.step === number && record.cycle === cycle;
    const outputs = declared ? stepOutputs(repo, flow, step, ev, declared, current) : undefined;
    // A test result is held to the project's tests, as `done` holds it.
    if (outputs?.outputs.some((o) => checksOf(o.output).includes('exit-code'))) outputs.verify = verifyFacts(verifyNow(loaded, await readSettings(repo)));
    const findings = outputs ? judgeOutputs(outputs, step) : [];
    judged.set(foundKey(cycle, number), [...findings, ...batchesNotDone(loaded, step, cycle)]);
  }
  return judged;
}

/**
 * A step that walks its task index is done only batch by batch, by the
 * engine (`batch_completed`): its reports on disk do not carry the walk
 * over it. A finding for each batch the journal does not record done.
 */
function batchesNotDone(loaded: Loaded, step: Step, cycle: number): Finding[] {
  if (!step.batches) return [];
  const { repo, flow } = loaded;
  const position = atStep(flow, step, cycle, 'in_progress');
  const facts = gatherBatches({ repo, flow: flow.id, step, position, report: false });
  if (!facts) return [];
  return facts.plan.flatMap((tasks, i) =>
    facts.completed.includes(i + 1)
      ? []
      : [
          {
            check: 'batches',
            file: reportOf(step, i + 1, cycle),
            message: `batch ${i + 1} of ${facts.plan.length} (${tasks.join(', ')}) is not recorded done: a batch is done only by its own \`autopilot done\`, not by files on disk`,
            write: `the batch's work, handed out by \`autopilot next\`, then \`autopilot done\``,
          },
        ],
  );
}
