/**
 * A step that walks a task index batch by batch (docs/flow-format.md,
 * "Batches"; docs/state-and-journal.md, "Batches"). Pure: what the shell
 * gathered about the index and the current batch's report in, the batch to
 * hand out, the checks of a batch's report and the journal entries out.
 *
 * A batch is the unit of work, of evidence, of retries and of commits: the
 * pointer's `sub_step` names it (`batch 2 of 4 — 03, 04`); `batch_started`
 * pins every batch's tasks (an edited index changes nothing until a person
 * repins); `done` checks its report and moves to the next batch; the step's
 * own report is checked after the last. Batches carry no order but their
 * number and the tasks their own, so independent ones could one day be
 * handed to several conversations; nothing here assumes a single one.
 */
import { judgeFile, type CommandRun, type Finding, type OutputDeclaration, type VerifyFacts } from '../evidence/index.js';
import { judgeCodeChange, type CodeFacts } from './batch-code.js';
import { pinnedTemplateFinding } from './pinned-template.js';
import { batchReport, type Step } from '../formats/flow/model.js';
import { entry, type JournalEntry } from '../formats/journal-line.js';
import { batchSubStep, readSubStep } from '../formats/pointer/sub-step.js';
import type { Position } from '../formats/pointer/position.js';

/** One task as the batch hands it out. */
export interface BatchTask {
  id: string;
  name: string;
  /** The task's file, relative to the docs folder, when one lies beside the index. */
  file?: string;
  /** Criterion ids the index's Coverage table gives it. */
  criteria: string[];
}

/** What the shell gathered about a batch step's index and its current batch. */
export interface BatchFacts {
  /** The task index, relative to the docs folder (`{cycle}` filled). */
  index: string;
  /** Every batch's task ids, as the run walks them: pinned by the first `batch_started`, else as the index reads now. */
  plan: string[][];
  /** Whether `plan` comes from the journal (the run's own), not the index as it reads now. */
  pinned: boolean;
  /** The index's batches as it reads now, when they differ from the pinned plan (an edit mid-step). */
  edited?: string[][];
  /** A short hash of the index's text, when it could be read. */
  indexHash?: string;
  /** The tasks, as the index reads now (names, files, criteria). */
  tasks: BatchTask[];
  /** Batch numbers (1-based) the engine recorded done in this visit of the step (`batch_completed`): files on disk count for nothing. */
  completed: number[];
  /** For `done`: the current batch's report as it is on disk, and what judges it. */
  report?: BatchReportFacts;
  /** For `next` resuming a batch: the tasks its report on disk already names (work a killed session left). */
  alreadyReported?: string[];
}

export interface BatchReportFacts {
  batch: number;
  file: string;
  text?: string;
  problem?: string;
  output: OutputDeclaration;
  template?: string;
  /** The template is not the one the run pinned: what changed, in words. */
  templateChanged?: string;
  skill: string;
  /** Commands run through `autopilot exec` since the batch began (or its last failed attempt). */
  runs: CommandRun[];
  /** A short hash of the report as it is now, when it could be read. */
  hash?: string;
  /** The same as the batch began, when the report was on disk then (`batch_started`'s `report_hash`). */
  atStart?: string;
  /** The work tree's snapshot as the batch began (`batch_started`'s `tree`), for the shell's look at what changed since. */
  tree?: string;
  /** What the work tree shows changed since the batch began; undefined until the shell looked (only once the report passes). */
  code?: CodeFacts;
  /** The project's test command the batch's result is held to. */
  verify?: VerifyFacts;
}

/** A batch report's checks when the skill declares none for it: its tasks and its test run. */
export const DEFAULT_BATCH_OUTPUT = (file: string): OutputDeclaration => ({ file, sections: ['Tasks', 'Result'], checks: ['exit-code'] });

/** The batch the sub-step names, when the step walks batches and the sub-step is one of its batches. */
export function currentBatch(step: Step, position: Position, facts: BatchFacts | undefined): number | undefined {
  if (!step.batches || !facts || facts.plan.length === 0) return undefined;
  const sub = readSubStep(position.subStep);
  return sub.kind === 'batch' && sub.batch <= facts.plan.length ? sub.batch : undefined;
}

/** The batch to begin when a batch step starts or resumes with no batch named: the first the engine has not recorded done. */
export function firstOpenBatch(facts: BatchFacts): number {
  for (let b = 1; b <= facts.plan.length; b++) if (!facts.completed.includes(b)) return b;
  return facts.plan.length;
}

/** The pointer at batch `batch` of the plan, the agent's note dropped. */
export function atBatch(position: Position, facts: BatchFacts, batch: number): Position {
  return { ...position, subStep: batchSubStep(batch, facts.plan.length, facts.plan[batch - 1]!) };
}

export function batchStarted(position: Position, facts: BatchFacts, batch: number): JournalEntry {
  return entry('batch_started', position, {
    batch,
    of: facts.plan.length,
    tasks: facts.plan[batch - 1]!,
    batches: facts.plan,
    ...(facts.indexHash ? { index_hash: facts.indexHash } : {}),
  });
}

export function batchCompleted(
  position: Position,
  facts: BatchFacts,
  batch: number,
  forced?: { reason: string },
  acceptedFailures?: { reason: string },
): JournalEntry {
  const code = facts.report?.batch === batch ? facts.report.code : undefined;
  return entry('batch_completed', position, {
    batch,
    of: facts.plan.length,
    tasks: facts.plan[batch - 1]!,
    ...(forced ? { forced: true as const, reason: forced.reason } : {}),
    ...(acceptedFailures && !forced ? { accepted_failures: true as const, reason: acceptedFailures.reason } : {}),
    code_unseen: code && !code.seen ? code.why : undefined,
  });
}

