/**
 * One line of the journal, `_docs/_autopilot/journal.jsonl`: one JSON event
 * a line. Pure: an entry → text (`serializeEntries`), a line → an event or
 * why it is not one (`judgeLine`, `parseJournalLine`). Reading the file is
 * `io/journal.ts`.
 *
 * What a line guarantees once judged an event:
 * - its stamp (`at`, `session`, `seq` when it has one, `key`, `actor`) and where it
 *   happened (`flow`, `cycle`, `step`) have their types; a missing `name`,
 *   `status` or `retry_count` reads as empty (lines of older autopilots);
 * - a `pointer` holds a position (what a lost pointer is rebuilt from);
 * - the details the engine decides by (`CHECKED`) have the type the writers
 *   give them. A line may lack any detail (an older autopilot did not write
 *   it); every other detail is only shown, so it is typed `unknown`.
 * A line longer than `JOURNAL_LINE_MAX_BYTES` is refused unparsed, so judging
 * costs at most one bounded `JSON.parse`.
 *
 * The chain (`prev`): each line names the line before it in the file by a
 * short hash of that line's exact text (`chainHash`), so a merge that put
 * another branch's lines after ours is seen where the chain breaks (a seam;
 * `io/journal-head.ts`, `engine/fork.ts`). The first line of a journal, and
 * every line of an autopilot from before the chain, has none.
 *
 * An event this autopilot does not know (a newer autopilot wrote it) is still
 * an event: `log` shows it, and a pointer it carries still counts. Its type
 * is `OtherEntry` (see there).
 */
import type { Flow } from './flow/model.js';
import { JOURNAL_LINE_MAX_BYTES } from '../limits.js';
import type { Problem } from '../errors.js';
import { hashText } from '../hash.js';
import { MAX_RETRIES, STATUSES, type Position, type Status } from './pointer/position.js';
import type { PinnedSkills } from './skill-pins.js';

/** Where a run's position came from when it was recorded: `init`, the pointer, the folder, git history, or a person's `reset`. */
export type PositionSource = 'init' | 'state' | 'folder' | 'git' | 'reset';

/** The flow a run is pinned to, as the journal keeps it: everything but where the file was. */
export type PinnedFlow = Omit<Flow, 'file'>;

type NoDetails = Record<never, never>;

