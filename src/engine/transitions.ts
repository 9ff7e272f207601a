/**
 * The rules that move the pointer: next, done, fail, skip, decide, ack,
 * substep. Pure: (flow, reconciled position, evidence, event) → (new
 * position, journal entries, outcome). The shell writes what comes out.
 */
import { ERROR_EXIT, EXIT, type ExitCode, type Problem } from '../errors.js';
import { stepByNumber, type Decision, type Flow, type Step } from '../formats/flow/model.js';
import { MAX_RETRIES, type Position } from '../formats/pointer/position.js';
import type { Finding } from '../evidence/types.js';
import { allMatches, conditionFalse, evidenceFor, hasArtifacts, judgeOutputs, missingPatterns, type Evidence } from './evidence.js';
import { entry, type EventDetails, type JournalEntry } from '../formats/journal-line.js';
import { atStep, successor } from './reconcile.js';
import { boundaryDecision, type PendingBoundary } from './boundary.js';
import type { SideName, SideSummary } from './fork.js';
import { atBatch, batchCompleted, batchStarted, currentBatch, firstOpenBatch, judgeBatchReport, type BatchFacts } from './task-batches.js';
import { batchSubStep, readSubStep } from '../formats/pointer/sub-step.js';
import { attemptBegun, notBegun, stepBegun, type Opening } from './attempt-start.js';

export type Event =
  | { type: 'next' }
  /** `force`: a person marks it done whatever its files hold; `acceptFailures`: a person accepts its failed test run (every other check still holds). */
  | { type: 'done'; force?: { reason: string }; acceptFailures?: { reason: string } }
  | { type: 'fail'; reason: string }
  | { type: 'skip'; reason: string }
  | { type: 'decide'; option: string }
  | { type: 'ack' }
  | { type: 'substep'; text: string };

export type Outcome =
  /** `next`: work on the current step. */
  | { kind: 'work'; action: 'start' | 'resume' | 'retry' }
  /** A step finished and the pointer moved on without a stop: the agent goes on with `next`. */
  | { kind: 'advanced' }
  /** Progress recorded in place (sub-step, a failed attempt with retries left, an acknowledgement). */
  | { kind: 'recorded' }
  | { kind: 'decision'; decision: Decision; after: number }
  /** A session boundary: waiting for A or B (or, `answered: 'A'`, the session must stop now). */
  | { kind: 'boundary'; after: number; answered?: 'A' }
  /** Three failed attempts: a person must `ack` before another try. */
  | { kind: 'failed' }
  | { kind: 'complete' }
  /** The journal holds two branches' work that disagree: nothing moves until a person keeps one side (`decide A|B`). */
  | { kind: 'fork'; decision: Decision; reasons: string[]; sides: Record<SideName, SideSummary> }
  /** The command had already taken effect (a retry after a kill, a race): nothing was recorded again. */
  | { kind: 'duplicate'; of: number; event: string }
  /** `findings`: what is wrong with the step's files, each naming the file, line and heading, and what to write. */
  | { kind: 'refused'; problem: Problem; missing?: string[]; findings?: Finding[] };

export interface Transition {
  position: Position;
  entries: JournalEntry[];
  outcome: Outcome;
}

/** The command line's exit code for an outcome: a refusal is its error code's (`ERROR_EXIT`), a stop for a person 3, the rest 0. */
export function exitCodeOf(outcome: Outcome): ExitCode {
  switch (outcome.kind) {
    case 'refused':
      return ERROR_EXIT.refused;
    case 'decision':
    case 'boundary':
    case 'failed':
    case 'fork':
      return EXIT.stoppedForPerson;
    default:
      return EXIT.ok;
  }
}

const decisionPending = (flow: Flow, position: Position): Decision | undefined => {
  if (position.status !== 'completed' && position.status !== 'skipped') return undefined;
  const step = typeof position.step === 'number' ? stepByNumber(flow, position.step) : undefined;
  return step?.then.kind === 'decision' ? flow.decisions[step.then.id] : undefined;
};

