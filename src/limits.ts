/**
 * Every limit autopilot keeps, and nothing else: how much of a repository's
 * input it will read, how much work that input can cause, how long it waits.
 * A repository is untrusted input: each limit sits far above real use, and
 * low enough that the work a file can cause stays within a fraction of a
 * second. docs/flow-format.md shows what happens at each. (The rules of the
 * contract, such as `MAX_RETRIES`, are not limits: they live with the rules.)
 */

import type { Problem } from './errors.js';

const KB = 1024;
const MB = 1024 * KB;

// ——— Files read whole: a larger one is refused (or, for a cache, dropped) before it is read.

/**
 * A flow file. The built-in flows are about 4 KB. remark is slow on any
 * Markdown (a megabyte of plain prose takes it 2.4 s on a 2-core machine), so
 * this also bounds the parse: within the shape limits below, the costliest
 * 32 KB takes it under half a second, plain prose 0.15 s.
 */
export const FLOW_MAX_BYTES = 32 * KB;

/** A skill file (SKILL.md). autopilot only names it, but the agent reads it whole at every step. */
export const SKILL_MAX_BYTES = 256 * KB;

/**
 * A skill's folder as a run pins it (its hash: every file by path and
 * content): at most this many files, this many folders deep. A folder past
 * either is hashed up to them, and its hash still changes with what it reads.
 */
export const SKILL_FOLDER_MAX_FILES = 100;
export const SKILL_FOLDER_MAX_DEPTH = 4;

/**
 * The skills' declarations a run pins, as one journal line holds them
 * (`skills_pinned`): far above the built-in flows' (about 6 KB). Past it,
 * the largest declarations are kept by their hash only, and a judge that
 * needs one of them asks a person to repin.
 */
export const SKILL_PINS_MAX_BYTES = 32 * KB;

/** A skill's own state file (named in its SKILL.md): a position and what the skill keeps beside it, a few kilobytes. */
export const SKILL_STATE_MAX_BYTES = 256 * KB;

/** The state pointer, `_docs/_autopilot_state.md`: six lines and whatever a person adds. */
export const POINTER_MAX_BYTES = 64 * KB;

/** One line of the journal: one event, a few hundred bytes in practice. A longer line is not one autopilot wrote; it is skipped and reported. */
export const JOURNAL_LINE_MAX_BYTES = 64 * KB;

/** Unreadable journal lines named one by one by a whole read (`check`); the rest are counted in one problem. */
export const JOURNAL_PROBLEM_LINES_MAX = 100;

/**
 * The repository's flow cache (`_docs/_autopilot/cache/flows.json`): a parsed
 * flow is a few KB of JSON. A larger file is dropped and started afresh.
 */
export const FLOW_CACHE_MAX_BYTES = 4 * MB;

/** A checkpoint file: the pointer it keeps, the skills' own state files (each at most SKILL_STATE_MAX_BYTES) and a few lines of JSON. */
export const CHECKPOINT_MAX_BYTES = 2 * 1024 * KB;

/** The repository's settings, `.autopilot/config.yml`: a few lines of YAML. */
export const CONFIG_MAX_BYTES = 64 * KB;

/** A file `init` adds its lines to (.gitignore, AGENTS.md, an agent's settings). */
export const SETUP_FILE_MAX_BYTES = 1 * MB;

/** The task index a boundary's summary counts (tasks, batches, points): a table of a few hundred rows is tens of kilobytes. */
export const TASK_INDEX_MAX_BYTES = 256 * KB;

// ——— Files read in part.

/** The head of a SKILL.md read to see whether its front matter declares `state:`: front matter is a few lines. */
export const SKILL_HEAD_BYTES = 4096;

/**
 * The journal is never read whole by a command, only from its end, backwards,
 * within these windows: the last record and sequence number (and the boundary
 * last reached) within 1 MB, thousands of events; the newest event about the
 * step a command is aimed at within 8 MB (a command aimed at a step that long
 * ago is refused, not applied); any other tail (a breadcrumb's events) 4 MB.
 */
export const JOURNAL_HEAD_WINDOW_BYTES = 1 * MB;
export const JOURNAL_STEP_WINDOW_BYTES = 8 * MB;
export const JOURNAL_TAIL_WINDOW_BYTES = 4 * MB;

/**
 * The chain (`prev`) is checked over the journal's last 256 KB on every read
 * of its end, some 500 events (every line hashed): a merge whose later side added more than that
 * since the fork is not seen by a command (`check` reads the whole journal and
 * names it). A fork seen, its fork point is looked for within 8 MB.
 */
