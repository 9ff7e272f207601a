/**
 * The one transaction every writing command runs in, in this order:
 *
 * 1. open the repository, load the flows (writing the flow cache when the
 *    spec says so) and read the settings;
 * 2. `prepare`: what the command must know or refuse before anything is
 *    locked (the step the agent was handed, whether a progress commit can be
 *    made); the remote lease for a command that drives;
 * 3. take the lock;
 * 4. for a command that drives, judge the lease on disk (rule 6) before the
 *    state is read: another session's lease is exit 4; a person's command
 *    (`person`) neither drives nor touches the lease, whoever holds it;
 * 4½. a progress commit the journal says is owed (a command killed, or git
 *    refusing, after the state was written) is made, once, before anything
 *    else (`app/progress-commit.ts`); where git still cannot take it (by
 *    default), this command's batch carries it on (`engine/owed-commit.ts`);
 * 5. `decide`: the command reads the state under the lock (`tx.state()`, once)
 *    and returns a plan;
 * 6. commit the plan (`commit`: journal, pointer, lease, files, checkpoint,
 *    index), the locks broken on the way in journaled first;
 * 7. `answer`: what the command says, still under the lock (a progress
 *    commit, a boundary's summary);
 * 8. release the lock.
 *
 * It returns the answer and what was written, as changesets'
 * `applyReleasePlan` returns the files it touched.
 */
import { mkdirSync } from 'node:fs';
import { entry, fromPointerRecord } from '../formats/journal-line.js';
import { holds, judgeLease, sameConversation, type LeaseVerdict } from '../engine/lease.js';
import { DISK_FULL, diskFull, GitFailed, InputError } from '../errors.js';
import { loopStart, type Flow } from '../flow/model.js';
import { crashPoint } from '../io/crash-point.js';
import { readJournalHead, type JournalHead } from '../io/journal-head.js';
import { readLease } from '../io/lease-file.js';
import { LOCAL_LEASE_PLACE, noteSighting, readSighting } from '../io/lease-sightings.js';
import { acquireLock, type Lock } from '../io/lock.js';
import { conversationGone, conversationProcess, seesOtherProcesses } from '../io/conversation.js';
import { thisMachine } from '../io/machine.js';
import { displayPath, gatePath, openRepo, type Repo } from '../io/repo.js';
import { LOCK_WAIT_MS } from '../limits.js';
import { skillStateFiles } from './skill-position.js';
import type { LastAction } from '../formats/pointer/parse-pointer.js';
import type { Position } from '../formats/pointer/position.js';
import { positionHash } from '../formats/pointer/serialize-pointer.js';
import { commit, type Plan, type Written } from './commit.js';
import { skillsPinned, withSkillsPinned } from './skill-pins.js';
import { keepOwed, makeOwedCommit, notedMade, noteMade, owedOnRecord, type CommitGit, type Made, type OwedCommit } from './progress-commit.js';
import type { Context } from './context.js';
import { loadRepoFlows } from './flows.js';
import { heldError } from './lease-view.js';
import type { Loaded } from './load-state.js';
import { readState } from './read-state.js';
import { holdRemoteLease } from './remote-lease.js';
import type { Settings } from '../formats/settings.js';
import { readSettings } from './settings.js';
import { carryOwed } from '../engine/owed-commit.js';
import type { JudgedText } from './step/judged.js';

/** What a command has before the lock is taken. */
export interface Opened {
  repo: Repo;
  flows: Flow[];
  settings: Settings;
}

export interface TransactionSpec<P> {
  /**
   * The flows: `cache` loads them and keeps new parses of the repository's
   * own in the flow cache (written before the lock: a cache keyed by
   * content), `read` only loads them, `none` (`init`) leaves them alone.
   */
  flows: 'cache' | 'read' | 'none';
  /** A command that drives the run: the lease is judged under the lock, the remote lease held first when the settings name one. */
  drives?: { takeOver: boolean };
  /**
   * A person acting on the run (rule 6: `decide`, `ack`, `done --force`,
   * `restore`, `repin`): it does not drive, so no lease is judged, taken,
   * renewed or released, and its entries say `actor: person`.
   */
  person?: true;
  /** A person's `adopt`: a journal that lost events is read, not refused (rule 7). */
  adoptsCut?: true;
  /** What the command must know, or refuse, before the lock is taken; nothing has been written yet. */
  prepare?: (opened: Opened) => P | Promise<P>;
}