const refuse = (position: Position, message: string, expected?: string, received?: string, missing?: string[]): Transition => ({
  position,
  entries: [],
  outcome: { kind: 'refused', problem: { message, ...(expected ? { expected } : {}), ...(received ? { received } : {}) }, missing },
});

/** `done` refused for what the step's files hold: each finding, and a sentence that counts them. */
function refuseFindings(position: Position, step: Step, findings: Finding[]): Transition {
  const files = [...new Set(findings.map((f) => f.file))];
  const failedRun = findings.some((f) => f.acceptable);
  return {
    position,
    entries: [],
    outcome: {
      kind: 'refused',
      problem: {
        message: `step ${step.number} (${step.name}) is not done: ${findings.length} problem${findings.length === 1 ? '' : 's'} in ${files.length === 1 ? files[0] : `${files.length} files`}`,
        expected: `each file as its skill and template say (the list below says what to write where)${failedRun ? '; failed tests only a person may accept (`done --accept-failures --reason`)' : ''}`,
        received: findings
          .slice(0, 3)
          .map((f) => f.message)
          .join('; '),
      },
      findings,
    },
  };
}

/** How a step finished, with the details its journal entry carries. */
type Finished = { status: 'completed'; details: EventDetails['step_completed'] } | { status: 'skipped'; details: EventDetails['step_skipped'] };

const completedWith = (details: EventDetails['step_completed'] = {}): Finished => ({ status: 'completed', details });
const skippedWith = (details: EventDetails['step_skipped']): Finished => ({ status: 'skipped', details });

/**
 * A step has finished (completed or skipped): record it, move the pointer as
 * its `Then` says, and skip any following step whose condition does not hold.
 */
function finish(flow: Flow, from: Position, step: Step, end: Finished, evidence: Evidence): Transition {
  const finished: Position = { ...from, status: end.status, subStep: '0', retryCount: 0 };
  const entries: JournalEntry[] = [end.status === 'completed' ? entry('step_completed', finished, end.details) : entry('step_skipped', finished, end.details)];

  if (step.then.kind === 'decision') {
    const decision = flow.decisions[step.then.id]!;
    entries.push(entry('decision_required', finished, { decision: decision.id }));
    return { position: finished, entries, outcome: { kind: 'decision', decision, after: step.number } };
  }
  return moveOn(flow, successor(flow, step, from.cycle), evidence, entries, step.then.kind === 'boundary' ? step.number : undefined);
}

/** Arrive at `position`; pass over steps whose condition is false; report a boundary if one was crossed. */
function moveOn(flow: Flow, position: Position, evidence: Evidence, entries: JournalEntry[], boundaryAfter: number | undefined): Transition {
  if (position.step === 'done') {
    entries.push(entry('flow_completed', position));
    return { position, entries, outcome: { kind: 'complete' } };
  }
  if (position.cycle !== evidence.cycle) entries.push(entry('cycle_started', position));
  const next = stepByNumber(flow, position.step)!;
  // The evidence describes one cycle; a step of a new cycle is judged by the next call.
  if (position.cycle === evidence.cycle && conditionFalse(next, evidenceFor(evidence, next.number))) {
    const skipped = finish(flow, position, next, skippedWith({ by: 'condition', reason: conditionReason(next) }), evidence);
    if (boundaryAfter === undefined || skipped.outcome.kind !== 'advanced') return { ...skipped, entries: [...entries, ...skipped.entries] };
    entries.push(...skipped.entries);
    position = skipped.position;
  }
  if (boundaryAfter !== undefined) {
    entries.push(entry('boundary_reached', position, { after: boundaryAfter }));
    return { position, entries, outcome: { kind: 'boundary', after: boundaryAfter } };
  }
  return { position, entries, outcome: { kind: 'advanced' } };
}

