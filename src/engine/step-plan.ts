/**
 * A step command (`next`, `done`, `fail`, `skip`, `decide`, `ack`,
 * `substep`) decided in full, without reading or writing anything. Pure:
 * (the state as read under the lock, the event, the request, the clock) →
 * (the transition, the journal entries, the pointer, the lease, the
 * checkpoint, the notices). The shell (`app/step/run-step.ts`) gathers the inputs and
 * writes what comes out.
 *
 * Two calls, because one input depends on the first answer: `decideStep`
 * says what happens (a repeat recognised, a command for another step
 * refused, or the rules applied); the shell then reads the skill's own state
 * file for the step the agent is sent to, and `planStep` turns it all into
 * what is written.
 */
import { InputError } from '../errors.js';
import { CHECKPOINT_EVERY_MS } from '../limits.js';
import { checkpointBefore, loopStart, stepByNumber, type Flow, type Step } from '../formats/flow/model.js';
import type { LastAction } from '../formats/pointer/parse-pointer.js';
import { samePosition, type Position } from '../formats/pointer/position.js';
import type { PendingBoundary } from './boundary.js';
import type { Evidence } from './evidence.js';
import { followThrough, lastActionOf } from './follow-through.js';
import { entry, type JournalEntry, type PointerRecord, type StampedEntry } from '../formats/journal-line.js';
import type { LeaseVerdict } from './lease.js';
import type { Lease } from '../formats/lease.js';
import { flowFileRef, pinnedCopy } from './pin.js';
import { atStep, type Drift, type Reconciled } from './reconcile.js';
import type { RecordVerdict } from './record.js';
import { commandKey, judgeRepeat, repeatsLastCommand, type Target } from './repeat.js';
import { apply, type Event, type Transition } from './transitions.js';
import { describeRecord, forkDecision, mergedEntry, settledPosition, type ForkVerdict, type JournalFork, type SideName } from './fork.js';
import type { Opening } from './attempt-start.js';
import { criteriaRefusal, criteriaStep, recordsResult, type CriteriaHeld } from './criteria.js';
import type { PinnedCriterion } from '../formats/journal-line.js';

/** A skill's own progress file, read by the shell: where it says the work is, or why it cannot be read. */
export type SkillState = { file: string; position: string } | { problem: string } | undefined;

/** The state as a step command reads it under the lock. */
export interface StepState {
  flow: Flow;
  /** The pointer as read (null when there was none): its position and its `## Last Action`. */
  pointer: { position: Position; lastAction?: LastAction } | null;
  /** How the pointer compared with the journal, and what the folder made of it. */
  record: RecordVerdict;
  reconciled: Reconciled;
  evidence: Evidence;
  /** The last record the journal holds: a repeated command is recognised by it. */
  lastRecord?: { seq: number; pointer: PointerRecord; session: string; key?: string };
  boundary?: PendingBoundary;
  /** A person answered A at the boundary before the position: the conversation that reached it stops there. */
  stopped?: PendingBoundary;
  /** Said when the flow file changed since the run was pinned. */
  flowChange?: string;
  /** A merge the journal holds and nothing has settled yet, judged (rule 11). */
  fork?: { fork: JournalFork; verdict: ForkVerdict };
  /** An edit of the pinned acceptance criteria held for a person: no step result is recorded meanwhile (`engine/criteria.ts`). */
  criteriaHeld?: CriteriaHeld;
  /** A hand edit of the pointer found held for the first time, or dropped by a person, not yet journaled. */
  heldChanged?: boolean;
}

export interface StepInput {
  state: StepState;
  /** Validated (`validateEvent`). */
  event: Event;
  /** `--step N`, when given. */
  step?: number;
  /** The step the agent was handed: the pointer as the file said before the lock (see `peekPosition`). */
  peeked?: Position;
  session: string;
  /** Nothing named the session (`local`): it cannot be told apart from a new conversation. */
  unnamed?: boolean;
  /** A person's answer or override (`decide`, `ack`, `done --force`): it leaves the lease as it is, whoever holds it (rule 6). */
  person?: boolean;
  now: Date;
  staleMs: number;
  /** `follow_through: false` in the settings: `next` says nothing of where the work went. */
  followThrough?: false;
  /** The newest checkpoint's time, or the run's beginning when it has none: an hour after it, a command that writes takes one. */
  lastCheckpoint?: Date;
  /** The lease verdict for a command that drives (never `held`: that stops before the state is read). */
  lease?: Exclude<LeaseVerdict, { kind: 'held' }>;
  /** The newest decisive journal entry about the step the command is aimed at (`aimAt`). */
  latest?: StampedEntry;
  /** The last `fail` reason of the current step, when it stands failed: shown in every session. */
  lastFailure?: string;
  /** How the journal saw the run come into the current step, when it is in progress (`engine/attempt-start.ts`). */
  opened?: Opening;
  /** The acceptance criteria as the file holds them now, when this command may complete the step that pins them. */
  criteriaNow?: { cycle: number; file: string; criteria: PinnedCriterion[] };
}