/** The details each event carries, as the engine writes them. */
export interface EventDetails {
  /** `moved_aside`: after `reset`, where the old pointer and journal were kept (repository-relative). */
  run_started: {
    source: PositionSource;
    flow_hash: string;
    flow_file: string;
    pinned: PinnedFlow;
    moved_aside?: { pointer?: string; journal?: string };
    /** The skills' declarations the run is pinned to, and their hash (see `skills_pinned`); absent in an older autopilot's. */
    skills?: PinnedSkills;
    skills_hash?: string;
    /** A named run started on the repository's output (docs/runs.md): the folder it reads, and the steps before its start that are the repository's. */
    repository?: { read: string; steps: number[] };
  };
  position_repaired: { source: PositionSource; drift: string[] };
  /** `edited`: the fields a person changed, when the journal knows what the pointer said before. */
  pointer_edited: { edited?: Record<string, { was: unknown; now: unknown }>; message: string };
  /** `tree`: the work tree when the step started (a git tree object), when progress commits hold the step's work. */
  /**
   * `tree`: the work tree when the step started (a git tree object), when progress commits hold the step's work.
   * `hashes`: the step's evidence files as the attempt began, each with a hash of its content (only for a
   * skill that declares its outputs): `done` needs one of them new or changed (`evidence/fresh.ts`).
   */
  step_started: { attempt: number; tree?: string; hashes?: Record<string, string> };
  substep: { sub_step: string };
  /**
   * A batch of the task index begins (docs/state-and-journal.md, "Batches"):
   * its number of `of`, its task ids; `batches` every batch's task ids as the
   * run walks them (pinned: an edit of the index changes nothing until a
   * person repins), `index_hash` the index as it was read; `tree` the work
   * tree as the batch began, when progress commits hold the batch's work;
   * `report_hash` the batch's report as it was on disk then, when it was
   * (its `done` needs it written again).
   */
  batch_started: {
    batch: number;
    of: number;
    tasks: string[];
    batches: string[][];
    index_hash?: string;
    tree?: string;
    hashes?: Record<string, string>;
    report_hash?: string;
  };
  /**
   * A batch's report passed its checks and code changed (or a person forced it, with a reason);
   * `code_unseen`: why the check that code changed could not see the work tree (no git, no snapshot).
   */
  batch_completed: { batch: number; of: number; tasks: string[]; forced?: true; accepted_failures?: true; reason?: string; code_unseen?: string };
  /**
   * `by: folder`: found done on disk; `forced`: a person forced it done, with a reason;
   * `accepted_failures`: a person accepted its failed test run (`done --accept-failures`), with a reason.
   * `criteria`: the step writes the acceptance criteria (Problem; New Task in each existing-code cycle):
   * pinned as the file held them (a later edit that drops or rewrites one is held until a person adopts it).
   */
  step_completed: { by?: 'folder'; forced?: true; accepted_failures?: true; reason?: string; criteria?: PinnedCriteria };
  /** `inferred`: an optional step the run passed without a record, journaled by the first command that saw it. */
  step_skipped: { by: 'agent' | 'condition' | 'inferred'; reason: string };
  /** `hashes`: the step's evidence files as the failed attempt left them, the next attempt's start (see `step_started`). */
  step_failed: { reason: string; attempt: number; hashes?: Record<string, string>; batch?: number };
  decision_required: { decision: string };
  /**
   * `round_files`: with `then: repeat`, the files that existed when the new round began; `round_hashes`
   * the same with a hash of each (a skill that declares its outputs): its drafts are never edited, nor copied.
   */
  decision_answered: {
    decision: string;
    option: string;
    choice: string;
    then: 'continue' | 'repeat';
    round_files?: string[];
    round_hashes?: Record<string, string>;
  };
  /**
   * `autopilot exec -- <command>` ran a command in the current step: its exit code (null when a
   * signal ended it or it could not start) and the totals read from its output, when it printed any.
   */
  command_run: {
    command: string;
    exit_code: number | null;
    totals?: { passed: number; failed: number; skipped?: number };
    signal?: string;
    /** The work tree as the run began (a git tree object): what changed after it began is told from it. */
    tree?: string;
  };
  /**
   * The project's test command pinned with the run (docs/flow-format.md, "Outputs and their checks"):
   * `command` (null: a person said the project has none, and `reason` why), `sources` what it runs that
   * the repository holds, each with a hash (`formats/verify-sources.ts`), `by` where it came from.
   */
  verify_pinned: { command: string | null; reason?: string; sources: Record<string, string | null>; by: 'settings' | 'found' | 'person' };
  /** `after`: the step whose completion reached the boundary. */
  boundary_reached: { after: number };
  /** `reached_by`: the session that reached it, when a new session crossed it (answering A). */
  boundary_answered: { option: string; choice: string; after: number; reached_by?: string; stopped?: string };
  failure_acknowledged: NoDetails;
  cycle_started: NoDetails;
  flow_completed: NoDetails;
  /** Taken from another session on this machine (`from`…), or on a shared git remote (`remote`). */
  lease_taken_over:
    { from: string; from_host: string; reason: 'gone' | 'stale' | 'take-over'; heartbeat: string } | { remote: string; reason: 'stale' | 'take-over' };
  /** `expected`: the next step the last action named, when the pointer had one. */
  follow_through: { message: string; expected?: string | undefined };
  /** `events`: how many events the breadcrumb listed. */
  breadcrumb: { events: number };
  skill_state_differs: { file: string; skill_sub_step: string; pointer_sub_step: string };
  /** `journal_then`: the journal's last event when the checkpoint was made; `skill_state`: the skills' state files it wrote back. */
  checkpoint_restored: { checkpoint: string; journal_then: number; skill_state?: string[] };
  run_repinned: { from_hash: string; flow_hash: string; changed: string[]; pinned: PinnedFlow; skills?: PinnedSkills; skills_hash?: string };
  /**
   * The skills' declarations the run is pinned to from here on (`formats/skill-pins.ts`), where no
   * `run_started` or `run_repinned` of the same command carries them: at the first write of a run
   * whose journal pinned none, and at a person's `repin` of the skills alone (`changed`: the skills
   * adopted, in words). `skills_hash` names the set.
   */
  skills_pinned: { skills_hash: string; skills: PinnedSkills; changed?: string[] };
  /** `reason`: its holder had ended on this machine (`gone`), or a person took another machine's lock over (`take-over`). */
  /** `check --repair`: journal lines that were not JSON (cut short by a crash), cut out; their bytes kept in `kept_in`. */
  /**
   * `check --repair` cut lines a crash left torn: `cut_lines` their numbers,
   * `kept_in` the side file with their bytes, `seams` the chain hashes of the
   * lines that followed them (their `prev` names a line no longer there):
   * settled, as a merge's seams are by `journal_merged`.
   */
  journal_repaired: { cut_lines: number[]; kept_in: string; seams: string[] };
  lock_broken: { holder: { pid: number; host: string; session: string; at: string }; reason?: 'gone' | 'take-over' };
  /**
   * A progress commit the command that journals this will make (docs/git.md):
   * the commit carries this event's seq as its `Autopilot-Event` trailer, so
   * a retry finds it. The position is what the commit is about; `files` the
   * state and evidence it holds; `tree` the work tree when the step started
   * (the commit then also holds what changed since); `steps` the flow's length;
   * `judged` the blob id of each file `done`'s judges read, committed as
   * judged; `carries` the earlier commits not made (a detached HEAD, a hook)
   * whose files this one holds too (docs/git.md).
   */
  progress_commit_owed: {
    files: string[];
    steps: number;
    tree?: string;
    batch_text?: string;
    judged?: Record<string, string>;
    carries?: string[];
  };
  /** The owed commit `owed` (its seq) is settled: made (`sha`), found already made, nothing to commit, or dropped (no git any more). */
  progress_commit_made: { owed: number; sha?: string; found?: true; dropped?: string };
  /**
   * A merge of two branches' journals settled (docs/state-and-journal.md, "Forks"):
   * `fork_point` the chain hash of the last line both sides share ('' when
   * they share none), `seams` the chain hashes of the seam lines it settles,
   * `sides` each side's sequence numbers, `settled` how (`agreed`: the sides
   * agree and were merged; `kept`: a person kept one side, `kept`).
   */
  /**
   * A hand edit of the pointer that passes a gate a person owns, held by the
   * first command that writes (docs/state-and-journal.md, "Hand edits"): the
   * run stays where the journal says. `held`: the edit, until a person adopts
   * it or drops it.
   */
  edit_held: { held: HeldEdit };
  /**
   * A person adopted what was held (`autopilot adopt`): a hand edit of the
   * pointer (`held`, the position the run goes on from), or an edit of the
   * pinned acceptance criteria (`changes`: each criterion dropped or
   * rewritten; `criteria`: the criteria pinned anew, as the file holds them).
   */
  edit_adopted: { what: 'pointer' | 'criteria' | 'journal'; held?: HeldEdit; changes?: string[]; criteria?: PinnedCriteria };
  /** A held hand edit dropped: the pointer's `## Held Edit` section was deleted (anyone may: the run stays where it is). */
  edit_dismissed: { held: HeldEdit };
  journal_merged: {
    fork_point: string;
    seams: string[];
    sides: { A: SeqRange | null; B: SeqRange | null };
    settled: 'agreed' | 'kept';
    kept?: 'A' | 'B';
    message: string;
  };
}