function conditionReason(step: Step): string {
  return step.runs.kind === 'if' ? `condition not met: \`${step.runs.pattern}\` does not exist` : 'condition not met';
}

/** Who asks, and what the journal says is pending that the pointer cannot show. */
export interface ApplyContext {
  session?: string;
  /** Nothing named the session: the session that reached a boundary cannot be told from a new one. */
  unnamed?: boolean;
  boundary?: PendingBoundary;
  /** How the journal saw the run come into the current step (`engine/attempt-start.ts`); unknown counts as begun. */
  opened?: Opening;
  /** A person answered A at the boundary before the position: `session`, the conversation that reached it, stops there. */
  stopped?: PendingBoundary;
}

/**
 * A pending boundary first (rule 4): `decide A` or `B` answers it; the
 * session that reached it is stopped there again; a new session crosses it,
 * which answers A, and its command then applies as usual. Where sessions
 * cannot be told apart (unnamed), the question was asked once and the next
 * command crosses it: a boundary never loops.
 */
function atBoundary(flow: Flow, position: Position, evidence: Evidence, event: Event, ctx: ApplyContext & { boundary: PendingBoundary }): Transition {
  const pending = ctx.boundary;
  const decision = boundaryDecision(flow, pending.after, position.step);
  if (event.type === 'decide') {
    const letter = event.option.trim().toUpperCase();
    const option = decision.options.find((o) => o.letter === letter);
    if (!option) return refuse(position, `"${event.option}" is not an option of "${decision.question}"`, 'A or B', event.option);
    // A: the conversation that reached the boundary stops there (`stopped`), whoever answers; B lets it go on.
    const stopped = option.letter === 'A' ? { stopped: pending.session } : {};
    const entries = [entry('boundary_answered', position, { option: option.letter, choice: option.choice, after: pending.after, ...stopped })];
    if (option.letter === 'A') return { position, entries, outcome: { kind: 'boundary', after: pending.after, answered: 'A' } };
    return { position, entries, outcome: { kind: 'advanced' } };
  }
  if (event.type === 'ack' || ctx.session === undefined) return apply(flow, position, evidence, event, { ...ctx, boundary: undefined });
  if (ctx.session === pending.session && !ctx.unnamed) return { position, entries: [], outcome: { kind: 'boundary', after: pending.after } };
  const crossed = entry('boundary_answered', position, {
    option: 'A',
    choice: ctx.session === pending.session ? 'a new conversation arrived (sessions cannot be told apart: asked once)' : 'a new conversation arrived',
    after: pending.after,
    reached_by: pending.session,
  });
  const then = apply(flow, position, evidence, event, { ...ctx, boundary: undefined });
  return { ...then, entries: [crossed, ...then.entries] };
}

/**
 * After a person's A at a boundary: the conversation that reached it is told
 * again to stop (exit 3, "start a new conversation"); any other session goes
 * on, and so does one that cannot be told apart from a new one (unnamed: the
 * stop was said once, by the answer). A person may still answer B.
 */
function afterAnswerA(flow: Flow, position: Position, evidence: Evidence, event: Event, ctx: ApplyContext & { stopped: PendingBoundary }): Transition {
  const { stopped, ...rest } = ctx;
  if (event.type === 'decide') return atBoundary(flow, position, evidence, event, { ...rest, boundary: stopped });
  if (event.type !== 'ack' && ctx.session === stopped.session && !ctx.unnamed)
    return { position, entries: [], outcome: { kind: 'boundary', after: stopped.after, answered: 'A' } };
  return apply(flow, position, evidence, event, rest);
}

/**
 * One event applied to the run: a pending boundary or a person's A first
 * (rule 4), then the flow's end, then the current step's rule for the event.
 */