export interface Tx<P> extends Opened {
  ctx: Context;
  prepared: P;
  lock: Lock;
  /** For a command that drives: the lease it takes or renews (never `held`: that stopped the transaction). */
  lease?: Exclude<LeaseVerdict, { kind: 'held' }>;
  /** The state, read and reconciled under the lock; read once, on the first call. */
  state(): Promise<Loaded>;
}

export interface Decided<T> {
  plan: Plan;
  /** Git, opened by the command for a progress commit its plan owes (the plan's last entry is `progress_commit_owed`). */
  git?: Pick<CommitGit, 'handle' | 'state'>;
  /** The commit was asked for (`--commit`, `commit: true`): git refusing it is exit 1, the commit owed; by default it is a notice. */
  strict?: boolean;
  /** Why git cannot take the commit now (a detached HEAD, an operation under way): by default it stays owed, not tried. */
  blocked?: string;
  /** The files `done`'s judges read, with their text: the commit holds them as judged. */
  judged?: JudgedText[];
  /** What the command says once the plan is written (and its progress commit made), still under the lock. */
  answer: (written: Written) => T | Promise<T>;
}

export async function transact<P = undefined, T = void>(
  ctx: Context,
  spec: TransactionSpec<P>,
  decide: (tx: Tx<P>) => Decided<T> | Promise<Decided<T>>,
): Promise<{ result: T; written: Written }> {
  const repo = openRepo(ctx.repo);
  const flows = spec.flows === 'none' ? [] : await loadRepoFlows(repo, spec.flows === 'cache');
  const settings = await readSettings(repo);
  const opened = { repo, flows, settings };
  const prepared = (await spec.prepare?.(opened)) as P;
  // Agents on several machines: the lease on the shared remote first (exit 4 when another machine's session holds it).
  if (spec.drives && settings.remote)
    await holdRemoteLease(repo, settings.remote, ctx.session, ctx.now(), settings.remoteStaleMs, spec.drives.takeOver, settings.remoteTimeoutMs);
  const lock = await takeLock(repo, ctx.session, ctx.lockWaitMs ?? LOCK_WAIT_MS, spec.drives?.takeOver === true);
  try {
    const actor = spec.person ? { actor: 'person' as const } : {};
    const writer = { session: ctx.session, now: ctx.now };
    let loaded: Loaded | undefined;
    // The journal's end as read under the lock for an owed commit: the state's read takes it while nothing was written since.
    let head: JournalHead | undefined;
    const state = async () => (loaded ??= await readState(repo, flows, head, { writing: true, adoptCut: spec.adoptsCut }));
    // The locks broken on the way in are journaled with whatever the command writes, once the state is known.
    const brokenEntries = (at: Loaded) =>
      lock.broken.map((h) =>
        entry('lock_broken', at.reconciled.position, { holder: { pid: h.pid, host: h.host, session: h.session, at: h.at }, reason: h.reason }),
      );

    let lease: Tx<P>['lease'];
    let driver = ctx;
    if (spec.drives) {
      // Rule 6 first: a session that may not drive pays nothing for reading the state.
      const verdict = judgeLeaseOnDisk(repo, ctx, settings.staleMs, spec.drives.takeOver);
      if (verdict.kind === 'held') {
        if (lock.broken.length > 0) {
          const at = await state();
          commit(repo, lock, at.lastSeq, { entries: brokenEntries(at), pointer: pointerAt(at, at.reconciled.position), flowHash: at.flow.hash }, writer);
        }
        throw heldError(repo, verdict);
      }
      lease = verdict;
      // The same conversation under another name drives as the session that holds the lease.
      if (verdict.kind === 'renew' && verdict.as) driver = { ...ctx, session: verdict.as };
    }

    // A commit the last command owes comes first: the history then says what happened, in order.
    const notices: string[] = [];
    // The journal ends with a progress commit made: a command that writes nothing else leaves it, and the tree, as committed.
    let committedEnd = false;
    // A commit still owed that git cannot take now (by default): this command's batch carries it on (rule 11).
    let carried: { owed: OwedCommit; made: Made } | undefined;
    if (spec.flows !== 'none' && settings.commit !== false) {
      head = readJournalHead(repo.journalFile);
      const owed = owedOnRecord(head);
      if (owed && notedMade(repo, owed, head.last)) committedEnd = true;
      else if (owed) {
        // The pointer the command left, when a kill came before its write: the commit holds the pointer the command leaves.
        // Read again after: the pointer brought up is no drift for the command to repair and journal.
        if (bringPointerUp(repo, lock, owed, await state(), writer)) loaded = undefined;
        const made = await settle(repo, owed, { strict: settings.commit !== 'auto' });
        if (made.deferred !== undefined) carried = { owed, made };
        else if (made.notice) notices.push(made.notice);
        if (made.dropped !== undefined) {
          // A line of its own: the pointer stays as it is.
          commit(repo, lock, head.lastSeq, { entries: [entry('progress_commit_made', fromPointerRecord(owed.pointer!), withoutNotice(made))] }, writer);
          head = undefined;
          loaded = undefined;
        } else if (made.sha) {
          noteMade(repo, owed, made.sha);
          committedEnd = true;
        }
      }
    }

    const tx: Tx<P> = { ...opened, ctx: driver, prepared, lock, ...(lease ? { lease } : {}), state };
    const { plan, answer, git, strict, blocked, judged } = await decide(tx);
    const at = loaded as Loaded | undefined;
    const lastSeq = at ? at.lastSeq : readJournalHead(repo.journalFile).lastSeq;
    if (at) {
      let broken = brokenEntries(at);
      // The lock of a command killed on this machine, when this one writes nothing else after a progress commit (a retry
      // answered "already recorded"): said, not journaled, so nothing of autopilot's is left modified after the commit.
      if (committedEnd && plan.entries.length === 0 && broken.every((e) => e.reason === 'gone')) {
        for (const e of broken)
          notices.push(`removed the lock a killed command left (pid ${e.holder.pid}, session ${e.holder.session}); its work is recorded and committed`);
        broken = [];
      }
      if (broken.length > 0) {
        plan.entries = [...broken, ...plan.entries];
        plan.pointer ??= pointerAt(at, at.reconciled.position);
      }
      journalHeld(at, plan);
      if (plan.entries.length > 0) plan.flowHash ??= at.flow.hash;
      await pinSkills(repo, at, plan);
      // A command that drives and writes holds the lease it was judged to take (a refused one writes nothing, and takes none).
      if (lease && plan.entries.length > 0 && plan.lease === undefined) plan.lease = lease.lease;
      if (at.index) plan.index ??= at.index;
      // Seed 002: a checkpoint holds the skills' own state files as they are now, beside the pointer.
      if (plan.checkpoint && !plan.checkpoint.skillState) {
        const states = await skillStateFiles(repo, at.flow, (plan.pointer?.position ?? at.reconciled.position).cycle);
        const kept = states.flatMap((s) => (s.text === undefined ? [] : [{ file: s.file, text: s.text }]));
        if (kept.length > 0) plan.checkpoint.skillState = kept;
      }
    }
    // A commit still owed ends this batch too: in the command's own, or owed again.
    if (carried && plan.entries.length > 0) plan.entries = carryOwed(plan.entries, carried.owed);
    else if (carried?.made.notice) notices.push(carried.made.notice);
    const written = commit(repo, lock, lastSeq, plan, { session: driver.session, now: ctx.now, ...actor });
    // The progress commit the plan owes is made now; a failure leaves it owed (exit 1), for the next command to make, or by default says why none was made.
    const owed = owedOnRecord({ record: written.entries.length > 0 ? { entry: written.entries.at(-1)! } : undefined });
    if (owed) {
      crashPoint('before-progress-commit');
      // Carried on: git refused it moments ago, so it is not tried again.
      const made = await settle(repo, owed, { git, fresh: true, strict: strict === true, blocked: carried?.made.deferred ?? blocked, judged });
      crashPoint('after-progress-commit');
      if (made.notice) notices.push(made.notice);
      if (made.dropped !== undefined) {
        // No commit: said in a line of its own, after the batch; the pointer stays as the plan left it.
        const madeWritten = commit(
          repo,
          lock,
          owed.seq,
          { entries: [entry('progress_commit_made', fromPointerRecord(owed.pointer!), withoutNotice(made))] },
          { session: driver.session, now: ctx.now, ...actor },
        );
        written.entries.push(...madeWritten.entries);
      } else if (made.sha) noteMade(repo, owed, made.sha);
      written.progressCommit = withoutNotice(made);
    }
    if (notices.length > 0) written.notices = notices;
    return { result: await answer(written), written };
  } finally {
    lock.release();
  }
}

