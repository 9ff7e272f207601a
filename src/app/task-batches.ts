/**
 * Gathers, at the edge, what the batch rules (`engine/task-batches.ts`)
 * read about a step that walks a task index: the index (its tasks, batches,
 * Coverage and hash), the batches the run pinned (its newest
 * `batch_started`), which batch reports are on disk, and for `done` the
 * current batch's report with its declared checks and the commands run in
 * the batch. Every read is bounded; a missing or unreadable index gives no
 * batches (the step is then walked as one, as before).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { DEFAULT_BATCH_OUTPUT, currentBatch, namedTasks, reportOf, type BatchFacts, type BatchReportFacts } from '../engine/task-batches.js';
import { batchesOf, readTaskTable } from '../evidence/task-table.js';
import { withCycle, type Step } from '../flow/model.js';
import type { Position } from '../formats/pointer/position.js';
import { hashText } from '../hash.js';
import { attemptRecord, latestAbout } from '../io/journal-head.js';
import { readBounded } from '../io/read-bounded.js';
import { displayPath, type Repo } from '../io/repo.js';
import { runsOf } from './verify.js';
import { OUTPUT_FILE_MAX_BYTES, TEMPLATE_MAX_BYTES } from '../limits.js';
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
  const pinned = latestAbout(repo.journalFile, at, new Set(['batch_started'] as const));
  const pinnedPlan = pinned && Array.isArray(pinned.batches) && pinned.batches.length > 0 ? pinned.batches : undefined;
  const plan = pinnedPlan ?? now;
  if (plan.length === 0) return undefined;
  const folder = posix.dirname(index);
  const siblings = safeList(join(repo.docs, folder));
  const tasks = rows.map((r) => {
    const id = r.id.toLowerCase();
    const file = siblings.find((n) => n.toLowerCase().startsWith(`${id}_`) || n.toLowerCase().startsWith(`${id}-`) || n.toLowerCase() === `${id}.md`);
    return { id: r.id, name: r.name, criteria: r.criteria, ...(file ? { file: folder === '.' ? file : `${folder}/${file}` } : {}) };
  });
  const reported: number[] = [];
  for (let b = 1; b <= plan.length; b++) if (nonEmpty(join(repo.docs, reportOf(step, b, cycle)))) reported.push(b);
  const facts: BatchFacts = {
    index,
    plan,
    pinned: pinnedPlan !== undefined,
    ...(pinnedPlan && now.length > 0 && JSON.stringify(now) !== JSON.stringify(pinnedPlan) ? { edited: now } : {}),
    ...('text' in read ? { indexHash: hashText(read.text).slice(0, 16) } : {}),
    tasks,
    reported,
  };
  const batch = currentBatch(step, position, facts);
  if (batch !== undefined && report) facts.report = reportFacts(repo, step, position, batch, declared, at);
  else if (batch !== undefined && facts.reported.includes(batch)) {
    // Resuming a batch whose report a killed session began: the tasks it already names.
    const path = join(repo.docs, reportOf(step, batch, cycle));
    const read = readBounded(path, displayPath(path, repo.root), 'batch report', OUTPUT_FILE_MAX_BYTES);
    if ('text' in read) facts.alreadyReported = namedTasks(read.text, plan[batch - 1]!);
  }
  return facts;
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
  let template: string | undefined;
  if (output.template && declared) {
    const t = readBounded(join(declared.dir, output.template), output.template, 'template', TEMPLATE_MAX_BYTES);
    if ('text' in t) template = t.text;
  }
  const path = join(repo.docs, file);
  const read = existsSync(path) ? readBounded(path, displayPath(path, repo.root), 'batch report', OUTPUT_FILE_MAX_BYTES) : undefined;
  const attempt = attemptRecord(repo.journalFile, at);
  return {
    batch,
    file,
    ...(read && 'text' in read ? { text: read.text } : {}),
    ...(read && 'problem' in read ? { problem: read.problem.message } : {}),
    output: { ...output, file },
    ...(template !== undefined ? { template } : {}),
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

function nonEmpty(path: string): boolean {
  try {
    const s = statSync(path);
    return s.isFile() && s.size > 0;
  } catch {
    return false;
  }
}