export function apply(flow: Flow, position: Position, evidence: Evidence, event: Event, ctx: ApplyContext = {}): Transition {
  if (position.cycle !== evidence.cycle) throw new Error(`evidence of cycle ${evidence.cycle} cannot judge cycle ${position.cycle}`);
  if (ctx.boundary) return atBoundary(flow, position, evidence, event, { ...ctx, boundary: ctx.boundary });
  if (ctx.stopped) return afterAnswerA(flow, position, evidence, event, { ...ctx, stopped: ctx.stopped });
  if (position.step === 'done') {
    if (event.type === 'next') return { position, entries: [], outcome: { kind: 'complete' } };
    return refuse(
      position,
      `the flow ${flow.id} is done; there is no current step to ${event.type}`,
      'another flow: move the state pointer aside, then `autopilot init --flow <id>`',
    );
  }
  const here: Here = { flow, position, evidence, ctx, step: stepByNumber(flow, position.step)!, pending: decisionPending(flow, position) };
  switch (event.type) {
    case 'next':
      return onNext(here, event);
    case 'done':
      return onDone(here, event);
    case 'fail':
      return onFail(here, event);
    case 'skip':
      return onSkip(here, event);
    case 'decide':
      return onDecide(here, event);
    case 'ack':
      return onAck(here);
    case 'substep':
      return onSubstep(here, event);
  }
}

/** What each event's rule reads: the run, who asks, the current step, and a decision waiting after it. */
interface Here {
  flow: Flow;
  position: Position;
  evidence: Evidence;
  ctx: ApplyContext;
  step: Step;
  pending: Decision | undefined;
}

type EventOf<T extends Event['type']> = Extract<Event, { type: T }>;

/** A decision waiting, or a step failed three times, stops the agent's commands where they are. */
function stoppedAt({ position, step, pending }: Here): Transition | undefined {
  if (pending) return { position, entries: [], outcome: { kind: 'decision', decision: pending, after: step.number } };
  if (position.status === 'failed') return { position, entries: [], outcome: { kind: 'failed' } };
  return undefined;
}

/** `next`: a step whose condition is false is skipped; otherwise its work (or its next batch) begins or resumes, its start journaled once. */
function onNext(here: Here, event: EventOf<'next'>): Transition {
  const { flow, position, evidence, ctx, step } = here;
  const stop = stoppedAt(here);
  if (stop) return stop;
  if (conditionFalse(step, evidenceFor(evidence, step.number))) {
    const skipped = finish(flow, position, step, skippedWith({ by: 'condition', reason: conditionReason(step) }), evidence);
    if (skipped.outcome.kind !== 'advanced') return skipped;
    const then = apply(flow, skipped.position, evidence, event);
    return { ...then, entries: [...skipped.entries, ...then.entries] };
  }
  const action = position.status === 'in_progress' ? 'resume' : position.retryCount > 0 ? 'retry' : 'start';
  // In progress with no start on record (a hand edit, the folder): the start is recorded now, as for any step begun.
  const begun = attemptBegun(position, ctx.opened);
  const facts = evidenceFor(evidence, step.number).batches;
  if (step.batches && facts && facts.plan.length > 0) {
    const batch = currentBatch(step, position, facts);
    if (batch === undefined) return beginBatches(position, facts, action, stepBegun(position, ctx.opened));
    // The batch after one done (or after a person's `ack`) begins: journaled, so its commit and its runs start here.
    if ((position.status === 'not_started' && position.retryCount === 0) || (position.status === 'in_progress' && !begun)) {
      const at: Position = { ...position, status: 'in_progress' };
      const first =
        position.status === 'in_progress' && !stepBegun(position, ctx.opened) ? [entry('step_started', at, { attempt: position.retryCount + 1 })] : [];
      return { position: at, entries: [...first, batchStarted(at, facts, batch)], outcome: { kind: 'work', action } };
    }
  }
  if (begun) return { position, entries: [], outcome: { kind: 'work', action } };
  const started: Position = { ...position, status: 'in_progress' };
  return { position: started, entries: [entry('step_started', started, { attempt: position.retryCount + 1 })], outcome: { kind: 'work', action } };
}

