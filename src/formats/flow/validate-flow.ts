/**
 * Checks a flow as a whole, after each row has been read on its own: the
 * rules that make every step's completion decidable from files alone, and
 * that every step the front matter names (`checkpoint_before`) is one.
 */
import type { Problem } from '../../errors.js';
import { CYCLE_PLACEHOLDER, type Flow, type Step } from './model.js';

const usesCycle = (patterns: string[]) => patterns.some((p) => p.includes(CYCLE_PLACEHOLDER));
const patternsOf = (step: Step) => [...step.doneWhen, ...(step.runs.kind === 'if' ? [step.runs.pattern] : [])];

/** Every rule of the flow as a whole, in order: how each step ends, `{cycle}` in and out of the loop, patterns of their own, decisions used, checkpoint marks. */
export function validateFlow(flow: Flow): Problem[] {
  return [...thenProblems(flow), ...cycleProblems(flow), ...sharedPatterns(flow), ...unusedDecisions(flow), ...unknownCheckpoints(flow)];
}

const problemAt = (flow: Flow, step: Step, message: string, expected: string, received: string): Problem => ({
  file: flow.file,
  line: step.line,
  message,
  expected,
  received,
});

/** Only the last step ends or loops, and it does one or the other; a decision named is declared; a loop goes back to a step that always runs. */
function thenProblems(flow: Flow): Problem[] {
  const problems: Problem[] = [];
  const at = (step: Step, message: string, expected: string, received: string) => problems.push(problemAt(flow, step, message, expected, received));
  const last = flow.steps[flow.steps.length - 1]!;
  for (const step of flow.steps) {
    const then = step.then;
    const isLast = step === last;
    if (isLast && (then.kind === 'next' || then.kind === 'boundary')) {
      at(step, `the last step (${step.number} ${step.name}) must end the flow or loop`, '`end` or `loop to step N`', then.kind);
    }
    if (!isLast && (then.kind === 'end' || then.kind === 'loop')) {
      at(
        step,
        `step ${step.number} ${then.kind === 'end' ? 'ends' : 'loops'} the flow, so the steps after it can never run`,
        '`end` and `loop to step N` only on the last step',
        then.kind,
      );
    }
    if (then.kind === 'decision' && !flow.decisions[then.id]) {
      at(
        step,
        `step ${step.number} names the decision \`${then.id}\`, which is not declared`,
        `a \`### \`${then.id}\`: question\` under \`## Decisions\``,
        `declared: ${Object.keys(flow.decisions).join(', ') || 'none'}`,
      );
    }
    if (then.kind === 'loop') {
      const target = flow.steps[then.to - 1];
      if (!target || then.to > step.number)
        at(step, `step ${step.number} loops to step ${then.to}, which is not an earlier step`, `a step from 1 to ${step.number}`, String(then.to));
      else if (target.runs.kind !== 'always')
        at(target, `the loop starts at step ${target.number}, which must always run (its artifacts number the cycles)`, '`always`', target.runs.kind);
    }
  }
  return problems;
}

/** In the loop every done-when pattern holds `{cycle}`; outside it, no pattern does. */
function cycleProblems(flow: Flow): Problem[] {
  const problems: Problem[] = [];
  const at = (step: Step, message: string, expected: string, received: string) => problems.push(problemAt(flow, step, message, expected, received));
  const last = flow.steps[flow.steps.length - 1]!;
  const loopFrom = last.then.kind === 'loop' ? last.then.to : undefined;
  // A loop that points nowhere has been reported above; judging `{cycle}` against it would only add noise.
  const loopValid = loopFrom === undefined || (loopFrom >= 1 && loopFrom <= last.number);
  for (const step of loopValid ? flow.steps : []) {
    const inLoop = loopFrom !== undefined && step.number >= loopFrom;
    if (inLoop && !step.doneWhen.every((p) => p.includes(CYCLE_PLACEHOLDER))) {
      at(
        step,
        `step ${step.number} runs once per cycle, so each of its done-when patterns must hold \`{cycle}\` (otherwise cycle 1's files would prove later cycles done)`,
        '`03_implementation/cycle-{cycle}/report.md`',
        step.doneWhen.join(', '),
      );
    }
    if (!inLoop && usesCycle(patternsOf(step))) {
      at(
        step,
        `step ${step.number} is outside any loop, so \`{cycle}\` has no meaning in its patterns`,
        'a pattern without `{cycle}`',
        patternsOf(step).join(', '),
      );
    }
  }
  return problems;
}

/** Two steps sharing a pattern could not be told apart on disk (Implement Tests vs Implement). */
function sharedPatterns(flow: Flow): Problem[] {
  const problems: Problem[] = [];
  const at = (step: Step, message: string, expected: string, received: string) => problems.push(problemAt(flow, step, message, expected, received));
  const owner = new Map<string, Step>();
  for (const step of flow.steps) {
    for (const pattern of step.doneWhen) {
      const first = owner.get(pattern);
      if (first)
        at(
          step,
          `steps ${first.number} and ${step.number} share the done-when pattern \`${pattern}\`, so the folder could not tell which is done`,
          'a pattern of its own for each step',
          pattern,
        );
      else owner.set(pattern, step);
    }
  }
  return problems;
}

/** Every decision declared is named by a step's Then. */
function unusedDecisions(flow: Flow): Problem[] {
  const problems: Problem[] = [];
  const used = new Set(flow.steps.flatMap((s) => (s.then.kind === 'decision' ? [s.then.id] : [])));
  for (const decision of Object.values(flow.decisions)) {
    if (!used.has(decision.id)) {
      problems.push({
        file: flow.file,
        line: decision.line,
        message: `the decision \`${decision.id}\` is declared but no step's Then names it`,
        expected: `a step whose Then is \`decision \`${decision.id}\`\``,
        received: 'no such step',
      });
    }
  }
  return problems;
}

/** Every step `checkpoint_before` names is a step of the flow. */
function unknownCheckpoints(flow: Flow): Problem[] {
  const problems: Problem[] = [];
  const names = new Set(flow.steps.map((s) => s.name));
  for (const mark of flow.checkpointBefore ?? []) {
    if (names.has(mark.step)) continue;
    problems.push({
      file: flow.file,
      line: mark.line,
      message: `\`checkpoint_before\` names \`${mark.step}\`, no step of ${flow.id}`,
      expected: `a step name: ${flow.steps.map((s) => s.name).join(', ')}`,
      received: mark.step,
    });
  }
  return problems;
}
