/**
 * What a judge of a step's evidence reads and says (docs/flow-format.md,
 * "Outputs and their checks"). A skill declares its outputs in its SKILL.md
 * front matter; the shell gathers each output's files (their text, the
 * template's, what a judge needs beside them) and the judges, pure functions,
 * say what is wrong with each file: a list of findings, each naming the file,
 * the line and the heading where there is one, and what to write.
 */

/** One output a skill declares (`outputs:` in its SKILL.md front matter). */
export interface OutputDeclaration {
  /** A pattern under the docs folder, in the Done-when pattern language (`{cycle}`, `*` in a segment). */
  file: string;
  /** The template, relative to the skill's folder (`templates/problem.md`). */
  template?: string;
  /** Required `## ` headings, each with real content under it. */
  sections: string[];
  /** The judges to run, by name (`src/evidence/index.ts`); `sections` is implied when sections are listed. */
  checks: string[];
  /** How many `[NEEDS CLARIFICATION]` markers the file may keep (the default: 3 in the Problem step's files, none elsewhere). */
  maxClarifications?: number;
}

/** A skill's declarations, as the shell hands them on. */
export interface SkillOutputs {
  skill: string;
  /** The SKILL.md the declarations come from, as shown to a person. */
  file: string;
  outputs: OutputDeclaration[];
}

/** A command autopilot ran and journaled (`autopilot exec`, event `command_run`). */
export interface CommandRun {
  command: string;
  /** null: the command was ended by a signal, or could not start. */
  exitCode: number | null;
  totals?: Totals;
  /** The journal event that records it. */
  seq: number;
  /** The work tree as the run began (a git tree object), when recorded: the shell tells `changedAfter` from it. */
  tree?: string;
  /**
   * Files outside the docs folder (tracked, or not ignored by git) that changed
   * after the run began: a result stands on the code as it was run. Undefined
   * where it cannot be told (no git, or a run recorded without its work tree).
   */
  changedAfter?: string[];
}

/**
 * The project's test command a test result is held to (`verify:`, pinned with
 * the run): `command` null when a person said the project has none (with
 * `reason`), undefined when none is pinned or found; `changed` what the
 * command runs that the repository holds and that changed since it was pinned.
 */
export interface VerifyFacts {
  command: string | null | undefined;
  reason?: string;
  changed: string[];
}

export interface Totals {
  passed: number;
  failed: number;
  skipped?: number;
}

/** What a judge is handed about one file of one output. */
export interface JudgeInput {
  output: OutputDeclaration;
  /** The file, relative to the docs folder. */
  file: string;
  text: string;
  /** The template's text, when the output names one and it could be read. */
  template?: string;
  /** The skill whose output it is: some defaults depend on it (`problem`). */
  skill: string;
  /** The acceptance criteria file's text (`00_problem/acceptance_criteria.md`), for a judge that `needs` it; undefined when there is none. */
  acceptance?: string;
  /** The names of the files beside this one (its folder), for a judge that `needs` them. */
  siblings?: string[];
  /** What the disk says of each file beside this one that a task row names, by name, for a judge that `needs` them (`taskFiles`). */
  taskFiles?: Readonly<Record<string, TaskFile>>;
  /** The task template (`task.md` beside the output's template, else the decompose skill's), when it could be read. */
  taskTemplate?: string;
  /** The commands journaled in this attempt of the step, oldest first, for a judge that `needs` them. */
  runs?: CommandRun[];
  /** A person accepted failed tests for this `done` (`done --accept-failures`). */
  acceptFailures?: boolean;
  /** The project's test command, for a judge that `needs` runs. */
  verify?: VerifyFacts;
}

/** Something wrong with a step's evidence, and what to write instead. */
export interface Finding {
  /** The judge that found it. */
  check: string;
  /** Relative to the docs folder. */
  file: string;
  line?: number;
  heading?: string;
  /** What is wrong. */
  message: string;
  /** What to write. */
  write: string;
  /** A failed test run a person may accept (`done --accept-failures`); every other finding needs the file fixed. */
  acceptable?: true;
}

/** A judge: one file of one output → what is wrong with it. Pure. */
export type Judge = (input: JudgeInput) => Finding[];

/**
 * A file beside a task index that a task row names, as the disk has it
 * (gathered at the edge with `lstat`, a link never followed): a regular file
 * with its text, or what else it is.
 */
export interface TaskFile {
  kind: 'file' | 'link' | 'folder' | 'device' | 'pipe' | 'socket' | 'other';
  /** A link's target, as written in the link. */
  target?: string;
  /** A regular file's text, when it was read. */
  text?: string;
  /** Why a regular file's text was not read (too large, unreadable). */
  problem?: string;
}

/** What a judge needs gathered beside the file and its template. */
export interface JudgeNeeds {
  acceptance?: true;
  siblings?: true;
  /** The task files a task table names, and the task template. */
  taskFiles?: true;
  runs?: true;
}
