/**
 * The read half of every command: repository, flows, pointer, the journal's
 * end, evidence, and the reconciled position. Nothing here writes.
 */
import { closeSync, fstatSync, readSync } from 'node:fs';
import type { Evidence } from '../../engine/evidence.js';
import { fromPointerRecord, toPointerRecord } from '../../formats/journal-line.js';
import { describeRecord, judgeFork, type ForkVerdict, type JournalFork } from '../../engine/fork.js';
import { checkRecord, type RecordVerdict } from '../../engine/record.js';
import type { JournalCut } from '../../engine/journal-cut.js';
import { locate, resolveByName, type Drift, type Reconciled, type Walk } from '../../engine/reconcile.js';
import { carriedHeld, heldStateDrift, judgeEdit, type EditVerdict, type HeldState } from './hand-edit.js';
import type { CriteriaHeld } from '../../engine/criteria.js';
import { InputError, type Problem } from '../../errors.js';
import { invalidFlows, invalidFlowsError } from './invalid-flows.js';
import { loopStart, stepByNumber, type Flow } from '../../formats/flow/model.js';
import { isCachedParse, type CachedFlow } from '../../formats/flow-cache.js';
import { flowChanges } from '../../engine/pin.js';
import { readSkillPinState, type SkillPinState } from './skill-pins.js';
import { detectFlow, diskCycle, gatherEvidence } from '../../io/gather-evidence.js';
import { latestOf, readJournalHead, type JournalHead } from '../../io/journal-head.js';
import { BOUNDARY_EVENTS, mayWaitAtBoundary, pendingBoundary, stoppedAtBoundary, type PendingBoundary } from '../../engine/boundary.js';
import { evidenceFromIndex } from '../../formats/journal-index.js';
import { loadJournalIndex, type LoadedIndex } from '../../io/journal-index.js';
import { openFile } from '../../io/journal.js';
import { displayPath, gatePath, type Repo } from '../../io/repo.js';
import { parsePointer, type ParsedPointer } from '../../formats/pointer/parse-pointer.js';
import { positionHash, positionText } from '../../formats/pointer/serialize-pointer.js';
import { knownPositionHash } from '../../io/journal-verdict.js';
import { POINTER_MAX_BYTES } from '../../limits.js';
import type { Finding } from '../../evidence/types.js';
import type { Position } from '../../formats/pointer/position.js';
import type { StampedEntry } from '../../formats/journal-line.js';

export interface Loaded {
  repo: Repo;
  flows: Flow[];
  flow: Flow;
  pointer: ParsedPointer | null;
  /** The end of the journal: its last sequence number and the last pointer a command left. */
  head: JournalHead;
  /** The sequence number the next event follows: the journal's last, or the pointer's when the journal lost events. */
  lastSeq: number;
  /** How the pointer compares with the journal (rule 7). */
  record: RecordVerdict;
  evidence: Evidence;
  reconciled: Reconciled;
  /** The journal index, when reconciliation needed it (a waiver or a round); a writer refreshes its cache. */
  index?: LoadedIndex;
  /** A session boundary reached and not yet answered (rule 4). */
  boundary?: PendingBoundary;
  /** A boundary a person answered A: the conversation that reached it stops there (rule 4). */
  stopped?: PendingBoundary;
  /** The flow file changed since the run was pinned: the run goes on with the pinned steps (`flow`). */
  flowChange?: FlowChange;
  /** The skills the run is pinned to, and those changed since (the judges keep their pinned declarations); undefined: the journal pins none yet. */
  skills?: SkillPinState;
  /** The pointer file's text when it could not be read and another source stood in: kept before it is rewritten. */
  brokenPointer?: string;
  /** A merge the journal holds and nothing has settled yet, judged: it decides the position (`journal-fork` drift). */
  fork?: ForkSeen;
  /** A hand edit of the pointer held for a person (rule 7, `app/transaction/hand-edit.ts`): fresh, carried by the journal, or just dropped. */
  held?: HeldState;
  /** Steps a walk from the journal's position over work found on disk would complete, judged before a hand edit's verdict is final. */
  gateWalk?: Walk['found'];
  /** An edit of the pinned acceptance criteria, held for a person (`app/transaction/criteria.ts`; set by `readState`). */
  criteria?: CriteriaHeld;
  /** The journal lost events (rule 7, `engine/journal-cut.ts`; set by `readState`): every command that writes is held until it is back or adopted. */
  cut?: JournalCut;
}