/**
 * The skills' pin rides on every record a run writes (`skills_hash`); a run
 * whose journal pins none (begun now, or by an older autopilot) is pinned by
 * this write, journaled (on its `run_started`, or as `skills_pinned`): the
 * skills as they read now, which is what such a run was judged by already,
 * so nothing changes for it and nothing is said.
 */
async function pinSkills(repo: Repo, at: Loaded, plan: Plan): Promise<void> {
  if (plan.entries.length === 0 || plan.skillsHash !== undefined) return;
  if (at.skills) {
    plan.skillsHash = at.skills.hash;
    return;
  }
  const pinned = await skillsPinned(repo, at.flow);
  plan.entries = withSkillsPinned(plan.entries, plan.pointer?.position ?? at.reconciled.position, pinned);
  plan.skillsHash = pinned.skills_hash;
}

/**
 * Makes an owed commit. Asked for (`strict`): git refusing is exit 1 (git's
 * words), or exit 2 for a situation (a rebase under way), and the commit
 * stays owed, made by the next command; nothing else runs meanwhile. By
 * default (rule 11): not made now, still owed, said — the step is recorded,
 * and every later command carries the commit on until git takes it; where
 * git is known to refuse (`blocked`: a detached HEAD), it is not tried.
 */
export async function settle(
  repo: Repo,
  owed: OwedCommit,
  options: { git?: Pick<CommitGit, 'handle' | 'state'>; fresh?: boolean; strict: boolean; blocked?: string; judged?: readonly JudgedText[] },
): Promise<Made> {
  if (options.blocked !== undefined && !options.strict) return deferred(repo, owed, options, options.blocked);
  try {
    return await makeOwedCommit(repo, owed, options.git && { git: options.git, fresh: options.fresh }, options.judged);
  } catch (error) {
    const said = error instanceof InputError ? error.problems.map((p) => p.message).join('; ') : error instanceof Error ? error.message : String(error);
    const words = said.replace(/\s*\n\s*/g, '; ');
    if (!options.strict) return deferred(repo, owed, options, words);
    if (error instanceof InputError) throw error;
    throw new GitFailed(
      `the progress commit of event ${owed.seq} (step ${owed.step} ${owed.name}, ${owed.status}) could not be made: ${words}`,
      'The state is written; the commit is owed (`autopilot status` shows it). Fix what git says, then run any autopilot command: it makes the commit first, once. To go on without it, set `commit: false` in .autopilot/config.yml.',
    );
  }
}

