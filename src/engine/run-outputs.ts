/**
 * Which files under the docs folder a run's journal makes autopilot's, for
 * `uninstall --remove-docs` (docs/commands.md): every file the journal
 * names (the files an attempt or a round began with, a progress commit's
 * files, the pointer and journal a `reset` kept aside, a repair's side file,
 * a skill's state file), and the outputs of every step the journal records
 * in each cycle it records it: what the step's Done-when patterns match, its
 * batch reports, and the task files beside a task index that is one of them
 * (`<id>_<name>.md`, an id of the index's table). The flow is the one the run
 * is pinned to. Everything else under the docs folder is a person's. Pure.
 */
import { BATCH_PLACEHOLDER, withCycle, type Step } from '../formats/flow/model.js';
import type { StampedEntry } from '../formats/journal-line.js';
import { isCachedParse, type CachedFlow } from '../formats/flow-cache.js';
import { readTaskTable } from '../evidence/task-table.js';

export interface RunOutputs {
  /** Patterns under the docs folder (`{cycle}` filled, `{batch}` as `*`); one ending in `/` holds a whole folder. */
  patterns: string[];
  /** Files under the docs folder, by name. */
  files: string[];
  /** The task indexes of the run's steps, for `taskFiles` (each a pattern like the above). */
  indexes: string[];
}

/** The events that say a step was under way or settled in a cycle: its outputs are the run's. */
const STEP_EVENTS = new Set([
  'step_started',
  'substep',
  'step_completed',
  'step_failed',
  'step_skipped',
  'batch_started',
  'batch_completed',
  'decision_required',
]);

/** A name the journal gives relative to the repository, under the docs folder: relative to that folder; none outside it. */
const underDocs = (name: unknown, docsName: string): string[] =>
  typeof name === 'string' && name.startsWith(`${docsName}/`) ? [name.slice(docsName.length + 1)] : [];

/** The names one entry's details give, under the docs folder (the files of an attempt or a round are named relative to it already). */
function namedBy(e: StampedEntry, docsName: string): string[] {
  const d = e as unknown as Record<string, unknown>;
  const keys = (v: unknown) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.keys(v) : []);
  const list = (v: unknown) => (Array.isArray(v) ? v : []);
  const aside = d.moved_aside as { pointer?: unknown; journal?: unknown } | undefined;
  return [
    ...keys(d.hashes),
    ...keys(d.round_hashes),
    ...list(d.round_files),
    ...list(d.files).flatMap((f) => underDocs(f, docsName)),
    ...list(d.skill_state).flatMap((f) => underDocs(f, docsName)),
    ...[aside?.pointer, aside?.journal, d.kept_in, d.event === 'skill_state_differs' ? d.file : undefined].flatMap((f) => underDocs(f, docsName)),
  ].filter((f): f is string => typeof f === 'string' && f !== '' && !f.startsWith('/') && !f.split('/').includes('..'));
}

/** The flow the run's journal pins last (`run_started`, `run_repinned`), when it has a flow's shape. */
export function pinnedFlowOf(entries: readonly StampedEntry[]): CachedFlow | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.event !== 'run_started' && e.event !== 'run_repinned') continue;
    if (isCachedParse({ flow: e.pinned }, e.flow)) return e.pinned as CachedFlow;
  }
  return undefined;
}

/** A step's outputs in a cycle, as patterns. */
const stepPatterns = (step: Step, cycle: number): string[] => [
  ...step.doneWhen.map((p) => withCycle(p, cycle)),
  ...(step.batches ? [withCycle(step.batches.report, cycle).replaceAll(BATCH_PLACEHOLDER, '*')] : []),
];

/** What the run's journal makes autopilot's under the docs folder; `flow`: the run's flow where the journal pins none. */
export function runOutputs(entries: readonly StampedEntry[], docsName: string, flow?: CachedFlow): RunOutputs {
  const pinned = pinnedFlowOf(entries) ?? flow;
  const files = new Set<string>();
  const recorded = new Set<string>();
  const cycles = new Set<number>();
  for (const e of entries) {
    for (const f of namedBy(e, docsName)) files.add(f);
    if (STEP_EVENTS.has(e.event) && typeof e.step === 'number' && e.flow === pinned?.id) {
      recorded.add(`${e.cycle}:${e.step}`);
      cycles.add(e.cycle);
    }
  }
  const patterns = new Set<string>();
  for (const key of recorded) {
    const [cycle, n] = key.split(':').map(Number) as [number, number];
    const step = pinned?.steps[n - 1];
    if (step) for (const p of stepPatterns(step, cycle)) patterns.add(p);
  }
  const indexes = [...cycles].flatMap((cycle) => (pinned?.steps ?? []).flatMap((s) => (s.batches ? [withCycle(s.batches.index, cycle)] : [])));
  return { patterns: [...patterns], files: [...files], indexes: [...new Set(indexes)] };
}

/** The task files a task index names: `<folder>/<id>_` for each task of its table, where `<id>_<name>.md` lies beside it. */
export function taskFilePrefixes(index: string, text: string): string[] {
  const folder = index.includes('/') ? index.slice(0, index.lastIndexOf('/') + 1) : '';
  return (readTaskTable(text) ?? []).map((row) => `${folder}${row.id}_`);
}
