/**
 * Text for a person or an agent reading every turn: short, and the next
 * command always spelled out. What two or more commands say lives here
 * (`status`, whose screen the SessionStart hook and the MCP server show too;
 * errors; what the step commands' text shares with it); a text one command
 * says sits beside its view (`commands/*.ts`, `render/step-text.ts`).
 */
import { acCoverageLine } from '../evidence/ac-coverage.js';
import type { LastAction } from '../formats/pointer/parse-pointer.js';
import { evidenceFor, hasArtifacts, isSettled } from '../engine/evidence.js';
import { CodedError, formatProblem, HeldError, InputError, knownError } from '../errors.js';
import { formatAge } from '../engine/lease.js';
import { loopStart, stepByNumber, type Step, type Then } from '../formats/flow/model.js';
import { failedTimes, MAX_RETRIES } from '../formats/pointer/position.js';
import { currentStep, type View } from '../app/views/view.js';
import { batchesLine } from '../engine/task-batches.js';
import { describeRecord, rangeText, type SideName, type SideSummary } from '../engine/fork.js';
import { isBidiControl } from '../formats/bidi.js';
import type { RunLine } from '../app/views/run-line.js';

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
export const oneLine = (text: string) => safe(text).replaceAll('\n', '\\n');

/** A box a person reads at a terminal: every line within 80 columns, a long one carried on under itself. */
export function box(title: string, body: string[], footer: string[]): string {
  const lines = (ls: string[]) => ls.flatMap((l) => hanging(` ${l}`, 4));
  return [RULE, ...lines([title]), RULE, ...lines(body), RULE, ...lines(footer), RULE].join('\n');
}

export const stepLabel = (step: Step) => `${step.number} ${step.name}`;

export function driftLines(view: View): string[] {
  // One thing each: the message says what disagrees, the suffix whether it was repaired (status never writes, so never).
  const suffix = view.repaired ? 'repaired and journaled' : '`autopilot next` repairs it; `status` never writes';
  // A fork waiting for a person is neither repaired nor journaled: it is said as it is, with its question.
  // What is held for a person says itself how it ends (`autopilot adopt`, or put back): no repair to add; so do lost events.
  const said = (d: View['drift'][number]) =>
    (d.kind === 'journal-fork' && view.fork) || d.kind === 'held-edit' || d.kind === 'held-criteria' || d.kind === 'journal-gone' || d.kind === 'journal-behind'
      ? `! ${oneLine(d.message)}`
      : `! ${oneLine(d.message)} (${suffix})`;
  return [...view.drift.map(said), ...(view.notices ?? []).map((n) => `! ${oneLine(n)}`)];
}

const guardLines = (view: View) => (view.guards ?? []).map((g) => `! Guard off: ${oneLine(g)}`);

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

export function progress(view: View): string {
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
    lines.push(`Status    ${position.status}${position.subStep !== '0' ? ` · sub-step ${oneLine(position.subStep)}` : ''}`);
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
        ? `its last heartbeat ${oneLine(lease.holder.heartbeat)} by its own clock`
        : `last seen ${formatAge(lease.ageMs ?? 0)} ago`;
    const quiet = !lease.mine && lease.seen?.since ? `, quiet since first seen at ${lease.seen.since} by this machine` : '';
    const who = `${oneLine(lease.holder.session)} on ${oneLine(lease.holder.host)}, ${seen}${quiet}`;
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
  lines.push(...otherRunsLines(view.runs, view.repo.run));
  return lines.join('\n');
}

/** Where the run stands, in a few words: `step 3 · Plan · in_progress`, or its problem. */
export function runWhere(line: RunLine): string {
  if (line.problem !== undefined) return `cannot be read: ${oneLine(line.problem)}`;
  const at = line.step === 'done' ? 'done' : `step ${line.step} · ${oneLine(line.name ?? '')}`;
  return `${at} · ${line.status}`;
}

/** A run's completed steps whose files are gone (a merge dropped them): `LOST step 1 Problem: a.md gone (…)`. */
export const lostText = (lost: NonNullable<RunLine['lost']>): string[] =>
  lost.map((s) => `LOST step ${s.step} ${oneLine(s.name)}: ${s.files.map(oneLine).join(', ')} gone (\`autopilot check\`)`);

/** `status`'s lines for the runs it does not show (`Other run b: step 3 · Plan · in_progress`), and the shown run's lost steps. */
export function otherRunsLines(lines: readonly RunLine[] | undefined, shown: string): string[] {
  const own = (lines ?? []).find((l) => l.run === shown)?.lost ?? [];
  return [
    ...lostText(own).flatMap((text) => wrapped('Lost', text)),
    ...(lines ?? [])
      .filter((l) => l.run !== shown)
      .map((l) => [`Other run ${l.run}: ${runWhere(l)}${l.waits ? ` · waits: \`${oneLine(l.waits.command)}\`` : ''}`, ...lostText(l.lost ?? [])].join(' · ')),
  ];
}

/** The width a person's terminal is assumed to have: `status` keeps its lines within it. */
const WIDTH = 80;

const LABEL = 10;

/** `text` after a label of ten columns, wrapped at word boundaries to 80 columns; the lines after the first indented by `hang` more. */
function wrapped(label: string, text: string, hang = ''): string[] {
  const out: string[] = [];
  let current = label.padEnd(LABEL);
  let fresh = true;
  for (const word of oneLine(text).split(' ')) {
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

/** `## Last Action` in one line: what, its result, when. */
export function lastActionLine(last: LastAction): string {
  return `${oneLine(last.action)} (${last.result}, ${last.at})`;
}

/** A command that finished nothing, at a stop it reached before: what was recorded then, and that the question still waits. */
export function alreadyText(view: Pick<View, 'flow'>, after: number, waits: string): string {
  const step = stepByNumber(view.flow, after);
  return `= Already recorded: step ${step ? stepLabel(step) : after} was completed before; nothing was written again, and ${waits}.`;
}

/** A fork's two sides above its decision: why they disagree, and where each left the work. */
export function forkLines(reasons: string[], sides: Record<SideName, SideSummary>): string[] {
  const side = (s: SideSummary) => `  ${s.side}: ${describeRecord(s.position)} (${rangeText(s.seqs)}) — ${s.did.map(oneLine).join('; ')}`;
  return [
    `✗ The journal holds two branches' work that disagree: ${reasons.map(oneLine).join('; ')}. Nothing moves until a person keeps one side.`,
    side(sides.A),
    side(sides.B),
  ];
}

export function errorText(given: unknown): string {
  const error = knownError(given);
  if (error instanceof InputError) return safe([error.problems.map(formatProblem).join('\n'), ...(error.hint ? [error.hint] : [])].join('\n'));
  if (error instanceof HeldError) return safe([`${error.file ? `${error.file}: ` : ''}${error.message}`, error.hint].join('\n'));
  if (error instanceof CodedError) return safe([error.message, ...(error.hint ? [error.hint] : [])].join('\n'));
  return `autopilot: internal error: ${safe(error instanceof Error ? error.message : String(error))}`;
}
