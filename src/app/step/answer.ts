/**
 * Stage `answer` of the step pipeline: what the command says, once the plan
 * is written (and its progress commit made), still under the lock. The view of the new
 * position with the commit, the checkpoint, the notices of every stage, the
 * templates of the step the agent is sent to, and a boundary's summary.
 */
import { exitCodeOf, type Event, type Transition } from '../../engine/transitions.js';
import type { LeaseVerdict } from '../../engine/lease.js';
import { boundarySummary } from '../views/boundary-summary.js';
import type { Written } from '../transaction/commit.js';
import type { Loaded } from '../transaction/load-state.js';
import { buildView, type BatchView } from '../views/view.js';
import { reached, type FinalStepPlan, type Stage, type StepAnswer } from './run.js';
import { evidenceFor, type Evidence } from '../../engine/evidence.js';
import { DEFAULT_RUN } from '../../formats/run-name.js';
import type { Flow } from '../../formats/flow/model.js';
import type { Position } from '../../formats/pointer/position.js';
import type { Repo } from '../../io/repo.js';
import { repositoryStart } from '../transaction/run-start.js';
import { reportOf } from '../../engine/task-batches.js';
import { stepByNumber } from '../../formats/flow/model.js';
import { readSubStep } from '../../formats/pointer/sub-step.js';
import type { Finding } from '../../evidence/types.js';

/** Stage `answer`: the view of the new position and its exit code. */
export const answer: Stage = {
  name: 'answer',
  run: async (run) => {
    const { tx, event, loaded, input, plan, committed } = reached(run, 'answer', 'loaded', 'input', 'plan', 'committed');
    const facts = { templates: plan.templates, evidence: input.state.evidence, lease: tx.lease };
    return { ...run, answer: await stepAnswer(event, loaded, plan.step, facts, committed) };
  },
};

interface AnswerFacts {
  templates: readonly { file: string; template: string }[];
  lease?: Exclude<LeaseVerdict, { kind: 'held' }>;
  /** The evidence the decision read (with the current step's batches, when it walks a task index). */
  evidence: Evidence;
}

async function stepAnswer(event: Event, loaded: Loaded, plan: FinalStepPlan, facts: AnswerFacts, written: Written): Promise<StepAnswer> {
  const { repo, flow } = loaded;
  const { transition, notices } = plan;
  const committed = written.progressCommit?.sha;
  const { outcome } = transition;
  const summary =
    outcome.kind === 'boundary' && !outcome.answered ? await boundarySummary(repo, flow, outcome.after, loaded.reconciled.position.cycle) : undefined;
  const view = buildView(event.type, loaded, transition.position, outcome, {
    summary,
    committed,
    ...(written.checkpoint ? { checkpoint: written.checkpoint.id } : {}),
    answer: plan.answer,
    ...(shownAgain(event, transition) ? { again: true as const } : {}),
    acted: plan.acted,
    reason: plan.reason,
    ...(plan.passedOver.length > 0 ? { passedOver: plan.passedOver } : {}),
    ...(notices.length + (written.notices?.length ?? 0) > 0 ? { notices: [...notices, ...(written.notices ?? [])] } : {}),
    ...(facts.templates.length > 0 ? { templates: [...facts.templates] } : {}),
    reads: readsOf(repo, flow, transition.position),
    ...batchOf(loaded, transition, facts.evidence),
    ...walkFindings(loaded, transition),
    // The first `next` of a session (it took the lease rather than renewing it) re-enters: the short status comes with it.
    ...(event.type === 'next' && facts.lease?.kind === 'take' ? { reentry: true } : {}),
  });
  return { view, exit: exitCodeOf(outcome), written };
}

/** A named run at the step it started on the repository's output: the folder the agent reads (app/transaction/run-start.ts). */
function readsOf(repo: Repo, flow: Flow, position: Position): string[] | undefined {
  if (repo.run === DEFAULT_RUN) return undefined;
  const based = repositoryStart(repo, flow);
  return based && position.step === based.start.number ? [based.repository.read] : undefined;
}

/** `next` sent to the step where a walk over work found on disk stopped because its files fail the checks: what they found. */
function walkFindings(loaded: Loaded, transition: Transition): { findings?: Finding[] } {
  const stop = loaded.reconciled.walk?.stop;
  if (transition.outcome.kind !== 'work' || stop?.kind !== 'findings' || stop.step !== transition.position.step) return {};
  return { findings: stop.findings };
}

/** A decision or a boundary that a command other than `next` reached without finishing a step: it was finished before. */
function shownAgain(event: Event, transition: Transition): boolean {
  if (event.type === 'next' || (transition.outcome.kind !== 'decision' && transition.outcome.kind !== 'boundary')) return false;
  if (transition.outcome.kind === 'boundary' && transition.outcome.answered) return false;
  return !transition.entries.some((e) => e.event === 'step_completed' || e.event === 'step_skipped' || e.event === 'boundary_answered');
}

/** The batch the new position names, with its tasks as the index reads them; and the batch this command finished. */
function batchOf(loaded: Loaded, transition: Transition, evidence: Evidence): { batch?: BatchView } {
  const { position } = transition;
  const step = typeof position.step === 'number' ? stepByNumber(loaded.flow, position.step) : undefined;
  const facts = step?.batches ? evidenceFor(evidence, step.number).batches : undefined;
  const sub = readSubStep(position.subStep);
  if (!step || !facts || sub.kind !== 'batch' || transition.outcome.kind === 'refused') return {};
  const docs = (p: string) => `${loaded.repo.docsName}/${p}`;
  const finished = transition.entries.find((e) => e.event === 'batch_completed');
  return {
    batch: {
      batch: sub.batch,
      of: sub.of,
      tasks: sub.tasks.map((id) => {
        const t = facts.tasks.find((x) => x.id === id);
        return { id, name: t?.name ?? '', ...(t?.file ? { file: docs(t.file) } : {}), criteria: t?.criteria ?? [] };
      }),
      report: docs(reportOf(step, sub.batch, position.cycle)),
      index: docs(facts.index),
      ...(facts.alreadyReported && facts.alreadyReported.length > 0 && !finished ? { reported: facts.alreadyReported } : {}),
      ...(finished ? { finished: { batch: finished.batch, tasks: finished.tasks } } : {}),
    },
  };
}
