/** Text for a person or an agent reading every turn: short, and the next command always spelled out. */
import type { Finding } from '../evidence/types.js';
import { acCoverageLine } from '../evidence/ac-coverage.js';
import type { LastAction } from '../formats/pointer/parse-pointer.js';
import { evidenceFor, hasArtifacts, isSettled } from '../engine/evidence.js';
import { CodedError, formatProblem, HeldError, InputError, knownError, type Problem } from '../errors.js';
import type { CheckResult } from '../app/check.js';
import type { Seam } from '../app/log.js';
import type { StampedEntry } from '../formats/journal-line.js';
import { formatAge } from '../engine/lease.js';
import { boundaryDecision } from '../engine/boundary.js';
import { loopStart, stepByNumber, type Decision, type Flow, type Step, type Then } from '../flow/model.js';
import { failedTimes, MAX_RETRIES, type Position } from '../formats/pointer/position.js';
import { currentStep, type BatchView, type View } from '../app/view.js';
import { batchesLine } from '../engine/task-batches.js';
import { describeRecord, rangeText, type SideName, type SideSummary } from '../engine/fork.js';
import { isBidiControl } from '../formats/bidi.js';
import { summariseUnreadable } from './journal-problems.js';

const RULE = '══════════════════════════════════════════════';

/**
 * Text from a repository, an agent or a person, made safe for a terminal:
 * control characters (escape sequences, line breaks) are shown escaped, so
 * nothing can move the cursor or forge a line; bidirectional controls too
 * (`\u202e`), so nothing can reorder what the line shows.
 */
export function safe(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === '\n') out += '\n';
    else if (code < 0x20 || (code >= 0x7f && code < 0xa0)) {
      out += ch === '\t' ? '\\t' : ch === '\r' ? '\\r' : `\\x${code.toString(16).padStart(2, '0')}`;
    } else if (code === 0x2028 || code === 0x2029 || isBidiControl(code)) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return out;
}

/** One line of text, whatever it holds. */
const line = (text: string) => safe(text).replaceAll('\n', '\\n');

const LOG_BASE_KEYS = new Set([
  'prev',
  'unsettled',
  'seq',
  'at',
  'session',
  'event',
  'flow',
  'cycle',
  'step',
  'name',
  'step_index',
  'index',
  'status',
  'retry_count',
  'key',
  'pointer',
  // The index a line carries repeats what the events before it say: not news.
  'journal_index',
]);

/** A pinned step list is long: the log names it by flow and hash. */
function pinnedLabel(value: unknown): string {
  const p = value as { id?: unknown; hash?: unknown; steps?: unknown[] } | null;
  return `${String(p?.id)}@${String(p?.hash).slice(0, 8)} (${Array.isArray(p?.steps) ? p.steps.length : '?'} steps)`;
}

/** The skills a run pins are long too: the log names them. */
const skillsLabel = (value: unknown) => (typeof value === 'object' && value !== null ? Object.keys(value).join(',') : String(value));

export function logLine(e: StampedEntry): string {
  const details = Object.entries(e)
    .filter(([key]) => !LOG_BASE_KEYS.has(key))
    .map(
      ([key, value]) =>
        `${key}=${key === 'pinned' ? pinnedLabel(value) : key === 'skills' ? skillsLabel(value) : typeof value === 'string' ? value : JSON.stringify(value)}`,
    )
    .join(' ');
  const at = e.step === 'done' ? 'done' : `step ${e.step} ${e.name}`;
  const seq = typeof e.seq === 'number' ? `#${e.seq} ` : '';
  return line(
    `${seq}${String(e.at).replace(/\.\d+Z$/, 'Z')}  ${String(e.event).padEnd(20)} ${e.flow}#${e.cycle} ${at}  [${e.status}, retries ${e.retry_count}]${details ? `  ${details}` : ''}  (${e.session})`,
  );
}

/** A box a person reads at a terminal: every line within 80 columns, a long one carried on under itself. */
export function box(title: string, body: string[], footer: string[]): string {
  const lines = (ls: string[]) => ls.flatMap((l) => hanging(` ${l}`, 4));
  return [RULE, ...lines([title]), RULE, ...lines(body), RULE, ...lines(footer), RULE].join('\n');
}