export interface StepPlan {
  transition: Transition;
  /** Every entry to journal, in order. */
  entries: JournalEntry[];
  /** The command's key, stamped on its entries: a retry is recognised by it. */
  key: string;
  /** The pointer to write: whenever something is journaled, or the position moved. */
  pointer?: { position: Position; lastAction?: LastAction };
  lease?: Lease | 'release';
  /** A checkpoint taken once the plan is written: before a session boundary, when a step fails for good, and as a step the flow marks starts. */
  checkpoint?: { label: string; note: string };
  notices: string[];
  /** The step the command acted on (the current one when it started). */
  acted?: Step;
  reason?: string;
  /** The option a `decide` chose, as `A) choice`. */
  answer?: string;
  /** Steps passed over because their condition does not hold. */
  passedOver: { step: number; name: string; reason: string }[];
}

/** Commands that speak about one step; `next` always acts on the current one. */
const AIMED = new Set<Event['type']>(['done', 'fail', 'skip', 'substep', 'decide', 'ack']);

/** Whether a command is aimed at one step (`next` is not: it goes where the state says). */
export const isAimed = (event: Event): boolean => AIMED.has(event.type);

/** The step a command is for: `--step N`, else the step the agent was handed, else the current one. */
export function aimAt(event: Event, step: number | undefined, peeked: Position | undefined, now: Position): Target | undefined {
  if (!isAimed(event)) return undefined;
  const base = peeked ?? now;
  const at = step ?? (typeof base.step === 'number' ? base.step : undefined);
  return at === undefined ? undefined : { flow: base.flow, cycle: base.cycle, step: at };
}

const sameAsRecord = (p: Position, r: PointerRecord) => p.flow === r.flow && p.step === r.step && p.cycle === r.cycle && p.status === r.status;

/** A command that already took effect: where a person must act first, the stop again; else `duplicate`. */
function stopOrDuplicate(input: StepInput, of: { seq: number; event: string }): Transition {
  const { flow, reconciled, evidence, boundary } = input.state;
  const position = reconciled.position;
  // The very command again is the same conversation, named or not: a boundary it reached is shown again.
  const stop = apply(flow, position, evidence, { type: 'next' }, { ...applyContext(input), unnamed: false });
  if (stop.outcome.kind === 'decision' || stop.outcome.kind === 'failed' || (stop.outcome.kind === 'boundary' && boundary)) return { ...stop, entries: [] };
  return { position, entries: [], outcome: { kind: 'duplicate', of: of.seq, event: of.event } };
}

/** What the command does: a repeat recognised, a command meant for another step refused, or the rules applied. */
export function decideStep(input: StepInput): Transition {
  const { event, state, session } = input;
  const { flow, evidence } = state;
  const position = state.reconciled.position;
  // Rule 11 first: two sides that disagree stop every step command until a person keeps one.
  if (state.fork?.verdict.kind === 'disagree') return atFork(state.fork.fork, state.fork.verdict, position, event);
  const target = aimAt(event, input.step, input.peeked, position);
  if (target) {
    if (target.flow === flow.id && !stepByNumber(flow, target.step)) {
      throw new InputError({
        message: `--step ${target.step}: ${flow.id} has no such step`,
        expected: `a step from 1 to ${flow.steps.length}`,
        received: String(target.step),
      });
    }
    const name = stepByNumber(flow, target.step)?.name ?? '?';
    const verdict = judgeRepeat(event, target, name, position, input.latest);
    if (verdict.kind === 'duplicate') return stopOrDuplicate(input, verdict.of);
    if (verdict.kind === 'moved') return { position, entries: [], outcome: { kind: 'refused', problem: verdict.problem } };
  }
  // Not aimed at a step by name, and the very command this session last recorded: a retry, recorded once.
  const last = state.lastRecord;
  if (input.step === undefined && last && repeatsLastCommand(event, session, last) && sameAsRecord(position, last.pointer))
    return stopOrDuplicate(input, { seq: last.seq, event: last.key!.split(':')[0]! });
  const walked = walkedToBoundary(state);
  if (walked !== undefined) return atWalkedBoundary(input, walked);
  return apply(flow, position, evidence, event, applyContext(input));
}