/** A commit git cannot take now, by default: still owed, what it needs kept for later (`keepOwed`), said. */
async function deferred(
  repo: Repo,
  owed: OwedCommit,
  options: { git?: Pick<CommitGit, 'handle'>; judged?: readonly JudgedText[] },
  said: string,
): Promise<Made> {
  await keepOwed(repo, owed, options.git?.handle, options.judged ?? []);
  // Git's refusal in its words, without the refusal's own preamble ("no progress commit now: … nothing was written").
  const words = said.replace(/^no progress commit( now)?: /, '').replace(/; nothing was written$/, '');
  const also = owed.carries?.length ? `, holding ${owed.carries.join('; ')} too` : '';
  return {
    owed: owed.seq,
    deferred: words,
    notice: `no progress commit now for step ${owed.step} ${owed.name} (${owed.status})${also}: ${words}. The step is recorded and its commit is owed: the next command that writes makes it once git can take it (\`autopilot status\` names its files; \`commit: false\` in .autopilot/config.yml turns progress commits off)`,
  };
}

const withoutNotice = ({ notice: _notice, ...made }: Made) => made;

/**
 * A kill between the journal and the pointer write of a command that owes a
 * commit left the pointer behind (or without) the owed event: it is written
 * as that command would have, before the commit, so the commit holds the
 * pointer the command leaves. A pointer a person edited, one that does not
 * parse, or a merge the journal holds is left to the command.
 */
function bringPointerUp(repo: Repo, lock: Lock, owed: OwedCommit, loaded: Loaded, writer: { session: string; now: () => Date }): boolean {
  if (loaded.brokenPointer !== undefined || loaded.fork || !owed.pointer) return false;
  const pointer = loaded.pointer;
  const behind = pointer === null || (pointer.record !== undefined && pointer.record.seq < owed.seq && pointer.record.hash === positionHash(pointer.position));
  if (!behind) return false;
  const at = pointerAt(loaded, fromPointerRecord(owed.pointer));
  commit(repo, lock, owed.seq, { entries: [], pointer: { ...at, extras: { ...at.extras, seq: owed.seq } } }, writer);
  return true;
}

/**
 * The pointer to write for a position, keeping what a person added around the
 * six lines, and showing a hand edit held for a person while it is held.
 */
