/**
 * The JSON answers, the contract an agent reads (`--json`, the MCP tools'
 * structured content): one zod schema each. The TypeScript types the
 * renderers return are inferred from these schemas, the MCP server declares
 * them as its tools' output schemas, and the tests check every answer against
 * them. Only `autopilot mcp` and the tests load this file at run time (the
 * CLI imports its types, which cost nothing): zod stays off start-up.
 */
import * as z from 'zod';
import { ERROR_CODES } from '../errors.js';
import { STATUSES } from '../formats/pointer/position.js';

const stepNumber = z.union([z.number().int(), z.literal('done')]);
const code = z.enum(ERROR_CODES);

export const problemSchema = z.object({
  file: z.string().optional(),
  line: z.number().int().optional(),
  message: z.string(),
  expected: z.string().optional(),
  received: z.string().optional(),
});

export const errorSchema = z.object({
  code,
  message: z.string(),
  file: z.string().optional(),
  line: z.number().int().optional(),
  expected: z.string().optional(),
  received: z.string().optional(),
  hint: z.string().optional(),
  problems: z.array(problemSchema).optional(),
  holder: z.record(z.string(), z.unknown()).optional(),
  decision: z.record(z.string(), z.unknown()).optional(),
});

/** Every failure, whatever the command: exit 1, 2 or 4. */
export const errorAnswer = z.object({ error: errorSchema });

const decision = z.object({
  id: z.string(),
  question: z.string(),
  options: z.array(z.object({ option: z.string(), choice: z.string(), then: z.string() })),
  recommendation: z.object({ option: z.string(), reason: z.string() }),
  answer_with: z.string(),
});

/** One side of a journal fork: where it left the work, its events' numbers, what it did. */
const forkSide = z.object({
  position: z.object({ step: stepNumber, name: z.string(), status: z.string(), sub_step: z.string(), retry_count: z.number().int() }).nullable(),
  events: z.object({ from: z.number().int(), to: z.number().int() }).nullable(),
  did: z.array(z.string()),
});

/** A merge the journal holds whose two sides disagree (rule 11): nothing moves until a person keeps one. */
const fork = z.object({ reasons: z.array(z.string()), sides: z.object({ A: forkSide, B: forkSide }) });

/** The keys every position-bearing answer starts with: the pointer's meanings, where they came from, what disagreed. */
const position = z.object({
  flow: z.string(),
  step: stepNumber,
  name: z.string(),
  status: z.enum(STATUSES),
  sub_step: z.string(),
  retry_count: z.number().int(),
  cycle: z.number().int(),
  steps: z.number().int(),
  source: z.enum(['state', 'folder', 'git']),
  drift: z.array(z.object({ kind: z.string(), step: stepNumber, message: z.string() })),
  notices: z.array(z.string()).optional(),
  commit: z.string().optional(),
  /** The command line only: the repository's root, when it is not the folder the command started in (found above it). */
  root: z.string().optional(),
});

/** The question waiting for a person, as `status` shows it: each option with the exact command that gives it. */
const pending = z.object({
  kind: z.enum(['decision', 'boundary', 'failed', 'fork']),
  step: stepNumber,
  name: z.string(),
  question: z.string(),
  options: z.array(z.object({ option: z.string(), choice: z.string(), command: z.string() })),
  recommendation: z.object({ option: z.string(), reason: z.string() }).optional(),
  /** A failure: the last attempt's reason. */
  reason: z.string().optional(),
  /** The exact command that answers it: the recommended option's (`autopilot decide B`), or `autopilot ack`. */
  command: z.string(),
});

/** One run of the repository, as `runs` lists it and `status` adds it (docs/runs.md "Seeing every run"). */
export const runLine = z.object({
  run: z.string(),
  flow: z.string().optional(),
  step: stepNumber.optional(),
  name: z.string().optional(),
  status: z.enum(STATUSES).optional(),
  /** What waits for a person, and the exact command that answers it (`--run NAME` included for a named run). */
  waits_for: z.object({ kind: z.enum(['decision', 'boundary', 'failed', 'fork']), question: z.string(), command: z.string() }).optional(),
  /** The run's last progress commit and the branch that holds it (`runs` only: `status` asks no git). */
  commit: z.object({ sha: z.string(), branch: z.string().optional() }).optional(),
  lease: z.union([z.object({ session: z.string(), host: z.string(), heartbeat: z.string() }), z.object({ problem: z.string() })]).optional(),
  /** Why the run's files could not be read. */
  problem: z.string().optional(),
});

