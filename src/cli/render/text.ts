/** Text for a person or an agent reading every turn: short, and the next command always spelled out. */
import { evidenceFor, hasArtifacts, isSettled } from '../../engine/evidence.js';
import { formatProblem, type InputError } from '../../errors.js';
import { loopStart, stepByNumber, type Decision, type Flow, type Step, type Then } from '../../flow/model.js';
import { MAX_RETRIES, type Position } from '../../state/position.js';
import { currentStep, type View } from '../view.js';

const RULE = '══════════════════════════════════════════════';

export function box(title: string, body: string[], footer: string[]): string {
  return [RULE, ` ${title}`, RULE, ...body.map((l) => ` ${l}`), RULE, ...footer.map((l) => ` ${l}`), RULE].join('\n');
}

export function decisionBox(decision: Decision): string {
  return (
    box(
      `DECISION REQUIRED: ${decision.question}`,
      decision.options.map((o) => `${o.letter}) ${o.choice}`),
      [`Recommendation: ${decision.recommendation.letter} — ${decision.recommendation.reason}`],
    ) + `\nAnswer with: autopilot decide <${decision.options.map((o) => o.letter).join('|')}>`
  );
}

const stepLabel = (step: Step) => `${step.number} ${step.name}`;

function where(position: Position, flow: Flow): string {
  if (position.step === 'done') return `${flow.id}: done`;
  const cycle = loopStart(flow) !== undefined ? `, cycle ${position.cycle}` : '';
  return `step ${position.step} of ${flow.steps.length} · ${position.name} (${flow.id}${cycle})`;
}

function driftLines(view: View): string[] {
  const suffix = view.repaired ? 'repaired and journaled' : 'not repaired: `status` never writes; `autopilot next` repairs it';
  return view.drift.map((d) => `! ${d.message} (${suffix})`);
}

/** What follows the current step, in words; a following step whose condition is known not to hold is named as passed over. */
function thenText(view: View, step: Step): string {
  const { flow } = view;
  const cycle = view.position.cycle;
  const then: Then = step.then;
  const next = stepByNumber(flow, step.number + 1);
  switch (then.kind) {
    case 'next': {
      if (!next) return 'the end of the flow';
      const ev = evidenceFor(view.evidence, next.number);
      if (next.runs.kind === 'if' && ev.conditionMet === false && next.then.kind === 'next') {
        const after = stepByNumber(flow, next.number + 1);
        return `step ${stepLabel(next)} is passed over (no \`${next.runs.pattern}\`)${after ? `, then step ${stepLabel(after)}${runsNote(after)}` : ''}`;
      }
      return `step ${stepLabel(next)}${runsNote(next)}`;
    }
    case 'boundary':
      return next ? `session boundary; step ${stepLabel(next)} in a new conversation` : 'the end of the flow';
    case 'decision':
      return `a decision: ${flow.decisions[then.id]?.question ?? then.id}`;
    case 'loop':
      return `cycle ${cycle + 1}, from step ${stepLabel(stepByNumber(flow, then.to)!)}`;
    case 'end':
      return 'the end of the flow';
  }
}

function runsNote(step: Step): string {
  if (step.runs.kind === 'optional') return ' (optional)';
  if (step.runs.kind === 'if') return ` (if \`${step.runs.pattern}\` exists)`;
  return '';
}

function progress(view: View): string {
  return view.flow.steps
    .map((step) => {
      const ev = evidenceFor(view.evidence, step.number);
      const mark = step.number === view.position.step ? '▶' : hasArtifacts(ev) ? '✓' : isSettled(step, ev) ? '↷' : '·';
      return `${mark}${step.number}`;
    })
    .join(' ');
}

export function statusText(view: View): string {
  const { flow, position } = view;
  const step = currentStep(view);
  const lines = [`Autopilot · ${flow.title}`];
  if (!step) lines.push(`Step      done: all ${flow.steps.length} steps of ${flow.id} are finished`);
  else {
    const cycle = loopStart(flow) !== undefined ? ` · cycle ${position.cycle}` : '';
    lines.push(`Step      ${step.number} of ${flow.steps.length} · ${step.name}${cycle}`);
    lines.push(`Status    ${position.status}${position.subStep !== '0' ? ` · sub-step ${position.subStep}` : ''}`);
    lines.push(`Retries   ${position.retryCount} of ${MAX_RETRIES}`);
    const waiting = position.status === 'completed' || position.status === 'skipped';
    lines.push(`Next      ${waiting || position.status === 'failed' ? nextForStop(view, step) : `when done: ${thenText(view, step)}`}`);
  }
  lines.push(`Progress  ${progress(view)}`);
  const problems = driftLines(view);
  lines.push(problems.length === 0 ? 'Problems  none' : 'Problems', ...problems.map((p) => `  ${p}`));
  lines.push(`Source    ${view.source}`);
  return lines.join('\n');
}