/** One acceptance criterion as pinned: its id, the sha1 (8 hex digits) of its text with whitespace folded, and that text, cut short. */
export interface PinnedCriterion {
  id: string;
  hash: string;
  text: string;
}

/** The acceptance criteria as pinned: the file (from the repository root) and each criterion (`CRITERIA_PINNED_MAX` at most). */
export interface PinnedCriteria {
  file: string;
  items: PinnedCriterion[];
}

/**
 * A hand edit of the pointer held for a person (docs/state-and-journal.md,
 * "Hand edits"): `pointer` the position as edited, `edited` each field it
 * changed (from the journal's position), `gates` why it is held, one
 * sentence a gate. Carried by every pointer record while it is held.
 */
export interface HeldEdit {
  pointer: PointerRecord;
  edited: Record<string, { was: unknown; now: unknown }>;
  gates: string[];
}

/** The first and last sequence number of a run of events (a side of a fork). */
export interface SeqRange {
  from: number;
  to: number;
}

/** Every event this autopilot writes. */
export type JournalEvent = keyof EventDetails;

/** Every key an event's details may hold (across the shapes of an event that has several). */
type DetailKey<E extends JournalEvent> = EventDetails[E] extends infer D ? (D extends unknown ? keyof D : never) : never;

/** Where the event happened: the position's fields, on every entry. */
interface At {
  flow: string;
  cycle: number;
  step: number | 'done';
  name: string;
  /** The step's zero-based position in the flow's step list (seed 004's `step_index`; `index` on lines of older autopilots). */
  step_index: number | null;
  status: string;
  retry_count: number;
}