export function pointerAt(loaded: Loaded, position: Position, lastAction: LastAction | undefined = loaded.pointer?.lastAction): NonNullable<Plan['pointer']> {
  const held = loaded.held && !loaded.held.dismissed ? loaded.held.edit : undefined;
  return {
    position,
    extras: {
      loops: loopStart(loaded.flow) !== undefined,
      preamble: loaded.pointer?.preamble ?? '',
      extraSections: loaded.pointer?.extraSections ?? '',
      ...(lastAction ? { lastAction } : {}),
      ...(held ? { held } : {}),
    },
  };
}

/**
 * Rule 7: a hand edit this read found held (or found dropped, its section
 * deleted) is journaled by the first command that writes anything, as
 * `edit_held` (`edit_dismissed`), before the command's own entries; the
 * pointer is then written, showing it while it is held.
 */
function journalHeld(at: Loaded, plan: Plan): void {
  const held = at.held;
  if (!held || !(held.fresh || held.dismissed) || (plan.entries.length === 0 && !plan.pointer)) return;
  const position = at.reconciled.position;
  plan.entries = [held.dismissed ? entry('edit_dismissed', position, { held: held.edit }) : entry('edit_held', position, { held: held.edit }), ...plan.entries];
  plan.pointer ??= pointerAt(at, position);
}

/** A held lease says whether the holder's conversation was seen running (`running`), or could not be told. */
type OnDiskVerdict =
  | Exclude<LeaseVerdict, { kind: 'held' }>
  | (Extract<LeaseVerdict, { kind: 'held' }> & { running?: boolean })
  | { kind: 'held'; holder: undefined; unreadable: string };

function judgeLeaseOnDisk(repo: Repo, ctx: Context, staleMs: number, takeOver: boolean): OnDiskVerdict {
  const onDisk = readLease(repo.leaseFile);
  if ('unreadable' in onDisk && !takeOver) return { kind: 'held', holder: undefined, unreadable: onDisk.unreadable };
  const current = 'unreadable' in onDisk ? undefined : onDisk.lease;
  const me = thisMachine();
  const role = ctx.role ?? 'cli';
  const conversation = conversationProcess(role);
  const caller = { session: ctx.session, ...me, ...(conversation ? { conversation } : {}), unnamed: ctx.sessionFrom === 'default' };
  // Only a holder of this machine is probed: whether its conversation's process still runs. A command in a
  // sandbox that hides the machine's processes cannot tell: to it every holder would look gone.
  const probe = current?.conversation && current.machine === me.machine && current.session !== ctx.session && seesOtherProcesses(role, conversation);
  const gone = probe ? conversationGone(current.conversation!) : undefined;
  // This machine's note of the lease is read only when another session holds it: a holder's own command reads nothing more.
  const another = current !== undefined && !takeOver && !holds(current, caller) && !sameConversation(current, caller);
  const noted = another ? readSighting(repo, me.machine, LOCAL_LEASE_PLACE) : undefined;
  const verdict = judgeLease(current, caller, ctx.now(), staleMs, takeOver, { holderGone: gone, ...(noted ? { noted } : {}) });
  if (verdict.kind !== 'held') return verdict;
  // This machine notes when it first saw the holder's heartbeat as it is: how long it stays unchanged is measured on this clock alone.
  if (verdict.seen.first) noteSighting(repo, me.machine, LOCAL_LEASE_PLACE, verdict.seen.sighting);
  return { ...verdict, running: gone === false };
}

/** Failures that mean a guard cannot work here, as opposed to a bug. */
const GUARD_ERRORS = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT']);

async function takeLock(repo: Repo, session: string, waitMs: number, takeOver: boolean): Promise<Lock> {
  gatePath(repo, repo.lockFile);
  let lock: Lock;
  try {
    mkdirSync(repo.autopilotDir, { recursive: true });
    lock = await acquireLock(repo.lockFile, session, waitMs, { takeOver, root: repo.root });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!code || !GUARD_ERRORS.has(code)) throw error;
    // A full disk: the lock was the first write, so nothing was changed.
    if (DISK_FULL.has(code)) throw diskFull(code, displayPath(repo.lockFile, repo.root), []);
    throw new InputError(
      {
        file: displayPath(repo.lockFile, repo.root),
        message: `the lock cannot be taken (${code}), so nothing runs unguarded: no command here can change the state`,
        expected: `a writable ${displayPath(repo.autopilotDir, repo.root)} folder`,
        received: code,
      },
      'Make the folder writable, then run the command again. `autopilot status` reads without the lock.',
      'guard_off',
    );
  }
  crashPoint('after-lock');
  return lock;
}