export interface ForkSeen {
  fork: JournalFork;
  verdict: ForkVerdict;
}

export interface FlowChange {
  /** The flow file as it is now; undefined when it is gone or does not parse. */
  current?: Flow;
  changes: string[];
  /** The flow file no longer parses: its problems (file and line); the run goes on with its pinned steps. */
  invalid?: Problem[];
}

/**
 * The flow a run uses: the one it is pinned to (the hash the journal's last
 * record names) when the file changed or is gone since, else the file as it is.
 */
function pinnedFlow(flows: Flow[], id: string, head: JournalHead, journalIndex: () => LoadedIndex): { flow: Flow; change?: FlowChange } | undefined {
  const current = flows.find((f) => f.id === id);
  const broken = current ? undefined : invalidFlows(flows).find((f) => f.id === id);
  const hash = head.record?.pointer.flow === id ? head.record.pointer.flow_hash : undefined;
  // A flow file that no longer parses, and no run pinned to it: every problem named, as before (exit 2).
  const unpinned = () => {
    if (broken) throw invalidFlowsError([broken]);
    return current ? { flow: current } : undefined;
  };
  if (!hash || current?.hash === hash) return unpinned();
  // The journal is a repository's file like any other: a pinned copy is used only when it has a flow's shape.
  const candidate = journalIndex().index.pins?.[id];
  const pinned = isCachedParse({ flow: candidate }, id) ? (candidate as CachedFlow) : undefined;
  if (!pinned || pinned.hash !== hash) return unpinned();
  const flow: Flow = { ...pinned, file: current?.file ?? broken?.file ?? `${id} (pinned)` };
  if (broken) return { flow, change: { changes: [`${broken.file} does not parse`], invalid: broken.problems } };
  if (!current) return { flow, change: { changes: [`the flow file of ${id} is gone`] } };
  // Prose added or reworded, lines moved: nothing the run does changed, so nothing is said and the pinned copy stays.
  const changes = flowChanges(flow, current);
  return changes.length > 0 ? { flow, change: { current, changes } } : { flow };
}

export function readPointerText(repo: Repo): string | null {
  gatePath(repo, repo.pointerFile);
  const fd = openFile(repo.pointerFile);
  if (fd === undefined) return null;
  try {
    const size = fstatSync(fd).size;
    if (size > POINTER_MAX_BYTES) {
      throw new InputError(
        {
          file: displayPath(repo.pointerFile, repo.root),
          message: `the pointer is ${size} bytes, far more than its six lines: it is not read`,
          expected: `at most ${POINTER_MAX_BYTES} bytes: \`## Current Step\` and six \`key: value\` lines`,
          received: `${size} bytes`,
        },
        recoveryHint(repo),
      );
    }
    const bytes = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, bytes, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    return bytes.toString('utf8', 0, read);
  } finally {
    closeSync(fd);
  }
}

export function recoveryHint(repo: Repo): string {
  const file = displayPath(repo.pointerFile, repo.root);
  const git = repo.root === process.cwd() ? 'git' : `git -C ${repo.root}`;
  return [
    `${file} was left exactly as it is. To recover, either:`,
    '  - correct the line named above by hand (`autopilot check` re-validates it), or',
    `  - restore the last committed version: ${git} checkout HEAD -- ${file}, or`,
    `  - move it aside: autopilot next then rebuilds the position from the journal (or the folder).`,
  ].join('\n');
}

export function readPointer(repo: Repo): ParsedPointer | null {
  const text = readPointerText(repo);
  if (text === null) return null;
  try {
    return parsePointer(text, displayPath(repo.pointerFile, repo.root));
  } catch (error) {
    if (error instanceof InputError) throw new InputError(error.problems, recoveryHint(repo));
    throw error;
  }
}

function unknownFlow(repo: Repo, flows: Flow[], id: string, line?: number): InputError {
  return new InputError(
    {
      file: displayPath(repo.pointerFile, repo.root),
      ...(line ? { line } : {}),
      message: `the pointer names the flow \`${id}\`, which autopilot does not know`,
      expected: `one of ${flows.map((f) => f.id).join(', ')}`,
      received: id,
    },
    recoveryHint(repo),
  );
}