/** An entry the rules produce, before the shell stamps it: one shape per event. */
export type JournalEntry<E extends JournalEvent = JournalEvent> = { [K in E]: { event: K } & At & EventDetails[K] }[E];

/** An event with no details takes none; one whose details are all optional may leave them out. */
type DetailsArgument<E extends JournalEvent> = [DetailKey<E>] extends [never]
  ? []
  : NoDetails extends EventDetails[E]
    ? [details?: EventDetails[E]]
    : [details: EventDetails[E]];

/** The entry for `event` at a position: the details must be the event's own. */
export function entry<E extends JournalEvent>(event: E, at: Position, ...details: DetailsArgument<E>): JournalEntry<E> {
  return {
    event,
    flow: at.flow,
    cycle: at.cycle,
    step: at.step,
    name: at.name,
    step_index: typeof at.step === 'number' ? at.step - 1 : null,
    status: at.status,
    retry_count: at.retryCount,
    ...details[0],
  } as unknown as JournalEntry<E>;
}

/** The pointer a command left behind, carried by the last entry of its batch: what a lost pointer is rebuilt from. */
export interface PointerRecord {
  flow: string;
  step: number | 'done';
  name: string;
  status: Status;
  sub_step: string;
  retry_count: number;
  cycle: number;
  /** The sha1 of the flow the run is pinned to: a changed flow file is noticed without reading history. */
  flow_hash?: string;
  /** The hash of the skills the run is pinned to (`skills_pinned`): a changed skill is noticed the same way. */
  skills_hash?: string;
  /** A hand edit held for a person, while it is (read through `heldOf`: a value of another shape counts as none). */
  held?: HeldEdit;
}

export function toPointerRecord(p: Position, flowHash?: string, skillsHash?: string, held?: HeldEdit): PointerRecord {
  return {
    flow: p.flow,
    step: p.step,
    name: p.name,
    status: p.status,
    sub_step: p.subStep,
    retry_count: p.retryCount,
    cycle: p.cycle,
    ...(flowHash ? { flow_hash: flowHash } : {}),
    skills_hash: skillsHash,
    held,
  };
}

/** The hand edit a pointer record says is held, when it has the shape autopilot writes; undefined otherwise. */
export function heldOf(record: PointerRecord | undefined): HeldEdit | undefined {
  const held: unknown = record?.held;
  if (!isJsonObject(held)) return undefined;
  const h = held as Record<string, unknown>;
  if (!isPointerRecord(h.pointer) || !isJsonObject(h.edited) || !isStrings(h.gates)) return undefined;
  return held as HeldEdit;
}

export function fromPointerRecord(r: PointerRecord): Position {
  return { flow: r.flow, step: r.step, name: r.name, status: r.status, subStep: r.sub_step, retryCount: r.retry_count, cycle: r.cycle };
}

/** What the shell adds to every entry it appends. */
interface Stamp {
  /**
   * The chain: `chainHash` of the line before this one in the file, as it
   * stood when this one was appended. Absent on a journal's first line and
   * on lines of an autopilot from before the chain.
   */
  prev?: string;
  /**
   * Written while the journal held a merge not yet settled: the chain hash of
   * that merge's seam line. Such an event belongs to neither side.
   */
  unsettled?: string;
  /**
   * 1, 2, 3, …: the entry's place in the journal; the pointer names the last
   * one it reflects. Lines of an autopilot from before sequence numbers have
   * none: readers that use it check `typeof e.seq`.
   */
  seq: number;
  at: string;
  /** The session the command ran as: the conversation's id, or `local`. */
  session: string;
  /**
   * `person`: a person's command wrote it (`decide`, `ack`, `done --force`,
   * `restore`, `repin`), acting on the run rather than driving it (rule 6).
   * Absent on a driving session's entries and on lines of older autopilots;
   * a value this one does not know is only shown.
   */
  actor?: string;
  /** The command that wrote it: `done:greenfield/1/3:a1:…` (command, flow/cycle/step, attempt, arguments). Recognises a repeated command. */
  key?: string;
  pointer?: PointerRecord;
  /**
   * On the line that closes a batch, now and then: the journal index as of
   * this line (`formats/journal-index.ts`, `CarriedIndex`), so a reader of
   * the journal's end needs nothing before it. Checked where it is read.
   */
  journal_index?: unknown;
}