export const JOURNAL_CHAIN_WINDOW_BYTES = 256 * KB;
export const JOURNAL_FORK_WINDOW_BYTES = 8 * MB;

/** The chunks the journal is read in: memory stays flat whatever its size (whole reads forwards, tails backwards). */
export const JOURNAL_SCAN_CHUNK_BYTES = 1 * MB;
export const JOURNAL_BACKWARD_CHUNK_BYTES = 64 * KB;

/** Events a breadcrumb reads back to find the last breadcrumb: more are not worth listing (it counts them). */
export const BREADCRUMB_SCAN_EVENTS = 400;

/** Events a breadcrumb lists since the last one; older ones are counted. */
export const BREADCRUMB_MAX_EVENTS = 30;

/** Commits the git fallback looks back through for a pointer that parses, or for progress trailers: a lost pointer is recent history. */
export const GIT_FALLBACK_MAX_COMMITS = 20;

// ——— The journal index (`_docs/_autopilot/cache/journal-index.json`).

/**
 * Cycles the journal index keeps per step: only the few most recent can be
 * located (the folder's cycle, or the one after it), and the index stays
 * small however long a loop has run.
 */
export const JOURNAL_INDEX_KEPT_CYCLES = 8;

/**
 * The most journal bytes that may follow the last line carrying the journal
 * index: a batch that would leave more carries it again. Well inside the
 * window the journal's end is read in (`JOURNAL_CHAIN_WINDOW_BYTES`), so a
 * reader always finds a copy there.
 */
export const JOURNAL_INDEX_CARRY_BYTES = 64 * KB;

/** Bytes the journal index may lag behind the journal before a writing command rewrites it: a few hundred events, read in a millisecond. */
export const JOURNAL_INDEX_REFRESH_LAG_BYTES = 64 * KB;

/** The journal bytes before the point the index covers whose hash it keeps: enough to notice a journal replaced or rewritten. */
export const JOURNAL_INDEX_TAIL_BYTES = 256;

// ——— Names and text.

/** A flow id (the file name without `.md`, and the pointer's `flow:`). */
export const FLOW_ID_MAX_LENGTH = 64;

/** A key of the pointer's `key: value` lines: the longest is `retry_count`; anything longer before the colon is not a key. */
export const POINTER_KEY_MAX_LENGTH = 40;

/** Problems one pointer reports before the reader stops looking: a file with more is not a pointer gone wrong but something else. */
export const POINTER_MAX_PROBLEMS = 20;

/** Free text from an agent or a person on one line (a reason, a sub-step, a step's name in the pointer): longer is cut, with `…`. */
export const FREE_TEXT_MAX_LENGTH = 500;

/** A skill's recorded position: a sub-step's name, shown on one line beside the pointer's `sub_step`. */
export const SKILL_STATE_POSITION_MAX_LENGTH = 200;

/** A checkpoint's label, as it goes into the checkpoint's id and file name. */
export const CHECKPOINT_LABEL_MAX_LENGTH = 40;

/** A step command that writes after this long without a checkpoint takes one (seed 002: hourly). */
export const CHECKPOINT_EVERY_MS = 60 * 60_000;

/** The docs folder (`--docs`): a short path inside the repository, each folder of it shorter still. */
export const DOCS_PATH_MAX_LENGTH = 200;
export const DOCS_SEGMENT_MAX_LENGTH = 100;

/** A git remote's name in the settings (`lease.remote`). */
export const REMOTE_NAME_MAX_LENGTH = 100;

// ——— Work.

/** Files matched per Done-when pattern: enough to tell a new round's file from the last round's; more would only cost stats. */
export const EVIDENCE_MATCH_LIMIT = 100;

/** Cycles reconciliation may step through in one call: cycles only grow and a folder holds finitely many; the bound guards a broken reader. */
export const RECONCILE_MAX_HOPS = 100_000;

/**
 * The shape of a flow's Markdown, checked in one linear pass before remark
 * sees it. Nesting costs remark stack depth (10,000 nested quotes overflow it)
 * and time on every line inside it; emphasis and link markers are matched by
 * walking back over the markers before them; each list item, link, table
 * cell or code span costs it 0.02 to 0.3 ms. The built-in flows, for scale:
 * under 50 lines, lines under 250 characters, no nesting, no list items,
 * 30 emphasis markers, 4 brackets, 130 table pipes, 70 backticks.
 */
