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
 *    else (`app/git/progress-commit.ts`); where git still cannot take it (by
 *    default), this command's batch carries it on (`engine/owed-commit.ts`);
 * 5. the command reads the state under the lock (`tx.state()`, once) and
 *    makes its plan (`decide`; a step command runs its pipeline,
 *    `app/step/stages.ts`), with the reads its write needs made before
 *    (`tx.readForWrite`, else by the write);
 * 6. `tx.write`: the plan made final (`app/transaction/final-plan.ts`: the locks broken on
 *    the way in, a held edit, the pins, the lease) and written, once
 *    (`commit`: journal, pointer, lease, files, checkpoint, index);
 * 7. `tx.commit`: the progress commit the write owes, once;
 * 8. what the command says, still under the lock (a progress commit, a
 *    boundary's summary);
 * 9. release the lock.
 *
 * Every write of a transaction goes through one call site (`put`), in this
 * order, each at most once: the locks broken by a command refused for
 * another session's lease (and then nothing else); the pointer brought up to
 * an owed commit, and a dropped owed commit's own line (4½); the command's
 * plan (6); the dropped line of the commit that plan owed (7). It returns the
 * answer and what the plan's write wrote, as changesets' `applyReleasePlan`
 * returns the files it touched.
 */
import { mkdirSync } from 'node:fs';
import { entry, fromPointerRecord, type JournalEntry } from '../../formats/journal-line.js';
import { holds, judgeLease, sameConversation, type LeaseVerdict } from '../../engine/lease.js';
import { DISK_FULL, diskFull, GitFailed, InputError } from '../../errors.js';
import type { Flow } from '../../formats/flow/model.js';
import { crashPoint } from '../../io/crash-point.js';
import { readJournalHead, type JournalHead } from '../../io/journal-head.js';
import { readLease } from '../../io/lease-file.js';
import { localLeasePlace, noteSighting, readSighting } from '../../io/lease-sightings.js';
import { acquireLock, type Lock } from '../../io/lock.js';
import { conversationGone, conversationProcess, seesOtherProcesses } from '../../io/conversation.js';
import { thisMachine } from '../../io/machine.js';
import { displayPath, gatePath, openRepo, type Repo } from '../../io/repo.js';
import { LOCK_WAIT_MS } from '../../limits.js';
import { positionHash } from '../../formats/pointer/serialize-pointer.js';
import { commit, type Plan, type Writer, type Written } from './commit.js';
import { finalPlan, mayJournal, pointerAt, readWriteFacts, type PlanShape, type WriteFacts } from './final-plan.js';
import { keepOwed, makeOwedCommit, notedMade, noteMade, owedOnRecord, type CommitGit, type Made, type OwedCommit } from '../git/progress-commit.js';
import type { Context } from './context.js';
import { loadRepoFlows } from './flows.js';
import { heldError } from './lease-view.js';
import type { Loaded } from './load-state.js';
import { readState } from './read-state.js';
import { holdRemoteLease } from '../git/remote-lease.js';
import type { Settings } from '../../formats/settings.js';
import { readSettings } from './settings.js';
import { carryOwed } from '../../engine/owed-commit.js';
import type { JudgedText } from '../git/judged.js';

export { pointerAt } from './final-plan.js';

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

/** What a command hands the transaction to write. */
export interface Decision {
  plan: Plan;
  /** Git, opened by the command for a progress commit its plan owes (the plan's last entry is `progress_commit_owed`). */
  git?: Pick<CommitGit, 'handle' | 'state'>;
  /** The commit was asked for (`--commit`, `commit: true`): git refusing it is exit 1, the commit owed; by default it is a notice. */
  strict?: boolean;
  /** Why git cannot take the commit now (a detached HEAD, an operation under way): by default it stays owed, not tried. */
  blocked?: string;
  /** The files `done`'s judges read, with their text: the commit holds them as judged. */
  judged?: readonly JudgedText[];
  /** The reads the write needs (`tx.readForWrite`), made before the plan; the write makes them where the command did not. */
  facts?: WriteFacts;
}

export interface Decided<T> extends Decision {
  /** What the command says once the plan is written (and its progress commit made), still under the lock. */
  answer: (written: Written) => T | Promise<T>;
}

export interface Tx<P> extends Opened {
  ctx: Context;
  prepared: P;
  lock: Lock;
  /** For a command that drives: the lease it takes or renews (never `held`: that stopped the transaction). */
  lease?: Exclude<LeaseVerdict, { kind: 'held' }>;
  /** The state, read and reconciled under the lock; read once, on the first call. */
  state(): Promise<Loaded>;
  /** The reads the write of a plan of this shape needs (`app/transaction/final-plan.ts`), for a command that makes them before its plan. */
  readForWrite(plan: PlanShape): Promise<WriteFacts>;
  /** Writes the plan, made final, once a transaction: what it wrote. */
  write(decision: Readonly<Decision>): Promise<Written>;
  /** Makes the progress commit the write owes, once (or says why none is made now): what was written, with it. */
  commit(decision: Readonly<Decision>, written: Written): Promise<Written>;
}

/** A transaction under way, as its phases share it. */
interface Under {
  repo: Repo;
  flows: Flow[];
  settings: Settings;
  spec: TransactionSpec<unknown>;
  lock: Lock;
  ctx: Context;
  /** Who drives: the caller, or the session that holds the lease for the same conversation under another name. */
  driver: Context;
  lease?: Exclude<LeaseVerdict, { kind: 'held' }>;
  loaded?: Loaded;
  /** The journal's end as read under the lock for an owed commit: the state's read takes it while nothing was written since. */
  head?: JournalHead;
  /** What the transaction has to say about progress commits and locks. */
  notices: string[];
  /** The journal ends with a progress commit made: a command that writes nothing else leaves it, and the tree, as committed. */
  committedEnd: boolean;
  /** A commit still owed that git cannot take now (by default): this command's batch carries it on (rule 11). */
  carried?: { owed: OwedCommit; made: Made };
  wrote: boolean;
  committed: boolean;
}

/** A command that makes its plan in one callback: the transaction writes it, makes its commit and asks it what to say. */
export async function transact<P = undefined, T = void>(
  ctx: Context,
  spec: TransactionSpec<P>,
  decide: (tx: Tx<P>) => Decided<T> | Promise<Decided<T>>,
): Promise<{ result: T; written: Written }> {
  return inTransaction(ctx, spec, async (tx) => {
    const decided = await decide(tx);
    const written = await tx.commit(decided, await tx.write(decided));
    return { result: await decided.answer(written), written };
  });
}

/** The transaction around `body`, which writes through `tx.write` and `tx.commit` (the step pipeline's stages do). */
export async function inTransaction<P, R>(ctx: Context, spec: TransactionSpec<P>, body: (tx: Tx<P>) => Promise<R>): Promise<R> {
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
    const u: Under = { ...opened, spec, lock, ctx, driver: ctx, notices: [], committedEnd: false, wrote: false, committed: false };
    await judgeDriver(u);
    // A commit the last command owes comes first: the history then says what happened, in order.
    await settleOwedFirst(u);
    return await body(txOf(u, prepared));
  } finally {
    lock.release();
  }
}