/** `runs`, and `status` with no run named where the repository holds named runs only: every run, one entry each. */
export const runsAnswer = z.object({ runs: z.array(runLine) });

export const statusAnswer = position.extend({
  done_when: z.array(z.string()).optional(),
  journal: z.object({ events: z.number().int() }),
  lease: z
    .union([
      z.object({
        session: z.string(),
        host: z.string(),
        heartbeat: z.string(),
        age: z.string(),
        mine: z.boolean(),
        stale: z.boolean(),
        gone: z.boolean(),
        ahead: z.string().optional(),
        /** Since when this machine has seen the holder's heartbeat unchanged (by its own clock), where a step command here noted it. */
        seen_since: z.string().optional(),
        /** From when the next step command takes the lease over if it is still unchanged; absent when only a person takes it. */
        stale_at: z.string().optional(),
      }),
      z.object({ problem: z.string() }),
      z.null(),
    ])
    .optional(),
  guards: z.array(z.string()),
  git_fallback: z.object({ on: z.boolean(), reason: z.string().optional() }),
  /** A progress commit not made yet (a kill, or git could not take it): its event, the steps it is about, the files it holds (rule 11). */
  progress_commit_owed: z.object({ event: z.number().int(), about: z.string().optional(), files: z.array(z.string()).optional() }).optional(),
  /** Whether step commands make progress commits here (on by default in a repository with a first commit), and why not. */
  progress_commits: z.object({ on: z.boolean(), reason: z.string().optional() }).optional(),
  /** The current step's batches, when it walks a task index: each with its tasks and where it stands. */
  batches: z.array(z.object({ batch: z.number().int(), tasks: z.array(z.string()), status: z.enum(['done', 'in_progress', 'failed', 'pending']) })).optional(),
  /** The acceptance criteria's ids (when their file exists), those the task index names (covered) and those the test report names (tested), each with the ids it misses. */
  acceptance: z
    .object({
      file: z.string(),
      ids: z.array(z.string()),
      covered: z.object({ file: z.string(), ids: z.array(z.string()), missing: z.array(z.string()) }).optional(),
      tested: z.object({ file: z.string(), ids: z.array(z.string()), missing: z.array(z.string()) }).optional(),
    })
    .optional(),
  boundary_pending: z.object({ after: z.number().int(), reached_by: z.string(), decision }).optional(),
  fork_pending: fork.extend({ decision }).optional(),
  /** What waits for a person's answer, if anything: a decision, a session boundary, a step failed three times, a fork. */
  pending: pending.optional(),
  /** Every run of the repository, where it holds more than the one shown (no git asked: no `commit`). */
  runs: z.array(runLine).optional(),
});

const summary = z.union([
  z.object({ file: z.string(), tasks: z.number().int(), batches: z.number().int(), points: z.number() }),
  /** The task index cannot be read: why, and what the agent fixes in it (the file, the line, what it needs) before it runs `next` again. */
  z.object({ file: z.string(), problem: z.string(), fix: z.string() }),
]);