export const MARKDOWN_LIMITS = {
  lines: 1_000,
  /** Characters in one line. */
  lineLength: 4_000,
  /** `>` markers at the start of a line. */
  quoteDepth: 8,
  /** Columns of indentation, `>` and list markers at the start of a line: each nested list adds at least two. */
  indentColumns: 32,
  /** One run of `*`, `_` or `~`: each pair in a run nests one more emphasis. */
  markerRun: 100,
  /** List markers and `>` at the starts of lines, in the whole file. */
  containers: 200,
  /** `*`, `~` and `_` (but `_` inside a word, as in `00_problem`) in the whole file. */
  emphasisMarkers: 500,
  /** `[` and `]` in the whole file: links and images. */
  brackets: 300,
  /** `|` in the whole file: table cells. */
  pipes: 1_000,
  /** `` ` ``, `<`, `&`, `\`, `@`, `www.` and `://` in the whole file: code spans, HTML, entities, escapes, addresses. */
  inlineMarkup: 1_000,
} as const;

/** YAML aliases (`*name`) in a flow's front matter, and yaml's `maxAliasCount`: yaml resolves each alias by scanning the document. */
export const YAML_MAX_ALIASES = 100;

/**
 * How deep `[` and `{` may nest in a front matter's YAML: yaml's parser takes
 * seconds on thousands of levels (a 29 KB line of `[` took 1.3 s), and a flow
 * or a skill needs two or three.
 */
export const YAML_MAX_NESTING = 64;

/** YAML aliases in a SKILL.md's front matter (`maxAliasCount`): they have no use there; a few are tolerated, a billion laughs are not. */
export const SKILL_STATE_MAX_ALIASES = 10;

/** The outputs one skill may declare (`outputs:` in its SKILL.md): a step writes a few files. */
export const SKILL_OUTPUTS_MAX = 20;

/** An output file a judge reads at `done` (docs/flow-format.md, "Outputs and their checks"): far above any report; a larger one is refused, named. */
export const OUTPUT_FILE_MAX_BYTES = 1024 * KB;

/** A skill's template, read to compare an output with it. */
export const TEMPLATE_MAX_BYTES = 256 * KB;

/** A task file beside a task index, read to see that it is real (`task-index`): tasks are a page or two. */
export const TASK_FILE_MAX_BYTES = 256 * KB;

/** Task files read at one `done`; the rows past it are held to their file's existence only. */
export const TASK_FILES_READ_MAX = 200;

/** The files of one step whose hashes an attempt's start records (`hashes` of `step_started`): beyond it, freshness is not judged. */
export const HASHED_FILES_MAX = 200;

/**
 * What `autopilot exec` keeps of a command's output to read its totals from:
 * its closing lines, where a runner sums up, and its opening ones, where
 * JUnit XML printed to the output says its counts. A run's output beyond
 * them only streams past.
 */
export const EXEC_OUTPUT_TAIL_BYTES = 64 * KB;
export const EXEC_OUTPUT_HEAD_BYTES = 16 * KB;

/** A file the test command runs that a run pins (a package.json, a Makefile, a script): larger is read as absent. */
export const VERIFY_SOURCE_MAX_BYTES = 1 * MB;

/** YAML aliases in `.autopilot/config.yml` (`maxAliasCount`): three keys need none. */
export const CONFIG_MAX_ALIASES = 10;

/**
 * A task index read for a boundary's summary: a file past any of these is
 * refused before it is read (`summary/task-table.ts`). Its reader is one
 * linear pass (`evidence/markdown-tables.ts`); the limits, set when remark
 * read it, keep what a summary reads to what a task index holds: a 500-task
 * index is a tenth of each.
 */
export const TABLE_INPUT_LIMITS = {
  bytes: 256 * KB,
  lines: 5_000,
  /** `|` characters: a bound on table cells. */
  pipes: 30_000,
} as const;

// ——— Time.

/**
 * How long another session's lease on this machine may be quiet before it is
 * stale and taken over (`lease.stale_after_minutes` changes it): an agent
 * calls autopilot every few minutes while it works.
 */
export const DEFAULT_STALE_MS = 10 * 60_000;

/** How long a command waits for the lock before exit 4: a command holds it for milliseconds. */
export const LOCK_WAIT_MS = 10_000;

/** The waits between tries for the lock: from 2 ms, doubling (with jitter) up to 50 ms, so a waiter neither spins nor sleeps past a free lock. */
export const LOCK_RETRY_FIRST_MS = 2;
export const LOCK_RETRY_MAX_MS = 50;

/**
 * The breaker's own file (`lock.break`, never the lock itself) still naming no
 * breaker after this long, that no process of this machine has open, is
 * removed. The lock is never broken for its age, nor when it names no holder
 * or cannot be read (fail closed): only when its holder is provably dead on
 * this machine, or by a person (`--take-over`).
 */