export function decisionBox(decision: Decision): string {
  return (
    box(
      `DECISION REQUIRED: ${decision.question}`,
      decision.options.map((o) => `${o.letter}) ${o.choice}`),
      [`Recommendation: ${decision.recommendation.letter} — ${decision.recommendation.reason}`],
    ) + `\nA person answers: autopilot decide <${decision.options.map((o) => o.letter).join('|')}>`
  );
}

const stepLabel = (step: Step) => `${step.number} ${step.name}`;

function where(position: Position, flow: Flow): string {
  if (position.step === 'done') return `${flow.id}: done`;
  const cycle = loopStart(flow) !== undefined ? `, cycle ${position.cycle}` : '';
  return `step ${position.step} of ${flow.steps.length} · ${position.name} (${flow.id}${cycle})`;
}

function driftLines(view: View): string[] {
  // One thing each: the message says what disagrees, the suffix whether it was repaired (status never writes, so never).
  const suffix = view.repaired ? 'repaired and journaled' : '`autopilot next` repairs it; `status` never writes';
  // A fork waiting for a person is neither repaired nor journaled: it is said as it is, with its question.
  // What is held for a person says itself how it ends (`autopilot adopt`, or put back): no repair to add; so do lost events.
  const said = (d: View['drift'][number]) =>
    (d.kind === 'journal-fork' && view.fork) || d.kind === 'held-edit' || d.kind === 'held-criteria' || d.kind === 'journal-gone' || d.kind === 'journal-behind'
      ? `! ${line(d.message)}`
      : `! ${line(d.message)} (${suffix})`;
  return [...view.drift.map(said), ...(view.notices ?? []).map((n) => `! ${line(n)}`)];
}

const guardLines = (view: View) => (view.guards ?? []).map((g) => `! Guard off: ${line(g)}`);