/** The flow the pointer names, checked: an unknown flow or a step it lacks is an error naming the pointer's line. */
export function flowOfPointer(repo: Repo, flows: Flow[], pointer: ParsedPointer): Flow {
  const flow = flows.find((f) => f.id === pointer.position.flow);
  if (!flow) throw unknownFlow(repo, flows, pointer.position.flow, pointer.lines.flow);
  checkStep(repo, flow, pointer);
  return flow;
}

function checkStep(repo: Repo, flow: Flow, pointer: ParsedPointer): void {
  const file = displayPath(repo.pointerFile, repo.root);
  const step = pointer.position.step;
  if (step !== 'done' && !stepByNumber(flow, step)) {
    throw new InputError(
      {
        file,
        line: pointer.lines.step,
        message: `${flow.id} has no step ${step}`,
        expected: `a step from 1 to ${flow.steps.length}, or \`done\``,
        received: String(step),
      },
      recoveryHint(repo),
    );
  }
}

/** Reads and reconciles. `flows` come from `loadFlows`; the caller decides whether it may write their cache. */
/** A pointer from elsewhere (git history, one side of a merge conflict) standing in for the file, with why. */
export interface PointerOverride {
  /** Null: no pointer stands in (the journal's fork decides, the file aside). */
  pointer: ParsedPointer | null;
  drift?: Drift;
  /** The file as it is, unreadable: kept in a backup before anything rewrites it. */
  broken?: string;
  /** The folder holds nothing at all: it cannot judge this position, so the steps before it count as done. */
  folderEmpty?: boolean;
  /**
   * The pointer is HEAD's, the work tree having lost it and the journal: HEAD's
   * journal is the record, so the steps before it count as done and the
   * journal is not said to be lost (the drift says where it is).
   */
  fromHead?: boolean;
}

/**
 * What the checks `done` gives a step found its files holding, for the steps a
 * walk over work found on disk would complete (`app/transaction/found-on-disk.ts`): by
 * `foundKey(cycle, step)`.
 */
export type JudgedSteps = ReadonlyMap<string, Finding[]>;

export const foundKey = (cycle: number, step: number) => `${cycle}:${step}`;

/** `known`: the journal's end as the caller read it under the lock, with nothing written since (one read, not two). */
export function loadState(repo: Repo, flows: Flow[], override?: PointerOverride, known?: JournalHead, judged?: JudgedSteps): Loaded {
  const filePointer = override ? override.pointer : readPointer(repo);
  gatePath(repo, repo.journalFile);
  const { fork, head } = journalEnd(known ?? readJournalHead(repo.journalFile));
  const journal = journalIndexOf(repo, head);
  const found = startOf({ repo, flows, head, journal }, filePointer, fork);
  const evidenceOf = evidenceReader(repo, journal.read, judged);
  const { run, edit } = heldEditOf({ repo, flows, head, journal }, found, evidenceOf);
  const { pointer, flow, record } = run;
  const held: HeldState | undefined = edit?.held ? { edit: edit.held, fresh: true } : fork ? undefined : carriedHeld(head, pointer);
  let boundaryEvent: { at?: StampedEntry } | undefined;
  const latestBoundary = () => (boundaryEvent ??= { at: latestOf(repo.journalFile, flow.id, BOUNDARY_EVENTS) }).at;
  const { evidence, ...located } = locateRun(repo, run, override, evidenceOf, latestBoundary);
  const reconciled = reconciledOf({ override, run, fork, edit, held, located });
  const mayWait = mayWaitAtBoundary(flow, reconciled.position);
  const boundary = mayWait ? pendingBoundary(flow, reconciled.position, latestBoundary()) : undefined;
  const stopped = mayWait ? stoppedAtBoundary(flow, reconciled.position, latestBoundary()) : undefined;
  const skills = readSkillPinState(repo, flow, head, journal.read);
  return {
    repo,
    flows,
    flow,
    pointer,
    head,
    lastSeq: Math.max(head.lastSeq, pointer?.record?.seq ?? 0),
    record,
    evidence,
    reconciled,
    index: journal.loaded(),
    boundary,
    stopped,
    flowChange: run.flowChange,
    skills,
    brokenPointer: override?.broken,
    fork,
    held,
    gateWalk: edit && edit.toJudge.length > 0 ? edit.toJudge : undefined,
  };
}