/** `done`: a step whose condition is false is skipped; one begun is judged by its current batch's report, or by its own files. */
function onDone(here: Here, event: EventOf<'done'>): Transition {
  const { flow, position, evidence, ctx, step } = here;
  const stop = stoppedAt(here);
  if (stop) return stop;
  const ev = evidenceFor(evidence, step.number);
  if (conditionFalse(step, ev)) return finish(flow, position, step, skippedWith({ by: 'condition', reason: conditionReason(step) }), evidence);
  const unbegun = event.force ? undefined : notBegun(step, position, ctx.opened);
  if (unbegun) return { position, entries: [], outcome: { kind: 'refused', problem: unbegun } };
  const batch = currentBatch(step, position, ev.batches);
  if (ev.batches && batch !== undefined) return doneBatch(here, event, ev.batches, batch);
  return doneStep(here, event);
}

/**
 * `done` in a step that walks batches: the batch's report is judged; a batch
 * before the last is recorded and the next waits for `next`; the last is
 * recorded only with the step's own files, judged with it.
 */
function doneBatch(here: Here, event: EventOf<'done'>, facts: BatchFacts, batch: number): Transition {
  const { flow, position, evidence, ctx, step } = here;
  const judged = judgeBatchReport(facts, batch);
  // A person accepts the batch's failed test run as a step's (every other check still holds).
  const accepted = event.acceptFailures !== undefined && judged.some((f) => f.acceptable);
  const findings = accepted ? judged.filter((f) => !f.acceptable) : judged;
  if (findings.length > 0 && !event.force) {
    // The last batch: what the step's own files lack is said with it, so one round of fixes covers both.
    const whole = batch === facts.plan.length ? apply(flow, { ...position, subStep: '0' }, evidence, event, ctx) : undefined;
    const more = whole?.outcome.kind === 'refused' ? (whole.outcome.findings ?? []) : [];
    return refuseBatch(position, step, batch, facts, [...findings, ...more]);
  }
  const completed = batchCompleted(position, facts, batch, findings.length > 0 ? event.force : undefined, accepted ? event.acceptFailures : undefined);
  if (batch < facts.plan.length) {
    // The next batch waits for `next`: a `done` repeated after a kill is then told from the next batch's own.
    const next: Position = { ...atBatch(position, facts, batch + 1), status: 'not_started', retryCount: 0 };
    return { position: next, entries: [completed], outcome: { kind: 'recorded' } };
  }
  // The last batch: the step's own report is checked now, and the batch is recorded only with it.
  const whole = apply(flow, { ...position, subStep: '0' }, evidence, event, ctx);
  if (whole.outcome.kind === 'refused') return { ...whole, position };
  return { ...whole, entries: [completed, ...whole.entries] };
}