const isCount = (v: unknown, min: number): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= min;
const isStepNumber = (v: unknown): v is number => isCount(v, 1);
const isStep = (v: unknown): v is number | 'done' => v === 'done' || isStepNumber(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
const isJsonObject = (v: unknown): v is object => typeof v === 'object' && v !== null && !Array.isArray(v);
const isChainHash = (v: unknown): v is string => typeof v === 'string' && CHAIN_HASH.test(v);
const isBatches = (v: unknown): v is string[][] => Array.isArray(v) && v.every(isStrings);
const isHashes = (v: unknown): v is Record<string, string> => isJsonObject(v) && Object.values(v).every(isString);
const isSources = (v: unknown): v is Record<string, string | null> => isJsonObject(v) && Object.values(v).every((h) => h === null || isString(h));
const isCommandOrNone = (v: unknown): v is string | null => v === null || isString(v);
const isExitCode = (v: unknown): v is number | null => v === null || (typeof v === 'number' && Number.isSafeInteger(v));
const isCriterion = (c: unknown): c is PinnedCriterion =>
  isJsonObject(c) &&
  isString((c as Record<string, unknown>).id) &&
  isString((c as Record<string, unknown>).hash) &&
  isString((c as Record<string, unknown>).text);
const isPinnedCriteria = (v: unknown): v is PinnedCriteria =>
  isJsonObject(v) &&
  isString((v as Record<string, unknown>).file) &&
  Array.isArray((v as Record<string, unknown>).items) &&
  ((v as Record<string, unknown>).items as unknown[]).every(isCriterion);
const isTotals = (v: unknown): v is { passed: number; failed: number; skipped?: number } =>
  isJsonObject(v) &&
  isCount((v as Record<string, unknown>).passed, 0) &&
  isCount((v as Record<string, unknown>).failed, 0) &&
  ((v as Record<string, unknown>).skipped === undefined || isCount((v as Record<string, unknown>).skipped, 0));

/**
 * The details the engine decides by, checked on every line that holds them: a
 * wrong type makes the line not an event. The boundary pending (`after`) and
 * the conversation a person's A stopped at it (`stopped`),
 * the waivers and rounds of the journal index (`by`, `forced`, `then`,
 * `round_files`), the pinned step list (`pinned`: its flow shape is checked
 * where it is used), the repeat of a command (`reason`, `sub_step`,
 * `option`), the fresh-evidence record (`hashes`, `round_hashes`), a
 * command's run (`command`, `exit_code`, `totals`, `tree`), the test command
 * pinned (`verify_pinned`) and the pinned acceptance criteria (`criteria`).
 * A held hand edit on a pointer record is read through `heldOf`, which passes
 * over a shape it does not know. The types are wider than the writers' where a newer autopilot
 * may write a value this one does not know (`by`, `then`).
 */
const CHECKED = {
  boundary_reached: { after: isStepNumber },
  decision_answered: { then: isString, round_files: isStrings, option: isString, round_hashes: isHashes },
  boundary_answered: { option: isString, stopped: isString },
  step_completed: { forced: isBoolean, criteria: isPinnedCriteria },
  edit_adopted: { criteria: isPinnedCriteria },
  step_skipped: { by: isString, reason: isString },
  step_failed: { reason: isString, hashes: isHashes },
  substep: { sub_step: isString },
  batch_started: { batch: isStepNumber, of: isStepNumber, tasks: isStrings, batches: isBatches, tree: isString, hashes: isHashes, report_hash: isString },
  batch_completed: { batch: isStepNumber, of: isStepNumber, tasks: isStrings },
  run_started: { pinned: isJsonObject, skills: isJsonObject, skills_hash: isString },
  run_repinned: { pinned: isJsonObject, skills: isJsonObject, skills_hash: isString },
  skills_pinned: { skills_hash: isString, skills: isJsonObject },
  step_started: { tree: isString, hashes: isHashes },
  command_run: { command: isString, exit_code: isExitCode, totals: isTotals, tree: isString },
  verify_pinned: { command: isCommandOrNone, sources: isSources, reason: isString },
  progress_commit_owed: { files: isStrings, steps: isStepNumber, tree: isString, batch_text: isString, judged: isHashes, carries: isStrings },
  progress_commit_made: { owed: isStepNumber },
  journal_merged: { seams: isStrings, fork_point: isString, kept: isString },
  journal_repaired: { seams: isStrings },
} satisfies { [E in JournalEvent]?: { [K in DetailKey<E>]?: (v: unknown) => boolean } };

type Checked = typeof CHECKED;
type Guarded<G> = G extends (v: unknown) => v is infer T ? T : unknown;
/** A detail as a reader sees it: its checked type, or `unknown`; always optional. */
type ReadDetails<E extends JournalEvent> = {
  [K in DetailKey<E>]?: E extends keyof Checked ? (K extends keyof Checked[E] ? Guarded<Checked[E][K]> : unknown) : unknown;
};

/** Where the event happened, as a reader may rely on it: `step_index` (or an older line's `index`) is not checked (no reader needs it). */
type ReadAt = Omit<At, 'step_index'> & { step_index?: unknown; index?: unknown };

/** A line whose event this autopilot knows, as `judgeLine` vouches for it. */
export type KnownEntry = { [E in JournalEvent]: { event: E } & Stamp & ReadAt & ReadDetails<E> }[JournalEvent];

/**
 * The name `OtherEntry.event` is typed with. A newer autopilot's event name
 * is any string but the known ones, which TypeScript cannot say; a literal
 * that names none of them keeps `e.event === 'boundary_reached'` narrowing an
 * entry to the known event, and a `switch` that lists every known event
 * still has to handle the rest. No line holds this name: never compare with it.
 */
export type OtherEvent = '(an event this autopilot does not know)';

/**
 * A line whose event a newer autopilot wrote: its stamp and place are checked
 * like any line's, its details are only shown (`log`), never read.
 */
export type OtherEntry = { event: OtherEvent } & Stamp & ReadAt & { readonly [detail: string]: unknown };

/** An entry as it stands in the journal file, as every reader gets it. */
export type StampedEntry = KnownEntry | OtherEntry;

/** A detail read by name, for what shows every detail (a log line, a report). */
export function readDetail(e: StampedEntry, key: string): unknown {
  return Object.hasOwn(e, key) ? (e as unknown as Record<string, unknown>)[key] : undefined;
}

function isPointerRecord(v: unknown): v is PointerRecord {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r.flow === 'string' &&
    isStep(r.step) &&
    typeof r.name === 'string' &&
    (STATUSES as readonly unknown[]).includes(r.status) &&
    typeof r.sub_step === 'string' &&
    isCount(r.retry_count, 0) &&
    r.retry_count <= MAX_RETRIES &&
    isCount(r.cycle, 1) &&
    (r.flow_hash === undefined || typeof r.flow_hash === 'string') &&
    (r.skills_hash === undefined || typeof r.skills_hash === 'string')
  );
}