/** The step after which a walk over work found on disk reached a session boundary that the journal has not recorded yet. */
function walkedToBoundary(state: StepState): number | undefined {
  const stop = state.reconciled.walk?.stop;
  return stop?.kind === 'boundary' && !state.boundary && typeof state.reconciled.position.step === 'number' ? stop.after : undefined;
}

/**
 * A walk over work found on disk stopped at a session boundary (`walkFolder`):
 * it is reached now, by this command, as `done` would have reached it —
 * journaled `boundary_reached`, so it takes its checkpoint and its progress
 * commit. `next` stops there (the question); any other command meets it as
 * the session that reached it.
 */
function atWalkedBoundary(input: StepInput, after: number): Transition {
  const { flow, evidence } = input.state;
  const position = input.state.reconciled.position;
  const reached = entry('boundary_reached', position, { after });
  if (input.event.type === 'next') return { position, entries: [reached], outcome: { kind: 'boundary', after } };
  const then = apply(flow, position, evidence, input.event, { ...applyContext(input), boundary: { after, session: input.session } });
  return { ...then, entries: [reached, ...then.entries] };
}

/** A fork whose sides disagree: `decide A|B` keeps a side (journaled, the pointer from its record); anything else stops (exit 3). */
function atFork(fork: JournalFork, verdict: Extract<ForkVerdict, { kind: 'disagree' }>, position: Position, event: Event): Transition {
  const decision = forkDecision(verdict);
  if (event.type !== 'decide') return { position, entries: [], outcome: { kind: 'fork', decision, reasons: verdict.reasons, sides: verdict.sides } };
  const letter = event.option.trim().toUpperCase();
  const option = decision.options.find((o) => o.letter === letter);
  if (!option)
    return {
      position,
      entries: [],
      outcome: {
        kind: 'refused',
        problem: { message: `"${event.option}" is not an option of "${decision.question}"`, expected: 'A or B', received: event.option },
      },
    };
  const kept = option.letter as SideName;
  const at = settledPosition(fork, verdict, kept) ?? position;
  const message = `a person kept side ${kept} of the merge (${describeRecord(kept === 'A' ? fork.a.record?.pointer : fork.b.record?.pointer)}); side ${kept === 'A' ? 'B' : 'A'}'s events stay in the journal`;
  return { position: at, entries: [mergedEntry(fork, at, { settled: 'kept', kept }, message)], outcome: { kind: 'advanced' } };
}

/** The event that records a fork whose sides agree, settled by the first command that writes. */
function agreedEntries(state: Pick<StepState, 'fork' | 'reconciled'>): JournalEntry[] {
  const forked = state.fork;
  if (forked?.verdict.kind !== 'agree') return [];
  return [mergedEntry(forked.fork, state.reconciled.position, { settled: 'agreed' }, forked.verdict.message)];
}

const applyContext = (input: StepInput) => ({
  session: input.session,
  unnamed: input.unnamed,
  boundary: input.state.boundary,
  opened: input.opened,
  stopped: input.state.stopped,
});

/** The step whose skill state the shell should read before `planStep`: `next` sending the agent to work. */
export function skillStateWanted(event: Event, transition: Transition): number | undefined {
  return event.type === 'next' && transition.outcome.kind === 'work' && typeof transition.position.step === 'number' ? transition.position.step : undefined;
}

/** A sentence when the skill's own file and the pointer disagree about where the step stands. */
export function skillDisagreement(state: SkillState, subStep: string): string | undefined {
  if (!state) return undefined;
  if ('problem' in state) return `the skill's own state cannot be read: ${state.problem}`;
  if (state.position === subStep) return undefined;
  return `the skill's own state (${state.file}) says sub-step ${state.position}, the pointer says ${subStep === '0' ? 'none' : subStep}; resuming where the skill says`;
}

/**
 * Re-entry: a skill that keeps its own progress file is the better judge of
 * where inside the step the work is (docs/state-and-journal.md, "Skill state").
 */