/** Rule 11: a merge not yet settled decides where the work stands, whatever the pointer file says (one side's text, or both). */
function journalEnd(read: JournalHead): { fork?: ForkSeen; head: JournalHead } {
  if (!read.fork) return { head: read };
  const fork: ForkSeen = { fork: read.fork, verdict: judgeFork(read.fork) };
  const forkRecord = fork.verdict.kind === 'agree' ? fork.verdict.record : fork.fork.base;
  return { fork, head: { ...withoutRecord(read), ...(forkRecord ? { record: forkRecord } : {}) } };
}

/** The journal index, read once when a step needs it; `loaded`: the index if one was read (a writer refreshes its cache). */
interface JournalIndexRead {
  read: () => LoadedIndex;
  loaded: () => LoadedIndex | undefined;
}

/** The index the journal's end carries; only a journal whose end carries none is read further back (or its cache). */
function journalIndexOf(repo: Repo, head: JournalHead): JournalIndexRead {
  let index: LoadedIndex | undefined;
  return {
    read: () => (index ??= head.index ? { index: head.index.read(), stale: false } : loadJournalIndex(repo.journalFile, repo.journalIndexFile)),
    loaded: () => index,
  };
}

/** What the steps of a read share. */
interface Reading {
  repo: Repo;
  flows: Flow[];
  head: JournalHead;
  journal: JournalIndexRead;
}

/** Where the run starts, before the folder is read: the pointer, its flow, and how the journal backs it. */
interface RunStart {
  pointer: ParsedPointer | null;
  flow: Flow;
  flowChange?: FlowChange;
  record: RecordVerdict;
  /** Where reconciliation with the folder starts; null: scan the folder. */
  start: Position | null;
  /** The pointer is the run's only record: the journal does not back it. */
  claimed: boolean;
  /** The pointer's step read by its name, its number disagreeing. */
  byName?: { position: Position; drift: Drift };
}

/** The pointer checked against its flow (pinned or current) and the journal; with none, the journal's flow, else the folder's. */
function startOf(r: Reading, filePointer: ParsedPointer | null, fork: ForkSeen | undefined): RunStart {
  const { repo, flows, head } = r;
  let pointer = fork ? null : filePointer;
  let flow: Flow | undefined;
  let flowChange: FlowChange | undefined;
  const pinnedOrCurrent = (id: string, line?: number): Flow => {
    const found = pinnedFlow(flows, id, head, r.journal.read);
    if (!found) throw unknownFlow(repo, flows, id, line);
    flowChange = found.change;
    return found.flow;
  };
  if (pointer) {
    flow = pinnedOrCurrent(pointer.position.flow, pointer.lines.flow);
    checkStep(repo, flow, pointer);
    pointer = withCycleFromHistory(pointer, flow, head, repo);
  }
  const record = fork
    ? forkRecordVerdict(fork, head, filePointer)
    : checkRecord(
        pointer,
        head.record,
        (p) => knownPositionHash(repo.journalFile, positionText(p)) ?? positionHash(p),
        displayPath(repo.journalFile, repo.root),
      );
  if (!pointer) flow = record.start ? pinnedOrCurrent(record.start.flow) : detectFlow(repo, flows);
  // The pointer file's own text (a person's sections) is kept when the fork's position is written over it.
  if (fork && filePointer && record.start) pointer = { ...filePointer, position: record.start, lastAction: undefined };
  // A flow file with problems that no run here is pinned past: every problem named, as before (exit 2).
  const stopping = invalidFlows(flows).filter((f) => !(flowChange?.invalid && f.id === flow?.id));
  if (stopping.length > 0) throw invalidFlowsError(stopping);
  if (!flow) {
    throw new InputError({
      message: 'no flow matches this folder',
      expected: 'a flow chosen by hand: `autopilot init --flow <id>`',
      received: `tried ${flows.map((f) => f.id).join(', ')}`,
    });
  }
  return { pointer, flow, flowChange, record, ...claimedStart(head, pointer, flow, record) };
}

