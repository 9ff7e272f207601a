/** The parsed form of a flow file (`flows/<id>.md`). Plain data: it is cached as JSON. */

export interface Flow {
  id: string;
  title: string;
  /** Folder scans try flows in ascending scan order; the first whose detection matches wins. */
  scanOrder: number;
  detect: Detection;
  steps: Step[];
  decisions: Record<string, Decision>;
  /**
   * The steps, by name, that the engine takes a checkpoint before: front
   * matter `checkpoint_before: [Deploy]`. Absent when the flow names none
   * (and in a flow cached or pinned by an autopilot older than the key).
   */
  checkpointBefore?: CheckpointMark[];
  /** Where the flow came from, for messages: a path relative to the repository or the package. */
  file: string;
  /** sha1 of the file's text: the cache key, and later the hash pinned with a run. */
  hash: string;
}

/** Paths relative to the repository root; `{docs}` stands for the docs folder. */
export interface Detection {
  any: string[];
  none: string[];
}

export type Runs =
  | { kind: 'always' }
  | { kind: 'optional' }
  /** Runs only when `pattern` (under the docs folder) matches; otherwise it is skipped by the engine. */
  | { kind: 'if'; pattern: string };

export type Then = { kind: 'next' } | { kind: 'boundary' } | { kind: 'decision'; id: string } | { kind: 'loop'; to: number } | { kind: 'end' };

export interface Step {
  number: number;
  name: string;
  skill: string;
  subSteps: string;
  /**
   * A step that walks a task index batch by batch (the Sub-steps cell
   * `batches of \`02_tasks/_index.md\` → \`03_implementation/batch_{batch}.md\``):
   * the index and each batch's report, under the docs folder. Both may hold
   * `{cycle}`; the report holds `{batch}` (the batch's number, two digits).
   */
  batches?: StepBatches;
  /** Patterns under the docs folder; every one must match a file for the step to count as done. May hold `{cycle}`. */
  doneWhen: string[];
  runs: Runs;
  then: Then;
  /** Line of the step's table row in the flow file. */
  line: number;
}

export interface StepBatches {
  index: string;
  report: string;
}

export const BATCH_PLACEHOLDER = '{batch}';

/** A batch's report path: `{batch}` as two digits (`batch_02.md`), `{cycle}` filled. */
export function batchReport(batches: StepBatches, batch: number, cycle: number): string {
  return withCycle(batches.report, cycle).replaceAll(BATCH_PLACEHOLDER, String(batch).padStart(2, '0'));
}

/** One name in `checkpoint_before`, with the line of the flow file it is written on. */
export interface CheckpointMark {
  step: string;
  line: number;
}

export type DecisionEffect = 'continue' | 'repeat';

export interface DecisionOption {
  letter: string;
  choice: string;
  then: DecisionEffect;
}

export interface Decision {
  id: string;
  question: string;
  options: DecisionOption[];
  recommendation: { letter: string; reason: string };
  line: number;
}

export const CYCLE_PLACEHOLDER = '{cycle}';
export const DOCS_PLACEHOLDER = '{docs}';

export function stepByNumber(flow: Flow, number: number): Step | undefined {
  return flow.steps[number - 1];
}

/** Whether the flow asks for a checkpoint before `step` starts (`checkpoint_before` names it). */
export function checkpointBefore(flow: Flow, step: Step): boolean {
  return flow.checkpointBefore?.some((mark) => mark.step === step.name) ?? false;
}

/** The step a loop returns to, if the flow loops. */
export function loopStart(flow: Flow): number | undefined {
  for (const step of flow.steps) if (step.then.kind === 'loop') return step.then.to;
  return undefined;
}

/** Whether a step's artifacts are per cycle (its patterns hold `{cycle}`). */
export function isPerCycle(step: Step): boolean {
  return step.doneWhen.some((p) => p.includes(CYCLE_PLACEHOLDER));
}

export function withCycle(pattern: string, cycle: number): string {
  return pattern.replaceAll(CYCLE_PLACEHOLDER, String(cycle));
}