function resumeWhereSkillSays(transition: Transition, skill: SkillState, notices: string[]): Transition {
  const differs = skillDisagreement(skill, transition.position.subStep);
  if (!differs) return transition;
  notices.push(differs);
  if (!skill || !('position' in skill)) return transition;
  const resumed = { ...transition.position, status: 'in_progress' as const, subStep: skill.position };
  const note = entry('skill_state_differs', resumed, { file: skill.file, skill_sub_step: skill.position, pointer_sub_step: transition.position.subStep });
  return { ...transition, position: resumed, entries: [...transition.entries, note] };
}

/** The pointer names another flow than the journal's last record (a person's edit on a run with no journaled step): pinned on the first write. */
export function flowEdited(state: Pick<StepState, 'flow' | 'lastRecord'>): boolean {
  return state.lastRecord !== undefined && state.lastRecord.pointer.flow !== state.flow.id;
}

/** A pointer stands but the journal holds no record of the run: nothing pins its step list yet. */
export function unpinned(state: Pick<StepState, 'pointer' | 'lastRecord'>): boolean {
  return state.pointer !== null && state.lastRecord === undefined;
}

/** The entries with the acceptance criteria pinned on the completion of the step that writes them (Problem; New Task each cycle). */
function withCriteriaPins(flow: Flow, entries: JournalEntry[], now: StepInput['criteriaNow']): JournalEntry[] {
  if (!now || now.criteria.length === 0) return entries;
  const pins = (e: JournalEntry) => e.event === 'step_completed' && e.cycle === now.cycle && e.step === criteriaStep(flow, now.cycle);
  return entries.map((e) => (pins(e) ? ({ ...e, criteria: { file: now.file, items: now.criteria } } as JournalEntry) : e));
}

/** Drift that is said, and journaled otherwise than as `position_repaired` (or not at all). */
const NOT_REPAIRS: ReadonlySet<Drift['kind']> = new Set<Drift['kind']>(['hand-edit', 'journal-fork', 'inferred-skip', 'held-edit', 'held-criteria']);

/** What reconciliation itself changed, as journal entries: a run begun, work found on disk, a hand edit, a repair. */
export function reconciliationEntries(state: Pick<StepState, 'flow' | 'pointer' | 'record' | 'reconciled' | 'evidence' | 'lastRecord'>): JournalEntry[] {
  const { pointer, reconciled, flow, record } = state;
  const entries: JournalEntry[] = [];
  const begun = !pointer && !record.start;
  // A run the journal has no record of (begun from a hand-written pointer, or its journal lost) is pinned now: its steps stay its own.
  // So is a flow a person wrote into the pointer of a run with no journaled step (issue 30, point 5; on a run with one, the edit is held).
  if (begun || unpinned(state) || flowEdited(state)) {
    entries.push(
      entry('run_started', reconciled.position, { source: reconciled.source, flow_hash: flow.hash, flow_file: flowFileRef(flow), pinned: pinnedCopy(flow) }),
    );
  }
  // Work the folder shows done that the journal never heard of: record each completion the walk made (`walkFolder`:
  // never past a decision, a session boundary or a checkpointed step, and each step's files judged as `done` judges them).
  const walk = reconciled.walk;
  for (const found of walk?.found ?? []) {
    const step = stepByNumber(flow, found.step)!;
    entries.push(entry('step_completed', atStep(flow, step, found.cycle, 'completed'), { by: 'folder' }));
  }
  // The walk completed a step a decision follows: the question is asked now, as `done` asks it.
  if (walk?.stop.kind === 'decision' && walk.found.some((f) => f.step === reconciled.position.step)) {
    const then = stepByNumber(flow, walk.stop.step)!.then;
    if (then.kind === 'decision') entries.push(entry('decision_required', reconciled.position, { decision: then.id }));
  }
  // Optional steps the run passed without a record: journaled as skips, so the next command finds them settled.
  for (const d of reconciled.drift) {
    if (d.kind !== 'inferred-skip' || typeof d.step !== 'number') continue;
    const step = stepByNumber(flow, d.step)!;
    entries.push(entry('step_skipped', atStep(flow, step, reconciled.position.cycle, 'skipped'), { by: 'inferred', reason: d.message }));
  }
  const edits = reconciled.drift.filter((d) => d.kind === 'hand-edit');
  // A fork is journaled as `journal_merged` (`agreedEntries`, `atFork`), not as a repair; what is held for a person, by the transaction (`edit_held`).
  const repairs = reconciled.drift.filter((d) => !NOT_REPAIRS.has(d.kind));
  if (edits.length > 0)
    entries.push(entry('pointer_edited', reconciled.position, { ...(record.edited ? { edited: record.edited } : {}), message: edits[0]!.message }));
  if (repairs.length > 0) entries.push(entry('position_repaired', reconciled.position, { source: reconciled.source, drift: repairs.map((d) => d.message) }));
  return entries;
}

