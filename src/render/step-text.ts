/**
 * The text the seven step commands answer with (`next`, `done`, `fail`,
 * `skip`, `decide`, `ack`, `substep`; `commands/step-command.ts` renders
 * it): what was recorded, the work to do next, or the stop that waits for a
 * person, with the next command always spelled out.
 */
import type { Finding } from '../evidence/types.js';
import { formatProblem } from '../errors.js';
import { boundaryDecision } from '../engine/boundary.js';
import { loopStart, stepByNumber, type Decision, type Flow } from '../formats/flow/model.js';
import { failedTimes, MAX_RETRIES, type Position } from '../formats/pointer/position.js';
import { currentStep, type BatchView, type View } from '../app/views/view.js';
import { alreadyText, box, driftLines, forkLines, lastActionLine, oneLine, progress, safe, stepLabel } from './text.js';

export function decisionBox(decision: Decision): string {
  return (
    box(
      `DECISION REQUIRED: ${decision.question}`,
      decision.options.map((o) => `${o.letter}) ${o.choice}`),
      [`Recommendation: ${decision.recommendation.letter} — ${decision.recommendation.reason}`],
    ) + `\nA person answers: autopilot decide <${decision.options.map((o) => o.letter).join('|')}>`
  );
}

function where(position: Position, flow: Flow): string {
  if (position.step === 'done') return `${flow.id}: done`;
  const cycle = loopStart(flow) !== undefined ? `, cycle ${position.cycle}` : '';
  return `step ${position.step} of ${flow.steps.length} · ${position.name} (${flow.id}${cycle})`;
}

function workText(view: View, action: 'start' | 'resume' | 'retry'): string[] {
  const { position, work } = view;
  const lines = [`▶ ${action === 'start' ? 'Start' : action === 'resume' ? 'Resume' : 'Retry'} ${where(position, view.flow)}`];
  if (position.subStep !== '0') lines.push(`  Resume at sub-step: ${oneLine(position.subStep)}`);
  if (position.retryCount > 0) lines.push(`  Attempt ${position.retryCount + 1} of ${MAX_RETRIES} (${position.retryCount} failed)`);
  if (work) {
    lines.push(`  Read:      ${work.skill}${work.skillExists ? '' : ' (missing!)'}`);
    lines.push(`  Done when: ${work.doneWhen.join(', ')}`);
    if (work.write.length > 0) lines.push(`  Write:     ${work.write.map(oneLine).join(', ')}`);
    // A pattern may match many files: the text names a few (`--json` has them all).
    if (work.have.length > 0)
      lines.push(`  Have:      ${work.have.slice(0, 4).map(oneLine).join(', ')}${work.have.length > 4 ? ` and ${work.have.length - 4} more` : ''}`);
  }
  for (const t of view.templates ?? []) lines.push(`  Template:  ${t.file} from ${t.template}`);
  if (view.reads) lines.push(`  Reads:     ${view.reads.join(', ')} (the repository's Document output: read it, do not document again)`);
  if (view.batch) lines.push(...batchLines(view.batch));
  lines.push('  Progress:  autopilot substep "<n — name>"', '  Finished:  autopilot done      Failed: autopilot fail --reason "<why>"');
  return lines;
}

/** Re-entry (the first `next` of a session): where the work stands, the last action and the problems, above the next step. */
function reentryLines(view: View): string[] {
  const step = currentStep(view);
  const where = step ? `step ${step.number} of ${view.flow.steps.length} · ${step.name} · ${view.position.status}` : `${view.flow.id} done`;
  const problems = view.drift.length + (view.notices?.length ?? 0);
  return [
    `Autopilot · ${view.flow.title}`,
    `Where     ${where}`,
    `Last      ${view.lastAction ? lastActionLine(view.lastAction) : 'none recorded'}`,
    `Progress  ${progress(view)}`,
    `Problems  ${problems === 0 ? 'none' : `${problems}, below`}`,
    '',
  ];
}