/** Everything wrong that a view knows of, a line each: drift, notices, guards that are off. */
export function problemLines(view: View): string[] {
  return [...driftLines(view), ...guardLines(view)];
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
      const mark = step.number === view.position.step ? '▶' : hasArtifacts(ev) || ev.waiver === 'forced' ? '✓' : isSettled(step, ev) ? '↷' : '·';
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
    lines.push(`Status    ${position.status}${position.subStep !== '0' ? ` · sub-step ${line(position.subStep)}` : ''}`);
    lines.push(`Retries   ${position.retryCount} of ${MAX_RETRIES}`);
    const waiting = position.status === 'completed' || position.status === 'skipped';
    if (view.fork) {
      lines.push(...wrapped('Next', 'the journal forked: a person keeps one side (below; `autopilot next` shows both)', '   '));
    } else if (view.boundary) {
      const reachedBy = view.boundary.session;
      lines.push(
        ...wrapped(
          'Next',
          `session boundary after step ${view.boundary.after} (reached by ${reachedBy}): a person answers, or a new conversation goes on`,
          '   ',
        ),
      );
    } else if (view.stopped) {
      const who = view.stopped.session;
      lines.push(...wrapped('Next', `step ${step.number} in a new conversation: a person answered A, so ${who} stops at the boundary`, '   '));
    } else if (view.pending) {
      const waits =
        view.pending.kind === 'failed'
          ? `${failedTimes(position.retryCount)}: a person looks at it, then answers`
          : 'a person answers the decision below; the agent waits for it';
      lines.push(...wrapped('Next', waits, '   '));
    } else lines.push(`Next      ${waiting || position.status === 'failed' ? nextForStop(view, step) : `when done: ${thenText(view, step)}`}`);
    lines.push(...pendingLines(view));
  }
  if (view.lastAction) lines.push(...wrapped('Last', lastActionLine(view.lastAction)));
  lines.push(`Progress  ${progress(view)}`);
  if (view.batches) lines.push(...wrapped('Batches', batchesLine(view.batches), '   '));
  if (view.acceptance) lines.push(...wrapped('AC', acCoverageLine(view.acceptance), '   '));
  if (view.fork) lines.push(...forkLines(view.fork.reasons, view.fork.sides));
  // A guard that is off (a lock in the way, a folder step commands cannot write) is a problem like any drift: never "none" beside it.
  const problems = [...driftLines(view), ...guardLines(view)];
  lines.push(problems.length === 0 ? 'Problems  none' : 'Problems', ...problems.flatMap((p) => hanging(`  ${p}`, 4)));
  lines.push(`Source    ${view.source}`);
  const lease = view.lease;
  if (lease?.holder) {
    const seen = lease.aheadMs
      ? `its heartbeat ${formatAge(lease.aheadMs)} in the future (a clock ahead, or this one set back: a person decides)`
      : lease.otherMachine
        ? `its last heartbeat ${line(lease.holder.heartbeat)} by its own clock`
        : `last seen ${formatAge(lease.ageMs ?? 0)} ago`;
    const quiet = !lease.mine && lease.seen?.since ? `, quiet since first seen at ${lease.seen.since} by this machine` : '';
    const who = `${line(lease.holder.session)} on ${line(lease.holder.host)}, ${seen}${quiet}`;
    const note = lease.mine
      ? ' (this session)'
      : lease.gone
        ? ' — its conversation has ended: the next step command takes the lease over'
        : lease.stale
          ? ' — looks stale: its lease may be taken over by the next step command'
          : '';
    lines.push(...wrapped('Driver', `${who}${note}`));
  } else if (lease?.problem) lines.push(...wrapped('Driver', `? ${lease.problem} (a person takes over with \`--take-over\`)`));
  if (view.gitOff) {
    // What having no git costs, and the fix, not the engine's word for it.
    const fix = view.gitOff === 'not a git repository' ? '`git init` and a first commit turn them on' : 'install git to turn them on';
    const what = view.gitOff === 'not a git repository' ? 'this folder is not a git repository' : view.gitOff;
    lines.push(...wrapped('Git', `${what}: steps are not committed, and a lost pointer has no git history to be recovered from (${fix})`));
  }
  if (view.commits && !view.commits.on && !view.gitOff) lines.push(...wrapped('Commits', `no progress commits: ${view.commits.reason}`));
  if (view.owedCommit !== undefined) {
    const what = view.owed ? ` (${view.owed.about}) is owed, holding ${view.owed.holds}` : ' is owed';
    lines.push(...wrapped('Commit', `the progress commit of event ${view.owedCommit}${what}: the next command that writes makes it, once git can take it`));
  }
  return lines.join('\n');
}

/** The width a person's terminal is assumed to have: `status` keeps its lines within it. */
const WIDTH = 80;
const LABEL = 10;

/** `text` after a label of ten columns, wrapped at word boundaries to 80 columns; the lines after the first indented by `hang` more. */
function wrapped(label: string, text: string, hang = ''): string[] {
  const out: string[] = [];
  let current = label.padEnd(LABEL);
  let fresh = true;
  for (const word of line(text).split(' ')) {
    if (!fresh && current.length + 1 + word.length > WIDTH) {
      out.push(current);
      current = ' '.repeat(LABEL) + hang + word;
    } else current += (fresh ? '' : ' ') + word;
    fresh = false;
  }
  out.push(current);
  return out;
}

/** A line already made (and made safe), wrapped at word boundaries to 80 columns, the lines after the first indented by `indent`. */
function hanging(text: string, indent: number): string[] {
  const lead = /^ */.exec(text)![0];
  const [first = '', ...rest] = text.slice(lead.length).split(' ');
  const out: string[] = [];
  let current = lead + first;
  for (const word of rest) {
    if (current.length + 1 + word.length > WIDTH) {
      out.push(current);
      current = ' '.repeat(indent) + word;
    } else current += ` ${word}`;
  }
  out.push(current);
  return out;
}

/**
 * The question waiting for a person, where a person looks (`status`, the
 * SessionStart context): the question, each option on a line, the
 * recommendation with its reason, and the exact command that answers it.
 */