function nextForStop(view: View, step: Step): string {
  if (view.position.status === 'failed') return `failed ${MAX_RETRIES} times: a person runs \`autopilot ack\``;
  return step.then.kind === 'decision' ? `${thenText(view, step)} → \`autopilot next\` shows it` : thenText(view, step);
}

function workText(view: View, action: 'start' | 'resume' | 'retry'): string[] {
  const { position, work } = view;
  const lines = [`▶ ${action === 'start' ? 'Start' : action === 'resume' ? 'Resume' : 'Retry'} ${where(position, view.flow)}`];
  if (position.subStep !== '0') lines.push(`  Resume at sub-step: ${position.subStep}`);
  if (position.retryCount > 0) lines.push(`  Attempt ${position.retryCount + 1} of ${MAX_RETRIES} (${position.retryCount} failed)`);
  if (work) {
    lines.push(`  Read:      ${work.skill}${work.skillExists ? '' : ' (missing!)'}`);
    lines.push(`  Done when: ${work.doneWhen.join(', ')}`);
  }
  lines.push('  Progress:  autopilot substep "<n — name>"', '  Finished:  autopilot done      Failed: autopilot fail --reason "<why>"');
  return lines;
}

export function outcomeText(view: View): string {
  const { outcome, position, flow } = view;
  const lines = driftLines(view);
  const acted = view.acted ? `step ${stepLabel(view.acted)}` : 'the step';
  for (const p of view.passedOver ?? []) lines.push(`↷ Passed over step ${p.step} ${p.name}: ${p.reason}`);
  switch (outcome?.kind) {
    case 'work':
      lines.push(...workText(view, outcome.action));
      break;
    case 'advanced':
      lines.push(view.answer ? `✓ Decided: ${view.answer}` : `✓ ${view.command === 'skip' ? 'Skipped' : 'Completed'} ${acted}.`);
      lines.push(`Next: ${where(position, flow)} — run \`autopilot next\``);
      break;
    case 'complete':
      lines.push(view.command === 'next' ? `✓ ${flow.id} is done: nothing left to do.` : `✓ Completed ${acted}. ${flow.id} is done.`);
      break;
    case 'recorded':
      lines.push(recordedText(view));
      break;
    case 'decision':
      if (view.command !== 'next') lines.push(`✓ ${view.command === 'skip' ? 'Skipped' : 'Completed'} ${acted}.`);
      lines.push(decisionBox(outcome.decision));
      break;
    case 'boundary': {
      const after = stepByNumber(flow, outcome.after)!;
      lines.push(
        box(
          `SESSION BOUNDARY: ${after.name} is done`,
          [`Next: ${where(position, flow)}, in a new conversation.`],
          ['Stop here. In a fresh session, run `autopilot next`.'],
        ),
      );
      break;
    }
    case 'failed':
      lines.push(
        box(
          `STEP FAILED ${MAX_RETRIES} TIMES: ${where(position, flow)}`,
          [...(view.reason ? [`Last reason: ${view.reason}`] : []), 'autopilot will not try this step again until a person has looked at it.'],
          ['A person runs: autopilot ack   (then `autopilot next` tries again)'],
        ),
      );
      break;
    case 'refused':
      lines.push(formatProblem(outcome.problem));
      break;
    case undefined:
      break;
  }
  return lines.join('\n');
}

function recordedText(view: View): string {
  const { position, flow } = view;
  switch (view.command) {
    case 'fail':
      return `✗ Attempt ${position.retryCount} of ${MAX_RETRIES} failed at ${where(position, flow)}${view.reason ? `: ${view.reason}` : ''}. Run \`autopilot next\` to try again.`;
    case 'ack':
      return `✓ Acknowledged: ${where(position, flow)} may be tried again (${MAX_RETRIES} attempts). Run \`autopilot next\`.`;
    default:
      return `✓ Sub-step recorded: ${position.subStep} (${where(position, flow)})`;
  }
}

export function errorText(error: InputError | Error): string {
  if ('problems' in error) {
    const e = error as InputError;
    return [e.problems.map(formatProblem).join('\n'), ...(e.hint ? [e.hint] : [])].join('\n');
  }
  return `autopilot: internal error: ${error.message}`;
}