/** `done` judged by the step's own files: new in a repeated round, as their skills say, present and not empty (or a person's word). */
function doneStep(here: Here, event: EventOf<'done'>): Transition {
  const { flow, position, evidence, step } = here;
  const ev = evidenceFor(evidence, step.number);
  const stale = ev.roundBaseline && allMatches(ev).every((file) => ev.roundBaseline!.includes(file));
  if (hasArtifacts(ev) && stale && !event.force) {
    return refuse(
      position,
      `step ${step.number} (${step.name}) is being repeated, and this round has no new artifact: every matching file existed when the round began`,
      `a new file for ${step.doneWhen.map((p) => `\`${p}\``).join(', ')} (e.g. the next numbered draft)`,
      ev.roundBaseline!.join(', '),
    );
  }
  if (hasArtifacts(ev) && ev.outputs) {
    const findings = judgeOutputs(ev.outputs, step);
    if (findings.length > 0 && event.force) return finish(flow, position, step, completedWith({ forced: true, reason: event.force.reason }), evidence);
    const accepted = event.acceptFailures && findings.some((f) => f.acceptable);
    const left = accepted ? findings.filter((f) => !f.acceptable) : findings;
    if (left.length > 0) return refuseFindings(position, step, left);
    if (accepted) return finish(flow, position, step, completedWith({ accepted_failures: true, reason: event.acceptFailures!.reason }), evidence);
  }
  if (hasArtifacts(ev)) return finish(flow, position, step, completedWith(), evidence);
  if (event.force) return finish(flow, position, step, completedWith({ forced: true, reason: event.force.reason }), evidence);
  return refuseMissing(position, step, ev);
}

/** `done` refused: a pattern of `Done when` has no non-empty file in the repository. */
function refuseMissing(position: Position, step: Step, ev: ReturnType<typeof evidenceFor>): Transition {
  const missing = missingPatterns(ev);
  const names = missing.map((m) => `\`${m}\``).join(', ');
  return refuse(
    position,
    `step ${step.number} (${step.name}) is not done: no non-empty file under the docs folder matches ${names}${ev.outside ? ` (${ev.outside.map((f) => `\`${f}\``).join(', ')} leads out of the repository through a symlink, and does not count)` : ''}${ev.empty ? ` (${ev.empty.map((f) => `\`${f}\``).join(', ')} exists but is empty or only whitespace)` : ''}`,
    `a file with content for each of ${step.doneWhen.map((p) => `\`${p}\``).join(', ')} (only a person may mark the step done without them)`,
    `${missing.length} of ${step.doneWhen.length} missing`,
    missing,
  );
}

/** `fail`: an attempt of a begun step fails; the third in a row stops for a person. */
function onFail(here: Here, event: EventOf<'fail'>): Transition {
  const { position, ctx, step } = here;
  const stop = stoppedAt(here);
  if (stop) return stop;
  const unbegun = notBegun(step, position, ctx.opened);
  if (unbegun) return { position, entries: [], outcome: { kind: 'refused', problem: unbegun } };
  const retryCount = position.retryCount + 1;
  const exhausted = retryCount >= MAX_RETRIES;
  const failed: Position = { ...position, status: exhausted ? 'failed' : 'not_started', retryCount };
  return {
    position: failed,
    entries: [entry('step_failed', failed, { reason: event.reason, attempt: retryCount, ...batchOf(position) })],
    outcome: exhausted ? { kind: 'failed' } : { kind: 'recorded' },
  };
}

/** `skip`: only an optional step may be skipped. */
function onSkip(here: Here, event: EventOf<'skip'>): Transition {
  const { flow, position, evidence, step, pending } = here;
  if (pending) return stoppedAt(here)!;
  if (step.runs.kind !== 'optional') {
    const optional = flow.steps.filter((s) => s.runs.kind === 'optional').map((s) => `${s.number} ${s.name}`);
    return refuse(
      position,
      `step ${step.number} (${step.name}) is not optional, so it cannot be skipped`,
      `an optional step${optional.length ? ` (in ${flow.id}: ${optional.join(', ')})` : ''}`,
      `step ${step.number} runs ${step.runs.kind}`,
    );
  }
  return finish(flow, position, step, skippedWith({ by: 'agent', reason: event.reason }), evidence);
}

/** `decide`: the waiting decision is answered; its option repeats the step or moves on. */
function onDecide(here: Here, event: EventOf<'decide'>): Transition {
  const { flow, position, evidence, step, pending } = here;
  if (!pending) {
    return refuse(
      position,
      'no decision is waiting for an answer',
      'a decision shown by `autopilot next` (exit 3)',
      `step ${step.number} (${step.name}) is ${position.status}`,
    );
  }
  const letter = event.option.trim().toUpperCase();
  const option = pending.options.find((o) => o.letter === letter);
  if (!option) {
    return refuse(
      position,
      `"${event.option}" is not an option of the decision "${pending.question}"`,
      `one of ${pending.options.map((o) => o.letter).join(', ')}`,
      event.option,
    );
  }
  const details: EventDetails['decision_answered'] = { decision: pending.id, option: option.letter, choice: option.choice, then: option.then };
  // A new round must leave a new file: remember what this one starts with.
  if (option.then === 'repeat') details.round_files = allMatches(evidenceFor(evidence, step.number));
  const entries = [entry('decision_answered', position, details)];
  if (option.then === 'repeat') {
    return { position: atStep(flow, step, position.cycle), entries, outcome: { kind: 'advanced' } };
  }
  return moveOn(flow, successor(flow, step, position.cycle), evidence, entries, undefined);
}

/** `ack`: a person clears a step failed three times, for another try. */
function onAck({ position, step }: Here): Transition {
  if (position.status !== 'failed') {
    return refuse(
      position,
      `nothing to acknowledge: step ${step.number} (${step.name}) is ${position.status}`,
      `a step with \`status: failed\` (after ${MAX_RETRIES} failed attempts)`,
      `status: ${position.status}`,
    );
  }
  const cleared: Position = { ...position, status: 'not_started', retryCount: 0 };
  return { position: cleared, entries: [entry('failure_acknowledged', cleared)], outcome: { kind: 'recorded' } };
}