export function pendingLines(view: Pick<View, 'pending'>): string[] {
  const p = view.pending;
  if (!p) return [];
  const lines = wrapped('Question', p.question);
  for (const o of p.options) lines.push(...wrapped('', `${o.letter}) ${o.choice}`, '   '));
  if (p.recommendation) lines.push(...wrapped('', `Recommended: ${p.recommendation.letter} — ${p.recommendation.reason}`, '   '));
  if (p.reason !== undefined) lines.push(...wrapped('', `Last reason: ${p.reason}`, '   '));
  const others = p.options.filter((o) => o.command !== p.command).map((o) => o.command);
  const then = p.kind === 'failed' ? ' (then `autopilot next` tries again)' : others.length > 0 ? ` (or ${others.join(', or ')})` : '';
  lines.push(...wrapped('Answer', `${p.command}${then}`, '   '));
  return lines;
}

function nextForStop(view: View, step: Step): string {
  if (view.position.status === 'failed') return `${failedTimes(view.position.retryCount)}: a person runs \`autopilot ack\``;
  return step.then.kind === 'decision' ? `${thenText(view, step)} → \`autopilot next\` shows it` : thenText(view, step);
}

function workText(view: View, action: 'start' | 'resume' | 'retry'): string[] {
  const { position, work } = view;
  const lines = [`▶ ${action === 'start' ? 'Start' : action === 'resume' ? 'Resume' : 'Retry'} ${where(position, view.flow)}`];
  if (position.subStep !== '0') lines.push(`  Resume at sub-step: ${line(position.subStep)}`);
  if (position.retryCount > 0) lines.push(`  Attempt ${position.retryCount + 1} of ${MAX_RETRIES} (${position.retryCount} failed)`);
  if (work) {
    lines.push(`  Read:      ${work.skill}${work.skillExists ? '' : ' (missing!)'}`);
    lines.push(`  Done when: ${work.doneWhen.join(', ')}`);
    if (work.write.length > 0) lines.push(`  Write:     ${work.write.map(line).join(', ')}`);
    // A pattern may match many files: the text names a few (`--json` has them all).
    if (work.have.length > 0)
      lines.push(`  Have:      ${work.have.slice(0, 4).map(line).join(', ')}${work.have.length > 4 ? ` and ${work.have.length - 4} more` : ''}`);
  }
  for (const t of view.templates ?? []) lines.push(`  Template:  ${t.file} from ${t.template}`);
  if (view.batch) lines.push(...batchLines(view.batch));
  lines.push('  Progress:  autopilot substep "<n — name>"', '  Finished:  autopilot done      Failed: autopilot fail --reason "<why>"');
  return lines;
}

