/**
 * Pinned runs (docs/state-and-journal.md, "Pinned runs"): a run keeps the
 * step list it started with; when the flow file changes meanwhile, the engine
 * says which steps changed and goes on with the pinned list until `autopilot
 * repin` adopts the new one. Pure.
 */
import type { Flow, Step } from '../formats/flow/model.js';
import type { Position } from '../formats/pointer/position.js';

/** The flow as the journal keeps it with a run: everything but where the file was. */
export function pinnedCopy(flow: Flow): Omit<Flow, 'file'> {
  const { file: _file, ...rest } = flow;
  return rest;
}

/** What a step is, for comparing two versions of a flow: what the run does with it and hands the agent, not its line. */
const shape = (s: Step) => JSON.stringify([s.name, s.skill, s.subSteps, s.batches, s.doneWhen, s.runs, s.then]);

/**
 * What the decisions are, for comparing two versions of a flow: each one's
 * question, options and recommendation, by id. Not the line a decision is
 * written on: a line of prose added above it moves it without changing it
 * (seed 004: the list replayed is the list, not the file's layout).
 */
const decisionsShape = (flow: Flow) =>
  JSON.stringify(
    Object.values(flow.decisions)
      .map((d) => [d.id, d.question, d.options, d.recommendation])
      .sort(([a], [b]) => String(a).localeCompare(String(b))),
  );

/** The steps that differ between the pinned flow and the file as it is now, in words. */
export function flowChanges(pinned: Flow, current: Flow): string[] {
  const changes: string[] = [];
  const count = Math.max(pinned.steps.length, current.steps.length);
  for (let n = 1; n <= count; n++) {
    const was = pinned.steps[n - 1];
    const now = current.steps[n - 1];
    if (!now) changes.push(`step ${n} (${was!.name}) is gone`);
    else if (!was) changes.push(`step ${n} (${now.name}) is new`);
    else if (shape(was) !== shape(now)) changes.push(`step ${n} (${was.name}${was.name === now.name ? '' : ` → ${now.name}`}) changed`);
  }
  if (decisionsShape(pinned) !== decisionsShape(current)) changes.push('the decisions changed');
  const marked = (flow: Flow) => [...new Set((flow.checkpointBefore ?? []).map((m) => m.step))].join(', ') || 'none';
  if (marked(pinned) !== marked(current)) changes.push(`checkpoint_before changed (${marked(pinned)} → ${marked(current)})`);
  return changes;
}

/** Why adopting `current` would lose the position, or undefined when it is safe. */
export function repinProblem(position: Position, pinned: Flow, current: Flow): string | undefined {
  if (position.step === 'done') return undefined;
  const was = pinned.steps[position.step - 1];
  const now = current.steps[position.step - 1];
  if (!now) return `the current step, ${position.step} (${position.name}), would vanish: the new ${current.id} has ${current.steps.length} steps`;
  if (was && was.name !== now.name) return `the current step, ${position.step} (${was.name}), would become ${now.name}`;
  return undefined;
}

/** A flow file as the journal names it: a path inside the repository, or `builtin:<id>`; never a path of this machine. */
export function flowFileRef(flow: Flow): string {
  return flow.file.startsWith('.autopilot/') ? flow.file : `builtin:${flow.id}`;
}
