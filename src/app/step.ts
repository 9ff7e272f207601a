/**
 * next, done, fail, skip, decide, ack, substep — for every front end. One
 * command: validate the arguments; note the step it is aimed at; take the
 * lock; read and reconcile; check the lease; recognise a repeat; apply the
 * rules; commit; show. The rules themselves are the pure engine's.
 */
import { mkdirSync } from 'node:fs';
import { evidenceFor, hasArtifacts } from '../engine/evidence.js';
import { atStep } from '../engine/reconcile.js';
import { entry, type JournalEntry, type PointerRecord } from '../engine/journal-entry.js';
import { judgeLease, type Lease, type LeaseVerdict } from '../engine/lease.js';
import { commandKey, DECISIVE, judgeRepeat, repeatsLastCommand, type Target } from '../engine/repeat.js';
import { followThrough, lastActionOf } from '../engine/follow-through.js';
import { apply, exitCodeOf, type Event, type Transition } from '../engine/transitions.js';
import { InputError } from '../errors.js';
import { loopStart, stepByNumber, type Flow } from '../flow/model.js';
import { pinnedCopy } from '../engine/pin.js';
import { crashPoint } from '../io/crash-point.js';
import { latestAbout } from '../io/journal-head.js';
import { acquireLock, type Lock } from '../io/lock.js';
import { readLease } from '../io/lease-file.js';
import { thisMachine } from '../io/machine.js';
import { displayPath, gatePath, openRepo, type Repo } from '../io/repo.js';
import { skillFile } from '../io/skills.js';
import { samePosition, type Position } from '../state/position.js';
import { commit, type Plan, type Written } from './commit.js';
import type { Context } from './context.js';
import { readState } from './read-state.js';
import { flowChangeNotice, loadRepoFlows } from './flows.js';
import { heldError } from './lease-view.js';
import { peekPosition, readPointerText, type Loaded } from './load-state.js';
import { prune, snapshot } from './checkpoints.js';
import { readSettings } from './settings.js';
import { validateEvent } from './validate-event.js';
import { buildView, type View } from './view.js';
import { boundarySummary } from './boundary-summary.js';
import { makeProgressCommit, prepareProgressCommit } from './progress-commit.js';
import { holdRemoteLease } from './remote-lease.js';
import { disagreement, skillPosition } from './skill-position.js';

export interface StepRequest {
  event: Event;
  /** `--step N`: the step the command is for; by default the current one when the command starts. */
  step?: number;
  /** `--take-over`: take the lease from another session (journaled). */
  takeOver?: boolean;
  /** `--commit`: a progress commit when the command finishes something (also `commit: true` in the settings). */
  commit?: boolean;
}

export interface StepResult {
  view: View;
  exit: number;
  written: Written;
}

/** Commands that speak about one step; `next` always acts on the current one. */
const AIMED = new Set<Event['type']>(['done', 'fail', 'skip', 'substep', 'decide', 'ack']);
/** `ack` is a person's word on a failed step, not driving: it needs no lease. */
const DRIVES = (event: Event) => event.type !== 'ack';

export async function takeLock(repo: Repo, session: string, waitMs: number): Promise<Lock> {
  gatePath(repo, repo.lockFile);
  let lock: Lock;
  try {
    mkdirSync(repo.autopilotDir, { recursive: true });
    lock = await acquireLock(repo.lockFile, session, waitMs);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!code || !GUARD_ERRORS.has(code)) throw error;
    throw new InputError(
      {
        file: displayPath(repo.lockFile, repo.root),
        message: `the lock cannot be taken (${code}), so nothing runs unguarded: no command here can change the state`,
        expected: `a writable ${displayPath(repo.autopilotDir, repo.root)} folder`,
        received: code,
      },
      'Make the folder writable (or free some disk space), then run the command again. `autopilot status` reads without the lock.',
      'guard_off',
    );
  }
  crashPoint('after-lock');
  return lock;
}

/** Failures that mean a guard cannot work here, as opposed to a bug. */
const GUARD_ERRORS = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT']);