export const LOCK_EMPTY_GRACE_MS = 2_000;

/** How long the SessionStart hook waits for its input on stdin: a hook never waits on a terminal. */
export const HOOK_STDIN_WAIT_MS = 300;

export function formatBytes(bytes: number): string {
  if (bytes < KB) return `${bytes} bytes`;
  if (bytes < KB * KB) return `${+(bytes / KB).toFixed(1)} KB`;
  return `${+(bytes / (KB * KB)).toFixed(1)} MB`;
}

/** A file over its size limit, as a problem naming the file, the limit and the size. `what`: `flow file`, `skill file`. */
export function tooLarge(file: string, what: string, size: number, limit: number): Problem {
  return {
    file,
    message: `the ${what} is ${formatBytes(size)}, over the limit of ${formatBytes(limit)}`,
    expected: `a ${what} of at most ${formatBytes(limit)}`,
    received: `${size} bytes`,
  };
}

/**
 * A folder a glob lists whose own size (what `stat` says: on ext4 about 30
 * bytes a name) passes this is read entry by entry, `LISTING_BUFFER_ENTRIES`
 * a system call; a smaller one in one `readdir`, which starts faster.
 */
export const LARGE_LISTING_BYTES = 256 * KB;
export const LISTING_BUFFER_ENTRIES = 1024;

/**
 * Such a large folder's matching names are kept (`formats/listing-cache.ts`)
 * when they are few, and only when the folder had been quiet this long before
 * it was listed: a file system stamps a folder's changes with a coarse clock,
 * so a change made in the same tick as the listing could leave its stamp as it
 * was. A larger cache file is read as none.
 */
export const LISTING_CACHE_MAX_NAMES = 1000;
export const LISTING_QUIET_MS = 2000;
export const LISTING_CACHE_MAX_BYTES = 256 * KB;

/** An evidence file at most this large is read to see that it holds more than whitespace; a larger one is content. */
export const BLANK_EVIDENCE_MAX_BYTES = 64 * KB;

/** How far up the process tree a command looks for the agent client it runs under (docs/sessions.md). */
export const CONVERSATION_MAX_DEPTH = 12;

/** A session's name: it goes into every journal line and the lease. */
export const SESSION_MAX_LENGTH = 128;

/** How long a git remote may stay silent (a push, a fetch) before a command gives up on it, unless the settings say otherwise. */
export const REMOTE_TIMEOUT_MS = 5_000;

/**
 * What the git layer collects from one git command's output (stdout and
 * stderr together, in characters as read): the largest answer it asks for is
 * a whole tree's listing (`ls-tree -r`, about 110 bytes a file: 60 MB for half
 * a million files), far below this; past it git is stopped and the command
 * fails saying so, rather than the process running out of memory or past
 * the longest string V8 holds (512 MB).
 */
export const GIT_OUTPUT_MAX_CHARS = 256 * MB;

/**
 * How many git processes the git layer runs at once (`git/slots.ts`): a
 * progress commit starts four side by side, a history read four `git show`;
 * the rest wait for a slot, so a burst never crowds a small machine.
 */
export const GIT_PROCESSES_MAX = 4;

/**
 * The longest MCP message the server reads (one JSON-RPC line): far above any
 * call an agent makes (free text is bounded far lower), far below what would
 * exhaust memory. A longer one is answered with an error, not read.
 */
export const MCP_LINE_MAX_BYTES = 1024 * 1024;

/** How far ahead of this clock a lease's heartbeat may be before it is reported as from a clock ahead (or this one set back). */
export const CLOCK_TOLERANCE_MS = 60_000;

/**
 * What this machine notes of other sessions' leases (`formats/lease-sightings.ts`):
 * a few notes per machine (the local lease and each remote), for the few
 * machines that share a folder; a larger file is read as no notes.
 */
export const SIGHTINGS_MAX_BYTES = 16 * 1024;
export const SIGHTINGS_MAX_MACHINES = 8;
export const SIGHTINGS_MAX_PLACES = 8;

/**
 * Acceptance criteria pinned with a run (issue 29 point 8), on the one journal
 * line of the step that writes them: a file with more keeps its first ones
 * pinned. Far above a real project's list, and with the text cut below, far
 * below `JOURNAL_LINE_MAX_BYTES`.
 */
export const CRITERIA_PINNED_MAX = 100;

/** A pinned criterion's text as the journal keeps it beside its hash (what a person is shown to put back): longer is cut, with `…`. */
export const CRITERION_TEXT_MAX_LENGTH = 160;