function txOf<P>(u: Under, prepared: P): Tx<P> {
  return {
    repo: u.repo,
    flows: u.flows,
    settings: u.settings,
    ctx: u.driver,
    prepared,
    lock: u.lock,
    lease: u.lease,
    state: () => stateOf(u),
    readForWrite: async (plan) => {
      const at = await stateOf(u);
      return readWriteFacts(u.repo, at, plan, mayJournal(at, u.lock));
    },
    write: (decision) => writePlan(u, decision),
    commit: (decision, written) => commitOwed(u, decision, written),
  };
}

const stateOf = async (u: Under): Promise<Loaded> => (u.loaded ??= await readState(u.repo, u.flows, u.head, { writing: true, adoptCut: u.spec.adoptsCut }));

/** The transaction's one write call: every write it makes passes here, in the order the docblock lists. */
const put = (u: Under, plan: Plan, lastSeq: number, writer: Writer): Written => commit(u.repo, u.lock, lastSeq, plan, writer);

/** The caller, as the transaction's own lines are written (a broken lock, a pointer brought up, an owed commit's line). */
const callerWriter = (u: Under): Writer => ({ session: u.ctx.session, now: u.ctx.now });

/** The command, as its plan is written: the session that drives, a person's `actor`. */
const commandWriter = (u: Under): Writer => ({ session: u.driver.session, now: u.ctx.now, actor: u.spec.person ? 'person' : undefined });