/** A batch's report path under the docs folder. */
export const reportOf = (step: Step, batch: number, cycle: number): string => batchReport(step.batches!, batch, cycle);

/**
 * What is wrong with a batch's report: the checks its output declares (by
 * default its Tasks and Result sections and a zero exit code of a command
 * run in the batch), and that it names each task of the batch and each
 * criterion those tasks cover.
 */
export function judgeBatchReport(facts: BatchFacts, batch: number): Finding[] {
  const report = facts.report;
  if (!report || report.batch !== batch) return [{ check: 'file', file: '?', message: `batch ${batch}'s report was not read`, write: 'the batch report' }];
  const where = { check: 'file', file: report.file };
  if (report.problem !== undefined) return [{ ...where, message: report.problem, write: 'a readable file within the size limit' }];
  if (report.text === undefined || report.text.trim() === '')
    return [
      {
        ...where,
        message: `batch ${batch} has no report: \`${report.file}\` is missing or empty`,
        write: `the batch's report${report.template ? ` from the template ${report.template}` : ''}: its tasks, files changed, tests and their result`,
      },
    ];
  const findings: Finding[] = report.templateChanged !== undefined ? [pinnedTemplateFinding(report.file, report.templateChanged)] : [];
  // A report on disk before its batch began is not the batch's account of its work until it is written again.
  if (report.atStart !== undefined && report.hash === report.atStart)
    findings.push({
      check: 'batch-report-fresh',
      file: report.file,
      message: `the report is as it was on disk when batch ${batch} began: a report written before its batch is not the batch's own`,
      write: `the report of batch ${batch}'s work, written (or revised) after the batch began: what its tasks changed, and the run of its tests`,
    });
  findings.push(
    ...judgeFile({
      output: report.output,
      file: report.file,
      text: report.text,
      skill: report.skill,
      template: report.template,
      runs: report.runs,
      verify: report.verify,
    }),
  );
  const tasks = facts.plan[batch - 1] ?? [];
  findings.push(...judgeCodeChange(report.code, batch, tasks, report.file));
  const named = (id: string) => new RegExp(`(^|[^A-Za-z0-9])${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9])`).test(report.text!);
  for (const id of tasks)
    if (!named(id))
      findings.push({
        check: 'batch-trace',
        file: report.file,
        message: `the report does not name task ${id} of batch ${batch}`,
        write: `what task ${id} did`,
      });
  const criteria = [...new Set(facts.tasks.filter((t) => tasks.includes(t.id)).flatMap((t) => t.criteria))];
  for (const c of criteria)
    if (!named(c))
      findings.push({
        check: 'batch-trace',
        file: report.file,
        message: `the report does not name ${c}, which batch ${batch}'s tasks cover`,
        write: `how ${c} is met and tested`,
      });
  return findings;
}

/** A sentence when the index was edited after the run pinned its batches. */
export function indexEditNotice(facts: BatchFacts): string | undefined {
  if (!facts.edited) return undefined;
  const show = (plan: string[][]) => plan.map((b) => `[${b.join(', ')}]`).join(' ');
  return `the task index ${facts.index} changed since this step pinned its batches (now ${facts.edited.length}: ${show(facts.edited)}); the run keeps its ${facts.plan.length} (${show(facts.plan)}) until a person runs \`autopilot repin\``;
}

export type BatchStatus = 'done' | 'in_progress' | 'failed' | 'pending';

/**
 * Each batch of a step that walks batches, with where it stands: done when
 * the journal records it done (or the whole step is completed), else the
 * sub-step's batch in progress (or failed), else pending.
 */
export function batchStatuses(position: Position, facts: BatchFacts): { batch: number; tasks: string[]; status: BatchStatus }[] {
  const sub = readSubStep(position.subStep);
  const current = sub.kind === 'batch' ? sub.batch : undefined;
  const finished = position.status === 'completed';
  return facts.plan.map((tasks, i) => {
    const batch = i + 1;
    let status: BatchStatus = 'pending';
    if (finished || facts.completed.includes(batch)) status = 'done';
    else if (batch === current) status = position.status === 'failed' ? 'failed' : position.status === 'in_progress' ? 'in_progress' : 'pending';
    return { batch, tasks, status };
  });
}

/** One line for people: `1 of 3 done · now batch 2 (03) · to do: 3 (04, 05)`. */
export function batchesLine(statuses: readonly { batch: number; tasks: string[]; status: BatchStatus }[]): string {
  const done = statuses.filter((s) => s.status === 'done').length;
  const parts = [`${done} of ${statuses.length} done`];
  const now = statuses.find((s) => s.status === 'in_progress' || s.status === 'failed');
  if (now) parts.push(`${now.status === 'failed' ? 'failed' : 'now'} batch ${now.batch} (${now.tasks.join(', ')})`);
  const todo = statuses.filter((s) => s.status === 'pending');
  if (todo.length > 0) parts.push(`to do: ${todo.map((s) => `${s.batch} (${s.tasks.join(', ')})`).join(', ')}`);
  return parts.join(' · ');
}

/** The task ids of `tasks` that a report's text names (as words). */
export function namedTasks(text: string, tasks: readonly string[]): string[] {
  return tasks.filter((id) => new RegExp(`(^|[^A-Za-z0-9])${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9])`).test(text));
}