/** The journal entry for a lease taken from another session. */
function leaseEntries(lease: StepInput['lease'], position: Position): JournalEntry[] {
  if (lease?.kind !== 'take' || !lease.takenFrom) return [];
  const { holder, reason } = lease.takenFrom;
  return [entry('lease_taken_over', position, { from: holder.session, from_host: holder.host, reason, heartbeat: holder.heartbeat })];
}

/**
 * The step a transition enters, when the flow asks for a checkpoint before
 * it (`checkpoint_before`): the `step_started` of its first attempt. Once per
 * entry into the step: a resumed step journals no `step_started`, a retry
 * after a failure starts attempt 2 or more; a new cycle, a decision that
 * repeats the step and a person's `ack` start attempt 1 again.
 */
export function enteredMarkedStep(flow: Flow, transition: Transition): { step: Step; cycle: number } | undefined {
  for (const e of transition.entries) {
    if (e.event !== 'step_started' || e.attempt !== 1 || typeof e.step !== 'number') continue;
    const step = stepByNumber(flow, e.step);
    if (step && checkpointBefore(flow, step)) return { step, cycle: e.cycle };
  }
  return undefined;
}

/** The reason of the `step_failed` a command wrote, when it failed the step itself. */
function recordedFailure(entries: JournalEntry[]): string | undefined {
  const failed = entries.findLast((e) => e.event === 'step_failed');
  return typeof failed?.reason === 'string' ? failed.reason : undefined;
}

/** The checkpoint a transition calls for (docs/state-and-journal.md, "Checkpoints"). */
function checkpointFor(flow: Flow, transition: Transition, hourly: boolean): StepPlan['checkpoint'] {
  if (transition.entries.some((e) => e.event === 'boundary_reached')) return { label: 'boundary', note: 'automatic: a session boundary' };
  if (transition.outcome.kind === 'failed' && transition.entries.some((e) => e.event === 'step_failed'))
    return { label: 'failed', note: 'automatic: a step failed three times' };
  const entered = enteredMarkedStep(flow, transition);
  if (entered) {
    const { step, cycle } = entered;
    return {
      label: `before ${step.name}`,
      note: `automatic: before step ${step.number} ${step.name}${loopStart(flow) !== undefined ? `, cycle ${cycle}` : ''}`,
    };
  }
  // Seed 002's hourly checkpoint: the first command that records something an hour after the last one.
  if (hourly && transition.entries.length > 0) return { label: 'hourly', note: 'automatic: an hour since the last checkpoint' };
  return undefined;
}