/** A step command's answer: what it made on the way (a commit, a checkpoint, steps passed over), then what its outcome asks for. */
export function outcomeText(view: View): string {
  return [...madeLines(view), ...outcomeLines(view)].join('\n');
}

/** Above the outcome: where the work stands (re-entry), what disagrees, the commit and checkpoint made, the steps passed over. */
function madeLines(view: View): string[] {
  const lines = view.reentry ? [...reentryLines(view), ...driftLines(view)] : driftLines(view);
  if (view.committed) lines.push(`✓ Progress commit ${view.committed.slice(0, 8)}`);
  if (view.checkpoint) lines.push(`✓ Checkpoint ${view.checkpoint} (a person can return to it: \`autopilot restore ${view.checkpoint}\`)`);
  for (const p of view.passedOver ?? []) lines.push(`↷ Passed over step ${p.step} ${p.name}: ${p.reason}`);
  return lines;
}

/** The outcome in words, with the next command spelled out. */
function outcomeLines(view: View): string[] {
  const { outcome, position, flow } = view;
  const acted = view.acted ? `step ${stepLabel(view.acted)}` : 'the step';
  switch (outcome?.kind) {
    case 'work':
      return [...workText(view, outcome.action), ...foundLines(view)];
    case 'advanced':
      return advancedLines(view, acted);
    case 'complete':
      return [
        view.command === 'next' ? `✓ ${flow.id} is done: nothing left to do.` : `✓ Completed ${acted}. ${flow.id} is done.`,
        'Tell the person the flow is complete; run nothing more for it.',
      ];
    case 'recorded':
      return [recordedText(view)];
    case 'decision': {
      const lines: string[] = [];
      if (view.again) lines.push(alreadyText(view, outcome.after, 'the decision below still waits for a person'));
      else if (view.command !== 'next') lines.push(`✓ ${view.command === 'skip' ? 'Skipped' : 'Completed'} ${acted}.`);
      return [...lines, decisionBox(outcome.decision)];
    }
    case 'boundary':
      return boundaryLines(view, outcome.after, outcome.answered);
    case 'fork':
      return [...forkLines(outcome.reasons, outcome.sides), decisionBox(outcome.decision)];
    case 'failed':
      return [
        box(
          `STEP ${failedTimes(position.retryCount).toUpperCase()}: ${where(position, flow)}`,
          [...(view.reason ? [`Last reason: ${oneLine(view.reason)}`] : []), 'autopilot will not try this step again until a person has looked at it.'],
          ['A person runs: autopilot ack   (then `autopilot next` tries again)'],
        ),
      ];
    case 'refused':
      return [safe(formatProblem(outcome.problem)), ...(outcome.findings ?? []).map((f) => safe(findingText(view.repo.docsName, f)))];
    case 'duplicate':
      return [
        `= Already recorded (journal event ${outcome.of}, ${outcome.event}): nothing written again.`,
        `Now: ${where(position, flow)} — run \`autopilot next\``,
      ];
    case undefined:
      return [];
  }
}

/** `next` sent to a step whose files are on disk but fail its checks: each finding, and what to do. */
function foundLines(view: View): string[] {
  if (!view.findings) return [];
  return [
    `✗ Its files were found on disk, but they do not pass its checks (${view.findings.length}): write them as below, then \`autopilot done\``,
    ...view.findings.map((f) => safe(findingText(view.repo.docsName, f))),
  ];
}

/** The pointer moved on: what finished (or what was decided), and the step now current. */
function advancedLines(view: View, acted: string): string[] {
  const { position, flow } = view;
  // B at a session boundary finishes nothing: the step after it goes on in the conversation that reached it.
  if (view.command === 'decide' && view.boundary) {
    return [`✓ Decided: ${view.answer ?? 'B'} (nothing was completed)`, `Next: ${where(position, flow)}, in this same conversation — run \`autopilot next\``];
  }
  return [
    view.answer ? `✓ Decided: ${view.answer}` : `✓ ${view.command === 'skip' ? 'Skipped' : 'Completed'} ${acted}.`,
    `Next: ${where(position, flow)} — run \`autopilot next\``,
  ];
}