/** The start the journal supplied, still a step of the flow; and, for a pointer that is the run's only record, read by its step's name. */
function claimedStart(head: JournalHead, pointer: ParsedPointer | null, flow: Flow, record: RecordVerdict): Pick<RunStart, 'start' | 'claimed' | 'byName'> {
  // A start the journal supplied must still name a step of the flow (the flow file may have changed since).
  let start = record.start;
  if (start && start.step !== 'done' && !stepByNumber(flow, start.step)) start = null;
  // A pointer the journal does not back (hand-written, in the seed's format, edited, or its journal lost) is the run's only record.
  const claimed =
    pointer !== null && (!head.record || record.drift.some((d) => d.kind === 'hand-edit' || d.kind === 'journal-behind' || d.kind === 'journal-gone'));
  // Its name and number disagree: read by the name when that is a step of the flow — unless a person changed only the number.
  const byName = claimed && start && !(record.edited?.step && !record.edited.name) ? resolveByName(flow, start) : undefined;
  return { start: byName ? byName.position : start, claimed, byName };
}

type EvidenceOf = (of: Flow, cycle: number, upTo: number) => Evidence;

/** The steps' evidence in a cycle of a flow, each step found on disk and judged so far with its findings. */
function evidenceReader(repo: Repo, journalIndex: () => LoadedIndex, judged: JudgedSteps | undefined): EvidenceOf {
  return (of, cycle, upTo) => {
    const journalEvidence = (c: number, perCycle: (step: number) => boolean) => evidenceFromIndex(journalIndex().index, of.id, c, perCycle);
    const evidence = gatherEvidence(repo, of, cycle, upTo, journalEvidence);
    for (const ev of evidence.steps) {
      const findings = judged?.get(foundKey(cycle, ev.step));
      if (findings) ev.judged = findings;
    }
    return evidence;
  };
}

/** Rule 7: a hand edit past a gate a person owns is held, and the run starts where the journal says (`app/transaction/hand-edit.ts`). */
function heldEditOf(r: Reading, found: RunStart, evidenceOf: EvidenceOf): { run: RunStart; edit?: EditVerdict } {
  const journalPosition = found.record.journal;
  const { start } = found;
  if (!journalPosition || !start) return { run: found };
  const runFlow = journalPosition.flow === found.flow.id ? { flow: found.flow } : pinnedFlow(r.flows, journalPosition.flow, r.head, r.journal.read);
  if (!runFlow) return { run: found };
  const edit = judgeEdit({
    repo: r.repo,
    flow: runFlow.flow,
    journal: journalPosition,
    edited: start,
    evidenceOf: (c, upTo) => evidenceOf(runFlow.flow, c, upTo),
  });
  if (!edit.held) return { run: { ...found, start: edit.start }, edit };
  const run: RunStart = {
    ...found,
    flow: runFlow.flow,
    flowChange: runFlow.flow !== found.flow ? runFlow.change : found.flowChange,
    record: { ...found.record, drift: found.record.drift.filter((d) => d.kind !== 'hand-edit') },
    start: edit.start,
  };
  return { run, edit };
}

/** The position reconciled with the folder (`engine/reconcile.ts`), the folder read from where the run starts. */
function locateRun(
  repo: Repo,
  run: RunStart,
  override: PointerOverride | undefined,
  evidenceOf: EvidenceOf,
  latestBoundary: () => StampedEntry | undefined,
): ReturnType<typeof locate> {
  const { flow, start } = run;
  const upTo = typeof start?.step === 'number' ? start.step : Infinity;
  const gather = (cycle: number) => {
    const evidence = evidenceOf(flow, cycle, upTo);
    // An empty folder cannot contradict git: what git says was done before the position counts as done.
    if ((override?.folderEmpty || override?.fromHead) && typeof start?.step === 'number')
      for (const ev of evidence.steps) {
        const finished = ev.step === start.step && (start.status === 'completed' || start.status === 'skipped');
        if (ev.step < start.step || finished) ev.waiver ??= 'forced';
      }
    return evidence;
  };
  // A session boundary reached at the pointer, not yet answered: the folder does not walk past it.
  const atBoundary = start !== null && mayWaitAtBoundary(flow, start) && pendingBoundary(flow, start, latestBoundary()) !== undefined;
  return locate(flow, start, diskCycle(repo, flow), gather, { claimed: run.claimed, waiting: atBoundary });
}