/** What reconciliation itself changed, as journal entries. */
export function reconciliationEntries(loaded: Loaded): JournalEntry[] {
  const { pointer, reconciled, flow, record } = loaded;
  const entries: JournalEntry[] = [];
  if (!pointer && !record.start) {
    entries.push(
      entry('run_started', reconciled.position, { source: reconciled.source, flow_hash: flow.hash, flow_file: flowFileRef(flow), pinned: pinnedCopy(flow) }),
    );
  }
  // Work the folder shows done that the journal never heard of: record each completion, so history matches the files.
  const found = reconciled.drift.some((d) => d.kind === 'ahead-on-disk') || (!pointer && !record.start);
  if (found && typeof reconciled.position.step === 'number') {
    const from = typeof pointer?.position.step === 'number' ? pointer.position.step : 1;
    for (const step of flow.steps) {
      if (step.number < from || step.number >= reconciled.position.step || !hasArtifacts(evidenceFor(loaded.evidence, step.number))) continue;
      entries.push(entry('step_completed', atStep(flow, step, reconciled.position.cycle, 'completed'), { by: 'folder' }));
    }
  }
  const edits = reconciled.drift.filter((d) => d.kind === 'hand-edit');
  const repairs = reconciled.drift.filter((d) => d.kind !== 'hand-edit');
  if (edits.length > 0)
    entries.push(entry('pointer_edited', reconciled.position, { ...(record.edited ? { edited: record.edited } : {}), message: edits[0]!.message }));
  if (repairs.length > 0) entries.push(entry('position_repaired', reconciled.position, { source: reconciled.source, drift: repairs.map((d) => d.message) }));
  return entries;
}

/** A flow file as the journal names it: a path inside the repository, or `builtin:<id>`; never a path of this machine. */
export function flowFileRef(flow: Flow): string {
  return flow.file.startsWith('.autopilot/') ? flow.file : `builtin:${flow.id}`;
}

function aimedTarget(request: StepRequest, peeked: Position | undefined, now: Position): Target | undefined {
  if (!AIMED.has(request.event.type)) return undefined;
  const base = peeked ?? now;
  const step = request.step ?? (typeof base.step === 'number' ? base.step : undefined);
  return step === undefined ? undefined : { flow: base.flow, cycle: base.cycle, step };
}

function samePositionAsRecord(position: Position, record: PointerRecord): boolean {
  return position.flow === record.flow && position.step === record.step && position.cycle === record.cycle && position.status === record.status;
}

function stopOrDuplicate(flow: Flow, loaded: Loaded, of: { seq: number; event: string }, session: string): Transition {
  const position = loaded.reconciled.position;
  // Where a person must act first (a decision, a failure, a boundary), say so again, as the first answer did.
  const stop = apply(flow, position, loaded.evidence, { type: 'next' }, { session, ...(loaded.boundary ? { boundary: loaded.boundary } : {}) });
  if (stop.outcome.kind === 'decision' || stop.outcome.kind === 'failed' || (stop.outcome.kind === 'boundary' && loaded.boundary))
    return { ...stop, entries: [] };
  return { position, entries: [], outcome: { kind: 'duplicate', of: of.seq, event: of.event } };
}

type OnDiskVerdict = LeaseVerdict | { kind: 'held'; holder: undefined; unreadable: string };

function judgeLeaseOnDisk(repo: Repo, ctx: Context, staleMs: number, takeOver: boolean): OnDiskVerdict {
  const onDisk = readLease(repo.leaseFile);
  if ('unreadable' in onDisk && !takeOver) return { kind: 'held', holder: undefined, unreadable: onDisk.unreadable };
  const current = 'unreadable' in onDisk ? undefined : onDisk.lease;
  return judgeLease(current, { session: ctx.session, ...thisMachine() }, ctx.now(), staleMs, takeOver);
}