/** `next`, `done`, `fail`, `skip`, `decide`, `ack`, `substep`. */
export const stepAnswer = position.extend({
  outcome: z.enum(['work', 'advanced', 'recorded', 'decision', 'boundary', 'failed', 'fork', 'complete', 'duplicate', 'refused']),
  action: z.enum(['start', 'resume', 'retry']).optional(),
  skill: z.string().optional(),
  done_when: z.array(z.string()).optional(),
  /** Where a `done_when` pattern names a numbered file: the next free name to write (`_docs/01_solution/solution_draft_03.md`). */
  write: z.array(z.string()).optional(),
  /** The `done_when` files that exist already and count for this round: kept and built on when a step is resumed. */
  have: z.array(z.string()).optional(),
  /** Each output the step's skill declares with a template: the file to write, and the template to write it from. */
  templates: z.array(z.object({ file: z.string(), template: z.string() })).optional(),
  /** A named run started on the repository's output: the folders of it the step reads (`_docs/02_document/`). */
  reads: z.array(z.string()).optional(),
  /** The sub-step recorded (`substep`): where a resumed step picks up. */
  resume: z.string().optional(),
  /** In a step that walks a task index: the batch to work on (its tasks, each task's file and criteria, the report `done` checks), and the batch `done` just finished. */
  batch: z
    .object({
      batch: z.number().int(),
      of: z.number().int(),
      tasks: z.array(z.object({ id: z.string(), name: z.string(), file: z.string().optional(), criteria: z.array(z.string()) })),
      report: z.string(),
      index: z.string(),
      reported: z.array(z.string()).optional(),
      finished: z.object({ batch: z.number().int(), tasks: z.array(z.string()) }).optional(),
    })
    .optional(),
  decision: decision.optional(),
  boundary: z
    .object({
      after: z.object({ step: z.number().int(), name: z.string() }),
      next: z.object({ step: stepNumber, name: z.string() }),
      answered: z.literal('A').optional(),
      message: z.string().optional(),
      decision: decision.optional(),
      summary: summary.optional(),
    })
    .optional(),
  fork: fork.optional(),
  message: z.string().optional(),
  duplicate_of: z.object({ seq: z.number().int(), event: z.string() }).optional(),
  error: problemSchema.extend({ code }).optional(),
  missing: z.array(z.string()).optional(),
  /** `done` refused for what the step's files hold: each problem, where, and what to write (`acceptable`: a failed test run only a person may accept). */
  findings: z
    .array(
      z.object({
        check: z.string(),
        file: z.string(),
        line: z.number().int().optional(),
        heading: z.string().optional(),
        message: z.string(),
        write: z.string(),
        acceptable: z.literal(true).optional(),
      }),
    )
    .optional(),
  reason: z.string().optional(),
  /** The id of the checkpoint the command took: `autopilot restore <id>` returns to it. */
  checkpoint: z.string().optional(),
});

export const checkAnswer = z.object({
  ok: z.boolean(),
  problems: z.array(problemSchema),
  flows: z.array(z.string()),
  skills: z.number().int(),
  pointer: z.enum(['ok', 'absent', 'invalid']),
  journal_events: z.number().int(),
  git_fallback: z.object({ on: z.boolean(), reason: z.string().optional() }),
  /** Every run's completed steps proven by content (docs/runs.md): counted; the lost (a file gone) and the changed (other bytes than recorded) with their files; those with no commit on record. */
  runs: z
    .array(
      z.object({
        run: z.string(),
        proven: z.number().int(),
        lost: z.array(
          z.object({
            step: z.number().int(),
            name: z.string(),
            cycle: z.number().int(),
            files: z.array(z.object({ path: z.string(), why: z.enum(['missing', 'changed']) })),
          }),
        ),
        changed: z.array(
          z.object({
            step: z.number().int(),
            name: z.string(),
            cycle: z.number().int(),
            files: z.array(z.object({ path: z.string(), why: z.enum(['missing', 'changed']) })),
          }),
        ),
        unrecorded: z.array(z.object({ step: z.number().int(), name: z.string(), cycle: z.number().int() })),
      }),
    )
    .optional(),
});

export const logAnswer = z.object({
  events: z.array(z.looseObject({ event: z.string(), flow: z.string(), step: stepNumber, at: z.string(), session: z.string() })),
  problems: z.array(problemSchema),
  /** The whole log only: where a merge put another branch's events (the line of the seam, the line it forked after, the line of the `journal_merged` that settles it). */
  seams: z.array(z.object({ line: z.number().int(), forked_after: z.number().int().optional(), settled_at: z.number().int().optional() })).optional(),
});

export const initAnswer = z.object({
  /** Every file init went through, and what it did to it. */
  files: z.array(z.object({ path: z.string(), action: z.enum(['created', 'changed', 'kept']) })),
  created: z.array(z.string()),
  changed: z.array(z.string()),
  kept: z.array(z.string()),
  /** The files to commit: those init wrote. */
  commit: z.array(z.string()),
  /** The `.gitignore` lines that keep autopilot's machine-local files (and `node_modules/`) out of git. */
  ignored: z.array(z.string()),
  /** What will not work as written (a binary the configs name that is not installed), and how to fix it. */
  warnings: z.array(z.string()),
  pointer: z.object({ flow: z.string(), step: z.number().int(), name: z.string() }).optional(),
  /** The named run init set up or started (`--run`); absent for the default run. */
  run: z.string().optional(),
  /** A named run started on the repository's output: the folder it reads, the steps that are the repository's. */
  repository: z.object({ read: z.string(), steps: z.array(z.number().int()) }).optional(),
  /** What happens to the steps in git: committed (and the line that turns it off), or why not. */
  commits: z.string().optional(),
  /** The project's test command (`verify:` in .autopilot/config.yml), null where none is known yet, and where it was found. */
  verify: z.object({ command: z.string().nullable(), found_in: z.string().optional() }).optional(),
  /** The repository's root, when it is not the folder init started in (found above it). */
  root: z.string().optional(),
});