/** `substep`: the agent's position inside a begun step, kept in the pointer (with its batch) and the journal. */
function onSubstep(here: Here, event: EventOf<'substep'>): Transition {
  const { position, ctx, step } = here;
  const stop = stoppedAt(here);
  if (stop) return stop;
  const text = event.text.replace(/\s+/g, ' ').trim();
  if (!text) return refuse(position, 'the sub-step text is empty', 'the sub-skill\'s position, e.g. `autopilot substep "2 — Restrictions"`', '""');
  const unbegun = notBegun(step, position, ctx.opened);
  if (unbegun) return { position, entries: [], outcome: { kind: 'refused', problem: unbegun } };
  const sub = readSubStep(position.subStep);
  const kept = sub.kind === 'batch' ? batchSubStep(sub.batch, sub.of, sub.tasks, text) : text;
  const moved: Position = { ...position, status: 'in_progress', subStep: kept };
  // The journal keeps the agent's words (a repeat is recognised by them); the position carries the batch.
  return { position: moved, entries: [entry('substep', moved, { sub_step: text })], outcome: { kind: 'recorded' } };
}

/** The batch a failed attempt was in, for its journal entry. */
function batchOf(position: Position): { batch?: number } {
  const sub = readSubStep(position.subStep);
  return sub.kind === 'batch' ? { batch: sub.batch } : {};
}

/**
 * `next` in a step that walks batches, with no batch named yet: the first
 * batch whose report is not on disk begins (batch 1 on a fresh start; a seed
 * run's free-text sub-step resumes where the reports stop), journaled.
 */
function beginBatches(position: Position, facts: BatchFacts, action: 'start' | 'resume' | 'retry', begun: boolean): Transition {
  const batch = firstOpenBatch(facts);
  const at: Position = { ...atBatch(position, facts, batch), status: 'in_progress' };
  const started = begun ? [] : [entry('step_started', at, { attempt: position.retryCount + 1 })];
  return { position: at, entries: [...started, batchStarted(at, facts, batch)], outcome: { kind: 'work', action } };
}

/** `done` refused for what a batch's report holds. */
function refuseBatch(position: Position, step: Step, batch: number, facts: BatchFacts, findings: Finding[]): Transition {
  const refused = refuseFindings(position, step, findings);
  if (refused.outcome.kind !== 'refused') return refused;
  const report = facts.report?.file ?? '?';
  refused.outcome.problem = {
    ...refused.outcome.problem,
    message: `batch ${batch} of ${facts.plan.length} of step ${step.number} (${step.name}) is not done: ${findings.length} problem${findings.length === 1 ? '' : 's'} in ${report}`,
    expected: `the batch's report as its skill says: its tasks (${facts.plan[batch - 1]!.join(', ')}), the criteria they cover, and the Result of a test run made through \`autopilot exec\` in this batch`,
  };
  return refused;
}