/** The locks broken on the way in, journaled with whatever the command writes, once the state is known. */
const brokenEntries = (lock: Lock, at: Loaded) =>
  lock.broken.map((h) =>
    entry('lock_broken', at.reconciled.position, { holder: { pid: h.pid, host: h.host, session: h.session, at: h.at }, reason: h.reason }),
  );

/** Rule 6 first, for a command that drives: a session that may not drive pays nothing for reading the state. */
async function judgeDriver(u: Under): Promise<void> {
  const drives = u.spec.drives;
  if (!drives) return;
  const verdict = judgeLeaseOnDisk(u.repo, u.ctx, u.settings.staleMs, drives.takeOver);
  if (verdict.kind === 'held') {
    if (u.lock.broken.length > 0) {
      const at = await stateOf(u);
      put(u, { entries: brokenEntries(u.lock, at), pointer: pointerAt(at, at.reconciled.position), flowHash: at.flow.hash }, at.lastSeq, callerWriter(u));
    }
    throw heldError(u.repo, verdict);
  }
  u.lease = verdict;
  // The same conversation under another name drives as the session that holds the lease.
  if (verdict.kind === 'renew' && verdict.as) u.driver = { ...u.ctx, session: verdict.as };
}

/** Step 4½: a commit the journal says is owed is made before anything else, or carried on by this command's batch. */
async function settleOwedFirst(u: Under): Promise<void> {
  if (u.spec.flows === 'none' || u.settings.commit === false) return;
  const head = (u.head = readJournalHead(u.repo.journalFile));
  const owed = owedOnRecord(head);
  if (!owed) return;
  if (notedMade(u.repo, owed, head.last)) {
    u.committedEnd = true;
    return;
  }
  // The pointer the command left, when a kill came before its write: the commit holds the pointer the command leaves.
  // Read again after: the pointer brought up is no drift for the command to repair and journal.
  const up = pointerUp(await stateOf(u), owed);
  if (up) {
    put(u, up, owed.seq, callerWriter(u));
    u.loaded = undefined;
  }
  const made = await settle(u.repo, owed, { strict: u.settings.commit !== 'auto' });
  if (made.deferred !== undefined) u.carried = { owed, made };
  else if (made.notice) u.notices.push(made.notice);
  if (made.dropped !== undefined) {
    // A line of its own: the pointer stays as it is.
    put(u, { entries: [entry('progress_commit_made', fromPointerRecord(owed.pointer!), withoutNotice(made))] }, head.lastSeq, callerWriter(u));
    u.head = undefined;
    u.loaded = undefined;
  } else if (made.sha) {
    noteMade(u.repo, owed, made.sha);
    u.committedEnd = true;
  }
}

/** Step 6: the command's plan, made final, written once; a commit still owed ends its batch too (in the command's own, or owed again). */
async function writePlan(u: Under, decision: Readonly<Decision>): Promise<Written> {
  if (u.wrote) throw new Error('a transaction writes its plan once');
  u.wrote = true;
  const at = u.loaded;
  let plan: Plan = decision.plan;
  if (at) {
    const broken = brokenToJournal(u, at, decision.plan);
    const facts = decision.facts ?? (await readWriteFacts(u.repo, at, decision.plan, mayJournal(at, u.lock)));
    plan = finalPlan(at, decision.plan, { broken, lease: u.lease?.lease, facts });
  }
  if (u.carried && plan.entries.length > 0) plan = { ...plan, entries: carryOwed(plan.entries, u.carried.owed) };
  else if (u.carried?.made.notice) u.notices.push(u.carried.made.notice);
  // The journal's end, where the state was not read, is read by the write itself: it stamps from the file's last line.
  return put(u, plan, at?.lastSeq ?? 0, commandWriter(u));
}