export const breadcrumbAnswer = z.object({ markdown: z.string(), marked: z.boolean(), noted: z.string().optional() });
export const reportAnswer = z.object({ file: z.string(), html: z.string().optional() });
export const leaseAnswer = z.object({ remote: z.string(), sha: z.string(), taken: z.enum(['new', 'renewed', 'stale', 'take-over']) });
export const repinAnswer = z.object({ repinned: z.boolean(), changes: z.array(z.string()), step: stepNumber, name: z.string() });
/** `adopt`: what a person adopted (each held edit, with its changes) and where the run goes on from. */
export const adoptAnswer = z.object({
  adopted: z.array(z.object({ what: z.enum(['pointer', 'criteria', 'journal']), changes: z.array(z.string()) })),
  flow: z.string(),
  step: stepNumber,
  name: z.string(),
  status: z.enum(STATUSES),
  sub_step: z.string(),
  retry_count: z.number().int(),
});
export const checkpointAnswer = z.object({ id: z.string(), pruned: z.array(z.string()) });
export const checkpointsAnswer = z.object({
  checkpoints: z.array(
    z.object({ id: z.string(), at: z.string(), note: z.string(), seq: z.number().int(), step: stepNumber.nullable(), status: z.string().nullable() }),
  ),
});
export const restoreAnswer = z.object({ restored: z.string(), step: stepNumber, name: z.string(), status: z.enum(STATUSES) });
/** `exec`: the run autopilot recorded, and the Result lines a report copies. */
export const execAnswer = z.object({
  command: z.string(),
  exit_code: z.number().int().nullable(),
  totals: z.object({ passed: z.number().int(), failed: z.number().int(), skipped: z.number().int().optional() }).optional(),
  /** The runner whose summary the totals were read from. */
  runner: z.string().optional(),
  signal: z.string().optional(),
  /** The run is of the project's test command, as the run pinned it: a report's Result may stand on it. */
  verify: z.boolean(),
  seq: z.number().int(),
  step: z.number().int(),
  result: z.string(),
});
export const closedAnswer = z.object({ closed: z.literal(true) });
export const hookAnswer = z.object({ released: z.boolean().optional() });

export type ErrorAnswer = z.infer<typeof errorAnswer>;
export type StatusAnswer = z.infer<typeof statusAnswer>;
export type StepAnswer = z.infer<typeof stepAnswer>;
export type CheckAnswer = z.infer<typeof checkAnswer>;
export type LogAnswer = z.infer<typeof logAnswer>;
export type InitAnswer = z.infer<typeof initAnswer>;
export type BreadcrumbAnswer = z.infer<typeof breadcrumbAnswer>;
export type ReportAnswer = z.infer<typeof reportAnswer>;
export type LeaseAnswer = z.infer<typeof leaseAnswer>;
export type RepinAnswer = z.infer<typeof repinAnswer>;
export type AdoptAnswer = z.infer<typeof adoptAnswer>;
export type CheckpointAnswer = z.infer<typeof checkpointAnswer>;
export type CheckpointsAnswer = z.infer<typeof checkpointsAnswer>;
export type RestoreAnswer = z.infer<typeof restoreAnswer>;
export type ExecAnswer = z.infer<typeof execAnswer>;
export type RunsAnswer = z.infer<typeof runsAnswer>;

/** Each command's answer schema, by the name the registry gives it (`commands/*.ts`, `answer`). */
export const ANSWERS = {
  status: statusAnswer,
  step: stepAnswer,
  check: checkAnswer,
  log: logAnswer,
  init: initAnswer,
  breadcrumb: breadcrumbAnswer,
  report: reportAnswer,
  lease: leaseAnswer,
  repin: repinAnswer,
  adopt: adoptAnswer,
  checkpoint: checkpointAnswer,
  checkpoints: checkpointsAnswer,
  restore: restoreAnswer,
  closed: closedAnswer,
  hook: hookAnswer,
  exec: execAnswer,
  runs: runsAnswer,
} as const;

export type AnswerName = keyof typeof ANSWERS;