/** The reconciled position with every drift said once, in order: the override's, the pointer's own, the record's, the name's, the folder's, a held edit's. */
function reconciledOf(read: {
  override?: PointerOverride;
  run: RunStart;
  fork?: ForkSeen;
  edit?: EditVerdict;
  held?: HeldState;
  located: Reconciled;
}): Reconciled {
  const { override, run, fork, edit, held, located } = read;
  const { pointer, record, byName } = run;
  const overridden = override?.drift ? [override.drift] : [];
  // The journal standing in for a pointer that does not parse says so once (its drift), not also as "no pointer";
  // HEAD standing in for both, once, not also as a journal lost.
  const unsaid = override?.drift?.kind === 'from-journal' ? 'rebuilt' : override?.fromHead ? 'journal-gone' : undefined;
  const recordDrift = record.drift.filter((d) => d.kind !== unsaid);
  const readAs = (pointer?.readAs ?? []).map((message): Drift => ({ kind: 'read-as', step: pointer!.position.step, message }));
  // Two sides that disagree: nothing moves, not even by the folder, until a person keeps one; the position shown is where both began.
  const waiting = fork?.verdict.kind === 'disagree' ? run.start : null;
  if (waiting) return { position: waiting, source: 'state', drift: [...overridden, ...readAs, ...recordDrift] };
  return {
    ...located,
    drift: [
      ...overridden,
      ...readAs,
      ...recordDrift,
      ...(byName && !edit?.held ? [byName.drift] : []),
      ...located.drift,
      ...heldStateDrift(held, located.position),
    ],
    ...(override?.pointer && located.source === 'state' ? { source: 'git' as const } : {}),
  };
}

function withoutRecord(head: JournalHead): JournalHead {
  const { record: _record, ...rest } = head;
  return rest;
}

/** Where a fork puts the work: the merged position (agree) or where both sides began (disagree), the pointer file set aside, said as drift. */
function forkRecordVerdict(fork: ForkSeen, head: JournalHead, file: ParsedPointer | null): RecordVerdict {
  const start = head.record ? fromPointerRecord(head.record.pointer) : null;
  const aside = file ? ` The pointer file (${describeRecord(toPointerRecord(file.position))}) is set aside: the journal's fork decides.` : '';
  const message =
    fork.verdict.kind === 'agree'
      ? `${fork.verdict.message}.${aside}`
      : `the journal holds two branches' work that disagree; nothing moves until a person keeps one side (\`autopilot decide A|B\`), and the work stands where both sides began (${describeRecord(head.record?.pointer)}).${aside}`;
  return { start, drift: [{ kind: 'journal-fork', step: start?.step ?? file?.position.step ?? 1, message }] };
}

/**
 * A pointer without a `## Cycle` section (the contract's six lines, a hand-written
 * one) in a looping flow: its cycle comes from the journal's last record, else
 * from the folder — never a silent cycle 1 for a repository in its second.
 */
function withCycleFromHistory(pointer: ParsedPointer, flow: Flow, head: JournalHead, repo: Repo): ParsedPointer {
  if (pointer.lines.cycle !== 0 || loopStart(flow) === undefined) return pointer;
  const fromJournal = head.record?.pointer.flow === flow.id ? head.record.pointer.cycle : undefined;
  const cycle = fromJournal ?? Math.max(diskCycle(repo, flow), 1);
  return cycle === pointer.position.cycle ? pointer : { ...pointer, position: { ...pointer.position, cycle } };
}

/**
 * What a step command is aimed at by default: the position the agent was
 * handed, i.e. the pointer as the file says (not brought up to the journal:
 * a pointer behind it is what a command killed before its pointer write left,
 * and a retry of that command is aimed where the first one was); with no
 * pointer, the journal's last record.
 */
export function peekPosition(repo: Repo) {
  try {
    const pointer = readPointer(repo);
    if (pointer) return pointer.position;
    const head = readJournalHead(repo.journalFile);
    return head.record ? fromPointerRecord(head.record.pointer) : undefined;
  } catch {
    // The locked read reports what is wrong.
    return undefined;
  }
}