/**
 * The locks broken on the way in, to journal. The lock of a command killed on
 * this machine, when this one writes nothing else after a progress commit (a
 * retry answered "already recorded"): said, not journaled, so nothing of
 * autopilot's is left modified after the commit.
 */
function brokenToJournal(u: Under, at: Loaded, plan: Readonly<Plan>): JournalEntry[] {
  const broken = brokenEntries(u.lock, at);
  if (!u.committedEnd || plan.entries.length > 0 || !broken.every((e) => e.reason === 'gone')) return broken;
  for (const e of broken)
    u.notices.push(`removed the lock a killed command left (pid ${e.holder.pid}, session ${e.holder.session}); its work is recorded and committed`);
  return [];
}

/**
 * Step 7: the progress commit the plan's write owes is made now; a failure
 * leaves it owed (exit 1), for the next command to make, or by default says
 * why none was made. What was written, with the commit and the notices.
 */
async function commitOwed(u: Under, decision: Readonly<Decision>, written: Written): Promise<Written> {
  if (u.committed) throw new Error('a transaction makes its progress commit once');
  u.committed = true;
  const owed = owedOnRecord({ record: written.entries.length > 0 ? { entry: written.entries.at(-1)! } : undefined });
  let out = written;
  if (owed) {
    crashPoint('before-progress-commit');
    // Carried on: git refused it moments ago, so it is not tried again.
    const blocked = u.carried?.made.deferred ?? decision.blocked;
    const made = await settle(u.repo, owed, { git: decision.git, fresh: true, strict: decision.strict === true, blocked, judged: decision.judged });
    crashPoint('after-progress-commit');
    if (made.notice) u.notices.push(made.notice);
    const entries = [...written.entries];
    // No commit: said in a line of its own, after the batch; the pointer stays as the plan left it.
    if (made.dropped !== undefined)
      entries.push(
        ...put(u, { entries: [entry('progress_commit_made', fromPointerRecord(owed.pointer!), withoutNotice(made))] }, owed.seq, commandWriter(u)).entries,
      );
    else if (made.sha) noteMade(u.repo, owed, made.sha);
    out = { ...written, entries, progressCommit: withoutNotice(made) };
  }
  return u.notices.length > 0 ? { ...out, notices: [...u.notices] } : out;
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
 * commit left the pointer behind (or without) the owed event: the pointer
 * that command would have written, before the commit, so the commit holds the
 * pointer the command leaves. A pointer a person edited, one that does not
 * parse, or a merge the journal holds is left to the command: undefined.
 */
function pointerUp(loaded: Loaded, owed: OwedCommit): Plan | undefined {
  if (loaded.brokenPointer !== undefined || loaded.fork || !owed.pointer) return undefined;
  const pointer = loaded.pointer;
  const behind = pointer === null || (pointer.record !== undefined && pointer.record.seq < owed.seq && pointer.record.hash === positionHash(pointer.position));
  if (!behind) return undefined;
  const at = pointerAt(loaded, fromPointerRecord(owed.pointer));
  return { entries: [], pointer: { ...at, extras: { ...at.extras, seq: owed.seq } } };
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
  const noted = another ? readSighting(repo, me.machine, localLeasePlace(repo)) : undefined;
  const verdict = judgeLease(current, caller, ctx.now(), staleMs, takeOver, { holderGone: gone, ...(noted ? { noted } : {}) });
  if (verdict.kind !== 'held') return verdict;
  // This machine notes when it first saw the holder's heartbeat as it is: how long it stays unchanged is measured on this clock alone.
  if (verdict.seen.first) noteSighting(repo, me.machine, localLeasePlace(repo), verdict.seen.sighting);
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