/** `## Last Action` in one line: what, its result, when. */
function lastActionLine(last: LastAction): string {
  return `${line(last.action)} (${last.result}, ${last.at})`;
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

export function outcomeText(view: View): string {
  const { outcome, position, flow } = view;
  const lines = view.reentry ? [...reentryLines(view), ...driftLines(view)] : driftLines(view);
  if (view.committed) lines.push(`✓ Progress commit ${view.committed.slice(0, 8)}`);
  if (view.checkpoint) lines.push(`✓ Checkpoint ${view.checkpoint} (a person can return to it: \`autopilot restore ${view.checkpoint}\`)`);
  const acted = view.acted ? `step ${stepLabel(view.acted)}` : 'the step';
  for (const p of view.passedOver ?? []) lines.push(`↷ Passed over step ${p.step} ${p.name}: ${p.reason}`);
  switch (outcome?.kind) {
    case 'work':
      lines.push(...workText(view, outcome.action));
      if (view.findings) {
        lines.push(`✗ Its files were found on disk, but they do not pass its checks (${view.findings.length}): write them as below, then \`autopilot done\``);
        for (const f of view.findings) lines.push(safe(findingText(view.repo.docsName, f)));
      }
      break;
    case 'advanced':
      // B at a session boundary finishes nothing: the step after it goes on in the conversation that reached it.
      if (view.command === 'decide' && view.boundary) {
        lines.push(`✓ Decided: ${view.answer ?? 'B'} (nothing was completed)`);
        lines.push(`Next: ${where(position, flow)}, in this same conversation — run \`autopilot next\``);
        break;
      }
      lines.push(view.answer ? `✓ Decided: ${view.answer}` : `✓ ${view.command === 'skip' ? 'Skipped' : 'Completed'} ${acted}.`);
      lines.push(`Next: ${where(position, flow)} — run \`autopilot next\``);
      break;
    case 'complete':
      lines.push(view.command === 'next' ? `✓ ${flow.id} is done: nothing left to do.` : `✓ Completed ${acted}. ${flow.id} is done.`);
      lines.push('Tell the person the flow is complete; run nothing more for it.');
      break;
    case 'recorded':
      lines.push(recordedText(view));
      break;
    case 'decision':
      if (view.again) lines.push(alreadyText(view, outcome.after, 'the decision below still waits for a person'));
      else if (view.command !== 'next') lines.push(`✓ ${view.command === 'skip' ? 'Skipped' : 'Completed'} ${acted}.`);
      lines.push(decisionBox(outcome.decision));
      break;
    case 'boundary': {
      const after = stepByNumber(flow, outcome.after)!;
      if (view.again) lines.push(alreadyText(view, outcome.after, 'the session boundary below still waits'));
      else if (view.acted && view.command !== 'next' && view.command !== 'decide') lines.push(`✓ Completed step ${stepLabel(after)}.`);
      if (outcome.answered) {
        lines.push(
          box(
            `A NEW CONVERSATION FOR ${where(position, flow)}`,
            ['Stop here: this conversation is done.'],
            ['Start a new conversation and run `/autopilot` (or `autopilot next`).'],
          ),
        );
        break;
      }
      lines.push(...summaryLines(view));
      lines.push(decisionBox(boundaryDecision(flow, after.number, position.step)));
      break;
    }
    case 'fork':
      lines.push(...forkLines(outcome.reasons, outcome.sides), decisionBox(outcome.decision));
      break;
    case 'failed':
      lines.push(
        box(
          `STEP ${failedTimes(position.retryCount).toUpperCase()}: ${where(position, flow)}`,
          [...(view.reason ? [`Last reason: ${line(view.reason)}`] : []), 'autopilot will not try this step again until a person has looked at it.'],
          ['A person runs: autopilot ack   (then `autopilot next` tries again)'],
        ),
      );
      break;
    case 'refused':
      lines.push(safe(formatProblem(outcome.problem)));
      for (const f of outcome.findings ?? []) lines.push(safe(findingText(view.repo.docsName, f)));
      break;
    case 'duplicate':
      lines.push(
        `= Already recorded (journal event ${outcome.of}, ${outcome.event}): nothing written again.`,
        `Now: ${where(position, flow)} — run \`autopilot next\``,
      );
      break;
    case undefined:
      break;
  }
  return lines.join('\n');
}

/** A command that finished nothing, at a stop it reached before: what was recorded then, and that the question still waits. */
export function alreadyText(view: Pick<View, 'flow'>, after: number, waits: string): string {
  const step = stepByNumber(view.flow, after);
  return `= Already recorded: step ${step ? stepLabel(step) : after} was completed before; nothing was written again, and ${waits}.`;
}

/** One finding of `done`'s checks: where, what is wrong, what to write. */
function findingText(docs: string, f: Finding): string {
  const where = `${docs}/${f.file}${f.line !== undefined ? `:${f.line}` : ''}${f.heading ? ` (## ${f.heading})` : ''}`;
  return `  ✗ ${where}: ${line(f.message)}\n      write: ${line(f.write)}`;
}

/** A fork's two sides above its decision: why they disagree, and where each left the work. */
function forkLines(reasons: string[], sides: Record<SideName, SideSummary>): string[] {
  const side = (s: SideSummary) => `  ${s.side}: ${describeRecord(s.position)} (${rangeText(s.seqs)}) — ${s.did.map(line).join('; ')}`;
  return [
    `✗ The journal holds two branches' work that disagree: ${reasons.map(line).join('; ')}. Nothing moves until a person keeps one side.`,
    side(sides.A),
    side(sides.B),
  ];
}

/** The summary above the boundary box: the decompose step's tasks, batches and points, or why they could not be read. */
function summaryLines(view: View): string[] {
  const s = view.summary;
  if (!s) return [];
  if ('problem' in s) return [`Summary: ${line(s.problem)} (${s.file})`, `  The agent: ${line(s.fix)}`];
  return [`Summary: ${s.tasks} tasks in ${s.batches} batches, ${s.points} complexity points (${s.file})`];
}

function recordedText(view: View): string {
  const { position, flow } = view;
  switch (view.command) {
    case 'fail':
      return `✗ Attempt ${position.retryCount} of ${MAX_RETRIES} failed at ${where(position, flow)}${view.reason ? `: ${line(view.reason)}` : ''}. Run \`autopilot next\` to try again.`;
    case 'ack':
      return `✓ Acknowledged: ${where(position, flow)} may be tried again (${MAX_RETRIES} attempts). Run \`autopilot next\`.`;
    case 'done': {
      const b = view.batch;
      if (!b?.finished) return `✓ Recorded (${where(position, flow)})`;
      return [
        `✓ Batch ${b.finished.batch} of ${b.of} done (tasks ${b.finished.tasks.map(line).join(', ')}).`,
        `Next: batch ${b.batch} of ${b.of} of ${where(position, flow)} — run \`autopilot next\``,
      ].join('\n');
    }
    default:
      return `✓ Sub-step recorded: ${line(position.subStep)} (${where(position, flow)})`;
  }
}

/** The batch handed out: its tasks, each with its file and criteria, and the report \`done\` checks. */
function batchLines(b: BatchView): string[] {
  const lines = [`  Batch:     ${b.batch} of ${b.of} from ${line(b.index)}`];
  for (const t of b.tasks)
    lines.push(`    ${line(t.id)} ${line(t.name)}${t.file ? ` · ${line(t.file)}` : ''}${t.criteria.length > 0 ? ` · ${t.criteria.map(line).join(', ')}` : ''}`);
  lines.push(`  Report:    ${line(b.report)} (its tasks, the criteria they cover, a Result from \`autopilot exec\`)`);
  if (b.reported) lines.push(`  Reported:  ${b.reported.map(line).join(', ')} (already in the report: check them, then go on with the rest)`);
  return lines;
}

export function errorText(given: unknown): string {
  const error = knownError(given);
  if (error instanceof InputError) return safe([error.problems.map(formatProblem).join('\n'), ...(error.hint ? [error.hint] : [])].join('\n'));
  if (error instanceof HeldError) return safe([`${error.file ? `${error.file}: ` : ''}${error.message}`, error.hint].join('\n'));
  if (error instanceof CodedError) return safe([error.message, ...(error.hint ? [error.hint] : [])].join('\n'));
  return `autopilot: internal error: ${safe(error instanceof Error ? error.message : String(error))}`;
}

export function checkText(r: CheckResult): string {
  const summary = `Checked ${r.flows.length} flows (${r.flows.join(', ')}), ${r.skills} skills, the pointer (${r.pointer}) and ${r.journalEvents} journal events`;
  if (r.problems.length === 0) return `✓ ${summary}: no problems.`;
  const { problems, repair } = summariseUnreadable(r.problems);
  return [...problems.map((p) => safe(formatProblem(p))), `✗ ${summary}: ${r.problems.length} problem(s).`, ...(repair ? [repair] : [])].join('\n');
}

/** The line `log` prints above the first event a merge put after another branch's (a seam of the chain). */
function seamLine(seam: Seam): string {
  const from = seam.names === '' ? 'an empty journal' : seam.forkLine !== undefined ? `line ${seam.forkLine}` : 'a line no longer in the journal';
  const settled = seam.settledAt !== undefined ? `settled at line ${seam.settledAt}` : 'not settled';
  return `── line ${seam.line}: another branch's events follow, forked after ${from} (${settled}) ──`;
}

export function logText(r: { entries: StampedEntry[]; problems: Problem[]; seams?: Seam[] }, limit: number | undefined): string {
  const marks = new Map<number, string[]>();
  for (const seam of r.seams ?? []) marks.set(seam.entry, [...(marks.get(seam.entry) ?? []), seamLine(seam)]);
  const events = r.entries.flatMap((e, i) => [...(marks.get(i) ?? []), logLine(e)]);
  const lines = [...events, ...r.problems.map((p) => `! ${safe(formatProblem(p))}`)];
  return lines.length > 0 ? lines.join('\n') : limit === 0 ? '' : 'The journal is empty.';
}