/** Everything the command writes and says, from what it decided. `skill`: the skill state of `skillStateWanted`'s step. */
export function planStep(input: StepInput, decided: Transition, skill?: SkillState): StepPlan {
  const { event, state, now } = input;
  const { flow } = state;
  const position = state.reconciled.position;
  const notices: string[] = state.flowChange ? [state.flowChange] : [];

  const transition = skillStateWanted(event, decided) !== undefined ? resumeWhereSkillSays(decided, skill, notices) : decided;

  const target = aimAt(event, input.step, input.peeked, position);
  const at = target ?? { flow: flow.id, cycle: position.cycle, step: typeof position.step === 'number' ? position.step : 0 };
  const key = commandKey(event, at, position.retryCount + 1);
  // A command the rules refuse takes no lease and writes nothing: not even the repairs it found on the way. Nor does a fork's stop: nothing moves.
  if (transition.outcome.kind === 'refused' || transition.outcome.kind === 'fork') return { transition, entries: [], key, notices, passedOver: [] };
  // A person's answer to a fork writes only that: the kept side's position is judged by the folder at the next command.
  if (state.fork?.verdict.kind === 'disagree') {
    const kept = transition.entries[0] as Extract<JournalEntry, { event: 'journal_merged' }>;
    return {
      transition,
      entries: transition.entries,
      key,
      pointer: { position: transition.position },
      lease: input.lease?.lease,
      notices,
      answer: `${kept.kept ?? '?'}) keep side ${kept.kept ?? '?'}`,
      passedOver: [],
    };
  }
  const pinned = pinNotice(state);
  if (pinned) notices.push(pinned);
  const entries = withCriteriaPins(
    flow,
    [...agreedEntries(state), ...reconciliationEntries(state), ...leaseEntries(input.lease, position), ...transition.entries],
    input.criteriaNow,
  );
  // Issue 29 point 8: while an edit of the pinned criteria is held, no step's result is recorded (nor committed).
  if (state.criteriaHeld && recordsResult(entries)) {
    const refused: Transition = { position, entries: [], outcome: { kind: 'refused', problem: criteriaRefusal(flow, state.criteriaHeld, position) } };
    return { transition: refused, entries: [], key, notices, passedOver: [] };
  }
  const follow = event.type === 'next' && input.followThrough !== false ? followThrough(state.pointer?.lastAction, position, now, input.staleMs) : undefined;
  if (follow) {
    entries.unshift(entry('follow_through', position, { message: follow, expected: state.pointer?.lastAction?.next }));
    notices.unshift(follow);
  }

  const acted = typeof position.step === 'number' ? stepByNumber(flow, position.step) : undefined;
  const lastAction = lastActionOf(event, acted, transition.outcome, transition.position, now) ?? state.pointer?.lastAction;
  // A held hand edit seen for the first time, or dropped, is a change to record (the transaction journals it): the pointer is written.
  const moved = !state.pointer || !samePosition(state.pointer.position, transition.position) || state.heldChanged === true;
  // At a boundary (reached, answered "a new conversation", or shown again) this session's lease ends: the next conversation starts free.
  // A person's answer leaves the lease to the conversations, whoever holds it.
  const lease = input.person ? undefined : transition.outcome.kind === 'boundary' ? 'release' : input.lease?.lease;

  const reason = reasonShown(input, transition);
  const answered = answerOf(event, transition);
  const hourly = input.lastCheckpoint !== undefined && now.getTime() - input.lastCheckpoint.getTime() >= CHECKPOINT_EVERY_MS;
  const checkpoint = checkpointFor(flow, transition, hourly);

  return {
    transition,
    entries,
    key,
    pointer: entries.length > 0 || moved ? { position: transition.position, lastAction } : undefined,
    lease,
    ...(checkpoint ? { checkpoint } : {}),
    notices,
    acted,
    ...(reason ? { reason } : {}),
    ...(answered ? { answer: `${String(answered.option)}) ${String(answered.choice)}` } : {}),
    passedOver: passedOverOf(transition),
  };
}

/** The notice of a run pinned by this command: one the journal has no record of, or one whose flow was changed before any step. */
function pinNotice(state: StepState): string | undefined {
  const { flow } = state;
  if (unpinned(state))
    return `the journal has no record of this run: it is pinned now to ${flowFileRef(flow)} as it is (${flow.steps.length} steps); an edit of that file no longer changes the run's steps`;
  if (flowEdited(state))
    return `the pointer names the flow ${flow.id}, the journal ${state.lastRecord!.pointer.flow}: the run, which has journaled no step, is pinned now to ${flowFileRef(flow)} as it is (${flow.steps.length} steps)`;
  return undefined;
}

/**
 * The reason the answer shows: the command's own `--reason`; for a failed
 * step the failure the journal records, this command's own when it failed
 * the step, else the last `step_failed` (a refused command's `--reason` was
 * never recorded, so it is no step's failure).
 */
function reasonShown(input: StepInput, transition: Transition): string | undefined {
  const { event } = input;
  if (transition.outcome.kind === 'failed') return recordedFailure(transition.entries) ?? input.lastFailure;
  return 'reason' in event ? event.reason : event.type === 'done' ? event.force?.reason : undefined;
}

/** The option a `decide` chose: a flow's decision, or a session boundary's (a new session crossing one chose nothing). */
function answerOf(event: Event, transition: Transition) {
  return transition.entries.find(
    (e): e is JournalEntry<'decision_answered' | 'boundary_answered'> =>
      e.event === 'decision_answered' || (e.event === 'boundary_answered' && event.type === 'decide'),
  );
}

/** The steps passed over on the way because their condition does not hold. */
function passedOverOf(transition: Transition): StepPlan['passedOver'] {
  return transition.entries
    .filter((e) => e.event === 'step_skipped')
    .filter((e) => e.by === 'condition' && typeof e.step === 'number')
    .map((e) => ({ step: e.step as number, name: e.name, reason: String(e.reason) }));
}
