/** Builders for tests of the pure rules: real built-in flows, evidence described in a line. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Evidence, StepEvidence } from '../../src/engine/evidence.js';
import { parseFlow } from '../../src/formats/flow/parse-flow.js';
import { stepByNumber, withCycle, type Flow } from '../../src/formats/flow/model.js';
import type { Position, Status } from '../../src/formats/pointer/position.js';

export const ROOT = join(import.meta.dirname, '..', '..');

const flows = new Map<string, Flow>();
export function builtInFlow(id: 'greenfield' | 'existing-code'): Flow {
  let flow = flows.get(id);
  if (!flow) {
    const parsed = parseFlow(readFileSync(join(ROOT, 'flows', `${id}.md`), 'utf8'), `flows/${id}.md`, id);
    if (!parsed.flow) throw new Error(`built-in flow ${id} does not parse: ${JSON.stringify(parsed.problems)}`);
    flow = parsed.flow;
    flows.set(id, flow);
  }
  return flow;
}

export interface EvidenceSpec {
  /** Steps whose every artifact exists. */
  done?: number[];
  /** Steps with some but not all artifacts. */
  touched?: number[];
  /** Conditional steps whose condition holds; every other conditional step's condition is false. */
  conditionMet?: number[];
  waived?: Record<number, 'skipped' | 'forced'>;
}

export function evidence(flow: Flow, spec: EvidenceSpec = {}, cycle = 1): Evidence {
  const steps: StepEvidence[] = flow.steps.map((step) => {
    const all = spec.done?.includes(step.number);
    const some = spec.touched?.includes(step.number);
    const ev: StepEvidence = {
      step: step.number,
      patterns: step.doneWhen.map((p, i) => {
        const pattern = withCycle(p, cycle);
        return { pattern, matches: all || (some && i === 0) ? [pattern.replace(/\*/g, 'x')] : [] };
      }),
    };
    if (some && step.doneWhen.length === 1) throw new Error(`step ${step.number} has one pattern; it cannot be partly done`);
    if (step.runs.kind === 'if') ev.conditionMet = spec.conditionMet?.includes(step.number) ?? false;
    const waiver = spec.waived?.[step.number];
    if (waiver) ev.waiver = waiver;
    return ev;
  });
  return { cycle, steps };
}

/** Every step from 1 to n. */
export const upTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

export function at(flow: Flow, step: number | 'done', status: Status = 'not_started', extra: Partial<Position> = {}): Position {
  const name = step === 'done' ? 'Done' : stepByNumber(flow, step)!.name;
  return { flow: flow.id, step, name, status, subStep: '0', retryCount: 0, cycle: 1, ...extra };
}