/**
 * Why a parsed journal line is not an event, or undefined when it is one.
 * Lines from an older autopilot (no `seq`, no details) are events; a
 * `pointer` that does not hold a position, or a detail the engine decides by
 * of the wrong type, makes the line unusable.
 */
export function eventProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const e = value as Record<string, unknown>;
  if (typeof e.event !== 'string' || e.event === '') return 'no `event`';
  if (typeof e.flow !== 'string') return 'no `flow`';
  if (!isStep(e.step)) return '`step` is not a step number or `done`';
  if (!isCount(e.cycle, 1)) return '`cycle` is not a cycle number';
  if (typeof e.at !== 'string') return 'no `at` time';
  if (typeof e.session !== 'string') return 'no `session`';
  if (e.seq !== undefined && !isCount(e.seq, 1)) return '`seq` is not a sequence number';
  if (e.key !== undefined && typeof e.key !== 'string') return '`key` is not a command key';
  if (e.actor !== undefined && typeof e.actor !== 'string') return '`actor` is not a name';
  if (e.prev !== undefined && !isChainHash(e.prev)) return '`prev` is not a chain hash (8 hex digits)';
  if (e.unsettled !== undefined && !isChainHash(e.unsettled)) return '`unsettled` is not a chain hash (8 hex digits)';
  if (e.pointer !== undefined && !isPointerRecord(e.pointer)) return '`pointer` is not a position';
  // Only the events with details the engine decides by have checks; any other event, known or newer, is read as it is.
  const checks: Record<string, (v: unknown) => boolean> = Object.hasOwn(CHECKED, e.event) ? CHECKED[e.event as keyof Checked] : {};
  for (const [key, check] of Object.entries(checks)) {
    if (e[key] !== undefined && !check(e[key])) return `\`${key}\` of ${e.event} is not what autopilot writes`;
  }
  if (typeof e.name !== 'string') e.name = '';
  if (typeof e.status !== 'string') e.status = '';
  if (!isCount(e.retry_count, 0)) e.retry_count = 0;
  return undefined;
}