export async function runStep(ctx: Context, request: StepRequest): Promise<StepResult> {
  const event = validateEvent(request.event);
  const repo = openRepo(ctx.repo);
  const flows = await loadRepoFlows(repo, true);
  const settings = await readSettings(repo);
  const peeked = request.step === undefined ? peekPosition(repo) : undefined;
  // Refused before anything is written: a progress commit asked for where none can be made.
  const git = request.commit || settings.commit ? await prepareProgressCommit(repo) : undefined;
  // Agents on several machines: the lease on the shared remote first (exit 4 when another machine's session holds it).
  if (settings.remote && DRIVES(event)) await holdRemoteLease(repo, settings.remote, ctx.session, ctx.now(), settings.staleMs, request.takeOver === true);
  const lock = await takeLock(repo, ctx.session, ctx.lockWaitMs ?? 10_000);
  try {
    const writer = { session: ctx.session, now: ctx.now };
    // Rule 6 first: a session that may not drive pays nothing for reading the state.
    const verdict = DRIVES(event) ? judgeLeaseOnDisk(repo, ctx, settings.staleMs, request.takeOver === true) : undefined;
    if (verdict?.kind === 'held' && lock.broken.length === 0) throw heldError(repo, verdict);
    const loaded = await readState(repo, flows);
    const { flow } = loaded;
    const position = loaded.reconciled.position;
    const { lastSeq } = loaded;
    const guardEntries = lock.broken.map((h) => entry('lock_broken', position, { holder: { pid: h.pid, host: h.host, session: h.session, at: h.at } }));
    if (verdict?.kind === 'held') {
      // The locks it broke on the way in are journaled all the same.
      commit(repo, lock, lastSeq, { entries: guardEntries, pointer: pointerPlan(loaded, position), flowHash: flow.hash }, writer);
      throw heldError(repo, verdict);
    }
    let lease: Lease | 'release' | undefined = verdict?.lease;
    const leaseEntries: JournalEntry[] = [];
    if (verdict?.kind === 'take' && verdict.takenFrom) {
      const { holder, reason } = verdict.takenFrom;
      leaseEntries.push(entry('lease_taken_over', position, { from: holder.session, from_host: holder.host, reason, heartbeat: holder.heartbeat }));
    }

    // Aimed at a step: refuse a command meant for another step; recognise one that already took effect.
    let transition: Transition | undefined;
    const target = aimedTarget(request, peeked, position);
    if (target) {
      if (target.flow === flow.id && !stepByNumber(flow, target.step)) {
        throw new InputError({
          message: `--step ${target.step}: ${flow.id} has no such step`,
          expected: `a step from 1 to ${flow.steps.length}`,
          received: String(target.step),
        });
      }
      const latest = latestAbout(repo.journalFile, target, DECISIVE);
      const name = stepByNumber(flow, target.step)?.name ?? '?';
      const verdict = judgeRepeat(event, target, name, position, latest);
      if (verdict.kind === 'duplicate') transition = stopOrDuplicate(flow, loaded, verdict.of, ctx.session);
      if (verdict.kind === 'moved') transition = { position, entries: [], outcome: { kind: 'refused', problem: verdict.problem } };
    }
    // Not aimed at a step by name, and the very command this session last recorded: a retry, recorded once.
    const last = loaded.head.record;
    if (!transition && request.step === undefined && last && repeatsLastCommand(event, ctx.session, last) && samePositionAsRecord(position, last.pointer)) {
      transition = stopOrDuplicate(flow, loaded, { seq: last.seq, event: last.key!.split(':')[0]! }, ctx.session);
    }
    transition ??= apply(flow, position, loaded.evidence, event, { session: ctx.session, ...(loaded.boundary ? { boundary: loaded.boundary } : {}) });
    // Re-entry: a skill that keeps its own progress file is the better judge of where inside the step the work is.
    const notices: string[] = loaded.flowChange ? [flowChangeNotice(loaded)] : [];
    if (event.type === 'next' && transition.outcome.kind === 'work' && typeof transition.position.step === 'number') {
      const state = await skillPosition(repo, stepByNumber(flow, transition.position.step)!, transition.position.cycle);
      const differs = disagreement(state, transition.position.subStep);
      if (differs) notices.push(differs);
      if (differs && state && 'position' in state) {
        const resumed = { ...transition.position, status: 'in_progress' as const, subStep: state.position };
        const note = entry('skill_state_differs', resumed, { file: state.file, skill_sub_step: state.position, pointer_sub_step: transition.position.subStep });
        transition = { ...transition, position: resumed, entries: [...transition.entries, note] };
      }
    }

    // At a boundary (reached, answered "a new conversation", or shown again) this session's lease ends: the next conversation starts free.
    if (transition.outcome.kind === 'boundary') lease = 'release';
    const entries = [...guardEntries, ...reconciliationEntries(loaded), ...leaseEntries, ...transition.entries];
    const at = target ?? { flow: flow.id, cycle: position.cycle, step: typeof position.step === 'number' ? position.step : 0 };
    const plan: Plan = {
      entries,
      key: commandKey(event, at, position.retryCount + 1),
      flowHash: flow.hash,
      lease,
      ...(loaded.index ? { index: loaded.index } : {}),
    };
    const acted = typeof position.step === 'number' ? stepByNumber(flow, position.step) : undefined;
    const notice = event.type === 'next' ? followThrough(loaded.pointer?.lastAction, position, ctx.now(), settings.staleMs) : undefined;
    if (notice) {
      plan.entries.unshift(entry('follow_through', position, { message: notice, expected: loaded.pointer?.lastAction?.next }));
      notices.unshift(notice);
    }
    const lastAction = lastActionOf(event, acted, transition.outcome, transition.position, ctx.now()) ?? loaded.pointer?.lastAction;
    const moved = !loaded.pointer || !samePosition(loaded.pointer.position, transition.position);
    if (plan.entries.length > 0 || moved) plan.pointer = pointerPlan(loaded, transition.position, lastAction);
    // A skill file the agent must not be handed (too large, not a file) refuses the work order before anything is written.
    if (transition.outcome.kind === 'work' && typeof transition.position.step === 'number') {
      const skill = skillFile(repo, stepByNumber(flow, transition.position.step)!.skill);
      if (skill.problem) throw new InputError(skill.problem);
    }
    // A pointer that did not parse is kept, byte for byte, before it is rewritten.
    if (loaded.brokenPointer !== undefined && plan.pointer) {
      const backup = repo.pointerFile.replace(/\.md$/, `.broken-${ctx.now().toISOString().replaceAll(':', '')}.md`);
      (plan.files ??= []).push({ path: backup, text: loaded.brokenPointer });
      notices.push(`the unreadable pointer was kept as ${displayPath(backup, repo.root)}`);
    }
    const written = commit(repo, lock, lastSeq, plan, writer);
    // Seed 002: a checkpoint before a session boundary, and when a step fails for good.
    const label = transition.entries.some((e) => e.event === 'boundary_reached')
      ? 'boundary'
      : transition.outcome.kind === 'failed' && transition.entries.some((e) => e.event === 'step_failed')
        ? 'failed'
        : undefined;
    if (label && written.entries.length > 0) {
      const shot = snapshot(
        label,
        `automatic: ${label === 'boundary' ? 'a session boundary' : 'a step failed three times'}`,
        ctx.now(),
        written.entries.at(-1)!.seq,
        readPointerText(repo) ?? '',
      );
      commit(
        repo,
        lock,
        written.entries.at(-1)!.seq,
        { entries: [], files: [{ path: shot.path(repo), text: JSON.stringify(shot.body, null, 2) + '\n' }] },
        writer,
      );
      prune(repo, ctx.now());
    }

    let reason = 'reason' in event ? event.reason : event.type === 'done' ? event.force?.reason : undefined;
    // A failed step shows why, in whichever session asks: the last reason is in the journal.
    if (transition.outcome.kind === 'failed' && !reason && typeof position.step === 'number') {
      const failed = latestAbout(repo.journalFile, { flow: flow.id, cycle: position.cycle, step: position.step }, new Set(['step_failed']));
      if (typeof failed?.reason === 'string') reason = failed.reason;
    }
    const passedOver = transition.entries
      .filter((e) => e.event === 'step_skipped' && e.by === 'condition' && typeof e.step === 'number')
      .map((e) => ({ step: e.step as number, name: e.name, reason: String(e.reason) }));
    const answered = transition.entries.find((e) => e.event === 'decision_answered');
    const committed = git ? await makeProgressCommit(git, repo, loaded, flow, transition, written, ctx.session) : undefined;
    const outcome = transition.outcome;
    const summary = outcome.kind === 'boundary' && !outcome.answered ? await boundarySummary(repo, flow, outcome.after, position.cycle) : undefined;
    const view = buildView(event.type, loaded, transition.position, transition.outcome, {
      ...(summary ? { summary } : {}),
      ...(committed ? { committed } : {}),
      ...(answered ? { answer: `${String(answered.option)}) ${String(answered.choice)}` } : {}),
      ...(acted ? { acted } : {}),
      ...(reason ? { reason } : {}),
      ...(passedOver.length > 0 ? { passedOver } : {}),
      ...(notices.length > 0 ? { notices } : {}),
    });
    return { view, exit: exitCodeOf(transition.outcome), written };
  } finally {
    lock.release();
  }
}

export function pointerPlan(loaded: Loaded, position: Position, lastAction = loaded.pointer?.lastAction): NonNullable<Plan['pointer']> {
  return {
    position,
    extras: {
      loops: loopStart(loaded.flow) !== undefined,
      preamble: loaded.pointer?.preamble ?? '',
      extraSections: loaded.pointer?.extraSections ?? '',
      ...(lastAction ? { lastAction } : {}),
    },
  };
}
