/**
 * Gathers, at the edge, what the batch rules (`engine/task-batches.ts`)
 * read about a step that walks a task index: the index (its tasks, batches,
 * Coverage and hash), what the journal says of the step's visit (the batches
 * the run pinned, those the engine recorded done, each report as its batch
 * began: `io/batch-record.ts`), and for `done` the current batch's report
 * with its declared checks and the commands run in the batch. Every read is
 * bounded; a missing or unreadable index gives no batches (the step is then
 * walked as one, as before).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, posix } from 'node:path';
import { DEFAULT_BATCH_OUTPUT, currentBatch, namedTasks, reportOf, type BatchFacts, type BatchReportFacts } from '../../engine/task-batches.js';
import { batchesOf, readTaskTable, taskFileNames } from '../../evidence/task-table.js';
import { comparable } from '../../evidence/index.js';
import { withCycle, type Step } from '../../formats/flow/model.js';
import type { Position } from '../../formats/pointer/position.js';
import { hashText } from '../../hash.js';
import { batchRecord, type BatchRecord } from '../../io/batch-record.js';
import { attemptRecord } from '../../io/journal-head.js';
import { readBounded } from '../../io/read-bounded.js';
import { displayPath, type Repo } from '../../io/repo.js';
import { readTemplate } from '../../io/gather-outputs.js';
import { runsOf } from './verify.js';
import { OUTPUT_FILE_MAX_BYTES } from '../../limits.js';
import type { DeclaredOutputs } from './skill-outputs.js';

export interface BatchGather {
  repo: Repo;
  flow: string;
  step: Step;
  position: Position;
  /** For `done`: the skill's declared outputs (a declaration whose `file` is the step's batch report pattern judges it). */
  declared?: DeclaredOutputs | undefined;
  report: boolean;
}

export function gatherBatches({ repo, flow, step, position, declared, report }: BatchGather): BatchFacts | undefined {
  if (!step.batches) return undefined;
  const cycle = position.cycle;
  const index = withCycle(step.batches.index, cycle);
  const read = readBounded(join(repo.docs, index), displayPath(join(repo.docs, index), repo.root), 'task index', OUTPUT_FILE_MAX_BYTES);
  const rows = 'text' in read ? (readTaskTable(read.text) ?? []) : [];
  const now = batchesOf(rows);
  const at = { flow, cycle, step: step.number };
  const finished = position.step === step.number && (position.status === 'completed' || position.status === 'skipped');
  const record = batchRecord(repo.journalFile, at, finished);
  const pinned = record.pinned;
  const pinnedPlan = pinned && Array.isArray(pinned.batches) && pinned.batches.length > 0 ? pinned.batches : undefined;
  const plan = pinnedPlan ?? now;
  if (plan.length === 0) return undefined;
  const folder = posix.dirname(index);
  const siblings = safeList(join(repo.docs, folder));
  const tasks = rows.map((r) => {
    const [file] = taskFileNames(r.id, siblings);
    return { id: r.id, name: r.name, criteria: r.criteria, ...(file ? { file: folder === '.' ? file : `${folder}/${file}` } : {}) };
  });
  const facts: BatchFacts = {
    index,
    plan,
    pinned: pinnedPlan !== undefined,
    ...(pinnedPlan && now.length > 0 && JSON.stringify(now) !== JSON.stringify(pinnedPlan) ? { edited: now } : {}),
    ...('text' in read ? { indexHash: hashText(read.text).slice(0, 16) } : {}),
    tasks,
    completed: record.completed,
  };
  const batch = currentBatch(step, position, facts);
  if (batch !== undefined && report) facts.report = { ...reportFacts(repo, step, position, batch, declared, at), ...atStart(record, batch) };
  else if (batch !== undefined) {
    // Resuming a batch whose report a killed session began: the tasks it already names.
    const path = join(repo.docs, reportOf(step, batch, cycle));
    const read = existsSync(path) ? readBounded(path, displayPath(path, repo.root), 'batch report', OUTPUT_FILE_MAX_BYTES) : undefined;
    if (read && 'text' in read && read.text.trim() !== '') facts.alreadyReported = namedTasks(read.text, plan[batch - 1]!);
  }
  return facts;
}

/** The report's hash and the work tree's snapshot as the batch began, where the journal recorded them. */
const atStart = (record: BatchRecord, batch: number) => ({ atStart: record.reportAtStart.get(batch), tree: record.treeAtStart.get(batch) });

/** A short hash of what a reader sees of a batch report (`comparable`: a space added is no new report): what `batch_started` records as `report_hash`, and `done` compares. */
export const reportHash = (text: string): string => hashText(comparable(text)).slice(0, 16);

/** The hash of a batch's report as it is on disk, when it is there with content; undefined otherwise. */
export function reportHashOnDisk(repo: Repo, step: Step, batch: number, cycle: number): string | undefined {
  const path = join(repo.docs, reportOf(step, batch, cycle));
  if (!existsSync(path)) return undefined;
  const read = readBounded(path, displayPath(path, repo.root), 'batch report', OUTPUT_FILE_MAX_BYTES);
  return 'text' in read && read.text.trim() !== '' ? reportHash(read.text) : undefined;
}

function reportFacts(
  repo: Repo,
  step: Step,
  position: Position,
  batch: number,
  declared: DeclaredOutputs | undefined,
  at: { flow: string; cycle: number; step: number },
): BatchReportFacts {
  const file = reportOf(step, batch, position.cycle);
  const output = declared?.outputs.find((o) => o.file === step.batches!.report) ?? DEFAULT_BATCH_OUTPUT(step.batches!.report);
  const template = output.template && declared ? readTemplate(declared, output.template) : {};
  const path = join(repo.docs, file);
  const read = existsSync(path) ? readBounded(path, displayPath(path, repo.root), 'batch report', OUTPUT_FILE_MAX_BYTES) : undefined;
  const attempt = attemptRecord(repo.journalFile, at);
  return {
    batch,
    file,
    ...(read && 'text' in read ? { text: read.text, hash: reportHash(read.text) } : {}),
    ...(read && 'problem' in read ? { problem: read.problem.message } : {}),
    output: { ...output, file },
    template: template.text,
    templateChanged: template.changed,
    skill: declared?.skill ?? step.skill,
    runs: runsOf(attempt.runs),
  };
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir).slice(0, 1000);
  } catch {
    return [];
  }
}