/** A session boundary: the step that finished, then either the stop after a person's A, or the summary and the question. */
function boundaryLines(view: View, afterNumber: number, answered: 'A' | undefined): string[] {
  const { position, flow } = view;
  const after = stepByNumber(flow, afterNumber)!;
  const lines: string[] = [];
  if (view.again) lines.push(alreadyText(view, afterNumber, 'the session boundary below still waits'));
  else if (view.acted && view.command !== 'next' && view.command !== 'decide') lines.push(`✓ Completed step ${stepLabel(after)}.`);
  if (answered) {
    lines.push(
      box(
        `A NEW CONVERSATION FOR ${where(position, flow)}`,
        ['Stop here: this conversation is done.'],
        ['Start a new conversation and run `/autopilot` (or `autopilot next`).'],
      ),
    );
    return lines;
  }
  return [...lines, ...summaryLines(view), decisionBox(boundaryDecision(flow, after.number, position.step))];
}

/** One finding of `done`'s checks: where, what is wrong, what to write. */
function findingText(docs: string, f: Finding): string {
  const where = `${docs}/${f.file}${f.line !== undefined ? `:${f.line}` : ''}${f.heading ? ` (## ${f.heading})` : ''}`;
  return `  ✗ ${where}: ${oneLine(f.message)}\n      write: ${oneLine(f.write)}`;
}

/** The summary above the boundary box: the decompose step's tasks, batches and points, or why they could not be read. */
function summaryLines(view: View): string[] {
  const s = view.summary;
  if (!s) return [];
  if ('problem' in s) return [`Summary: ${oneLine(s.problem)} (${s.file})`, `  The agent: ${oneLine(s.fix)}`];
  return [`Summary: ${s.tasks} tasks in ${s.batches} batches, ${s.points} complexity points (${s.file})`];
}

function recordedText(view: View): string {
  const { position, flow } = view;
  switch (view.command) {
    case 'fail':
      return `✗ Attempt ${position.retryCount} of ${MAX_RETRIES} failed at ${where(position, flow)}${view.reason ? `: ${oneLine(view.reason)}` : ''}. Run \`autopilot next\` to try again.`;
    case 'ack':
      return `✓ Acknowledged: ${where(position, flow)} may be tried again (${MAX_RETRIES} attempts). Run \`autopilot next\`.`;
    case 'done': {
      const b = view.batch;
      if (!b?.finished) return `✓ Recorded (${where(position, flow)})`;
      return [
        `✓ Batch ${b.finished.batch} of ${b.of} done (tasks ${b.finished.tasks.map(oneLine).join(', ')}).`,
        `Next: batch ${b.batch} of ${b.of} of ${where(position, flow)} — run \`autopilot next\``,
      ].join('\n');
    }
    default:
      return `✓ Sub-step recorded: ${oneLine(position.subStep)} (${where(position, flow)})`;
  }
}

/** The batch handed out: its tasks, each with its file and criteria, and the report \`done\` checks. */
function batchLines(b: BatchView): string[] {
  const lines = [`  Batch:     ${b.batch} of ${b.of} from ${oneLine(b.index)}`];
  for (const t of b.tasks)
    lines.push(
      `    ${oneLine(t.id)} ${oneLine(t.name)}${t.file ? ` · ${oneLine(t.file)}` : ''}${t.criteria.length > 0 ? ` · ${t.criteria.map(oneLine).join(', ')}` : ''}`,
    );
  lines.push(`  Report:    ${oneLine(b.report)} (its tasks, the criteria they cover, a Result from \`autopilot exec\`)`);
  if (b.reported) lines.push(`  Reported:  ${b.reported.map(oneLine).join(', ')} (already in the report: check them, then go on with the rest)`);
  return lines;
}