export type LineVerdict = { entry: StampedEntry } | { problem: string };

/** One line of the journal, judged: an event, or why it is not one. */
const NOT_JSON = 'not JSON (a line cut short by a crash, or a mangled merge)';
/** The first character of any JSON text, after optional whitespace. */
const JSON_START = /^[\s]*[{["\-0-9tfn]/;

export function judgeLine(line: string): LineVerdict {
  if (line.length > JOURNAL_LINE_MAX_BYTES) return { problem: `a line of ${line.length} characters (the limit is ${JOURNAL_LINE_MAX_BYTES})` };
  // What cannot start a JSON value is not JSON, said without asking JSON.parse: a failed parse builds an
  // error with a stack, and a journal of half a million such lines would take seconds.
  if (!JSON_START.test(line)) return { problem: NOT_JSON };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { problem: NOT_JSON };
  }
  const problem = eventProblem(value);
  return problem ? { problem: `not an event: ${problem}` } : { entry: value as StampedEntry };
}

export const JOURNAL_LINE_EXAMPLE =
  'one event a line, e.g. {"seq":1,"at":"…","session":"local","event":"step_started","flow":"greenfield","cycle":1,"step":1,…}';

/** One line of `file` (at 1-based `line`): an event, or the problem that every reader skips it for. */
export function parseJournalLine(text: string, file: string, line: number): { entry: StampedEntry } | { problem: Problem } {
  const verdict = judgeLine(text);
  if ('entry' in verdict) return verdict;
  return {
    problem: {
      file,
      line,
      message: `a journal line is ${verdict.problem}; every reader skips it`,
      expected: JOURNAL_LINE_EXAMPLE,
      received: BINARY.test(text) ? `${text.length} characters of binary data, not text` : text.slice(0, 80),
    },
  };
}

/** What no line of text holds: a byte that is not UTF-8 (read as U+FFFD), a NUL or another control character but tab and CR. */
// eslint-disable-next-line no-control-regex
const BINARY = /[\ufffd\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

const CHAIN_HASH = /^[0-9a-f]{8}$/;

/**
 * A line's chain hash: the first 8 hex digits of the sha1 of its exact text
 * (without its line end; a `\r` a checkout added is not part of it). What
 * the next line's `prev` holds.
 */
export function chainHash(line: string): string {
  return hashText(line.endsWith('\r') ? line.slice(0, -1) : line).slice(0, 8);
}

/**
 * The `prev` a line holds, read without parsing the whole line when the
 * writer put it first (`{"prev":"…",`), as this autopilot does; undefined when
 * it has none (or it is not an event: a seam is confirmed by `judgeLine`).
 */
export function prevOf(line: string): string | undefined {
  if (line.startsWith('{"prev":"') && line.charCodeAt(17) === 0x22) {
    const prev = line.slice(9, 17);
    return CHAIN_HASH.test(prev) ? prev : undefined;
  }
  if (!line.includes('"prev"')) return undefined;
  const verdict = judgeLine(line);
  return 'entry' in verdict ? verdict.entry.prev : undefined;
}

/** Entries as the journal holds them: one JSON object a line, each line ended. */
export function serializeEntries(entries: readonly StampedEntry[]): string {
  return entries.map((e) => JSON.stringify(e)).join('\n') + '\n';
}
