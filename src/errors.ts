/**
 * Errors a user can act on. Every one says what is wrong, where (file and
 * line when there is one), what was expected (with a short example) and what
 * was received — the shape changesets' parser made familiar — and every
 * front end shows it in one JSON shape: `{ error: { code, message, file,
 * line, expected, received, hint } }`.
 */
export interface Problem {
  file?: string;
  line?: number;
  message: string;
  expected?: string;
  received?: string;
}

export const EXIT = {
  ok: 0,
  internal: 1,
  badInput: 2,
  stoppedForPerson: 3,
  heldByAnotherSession: 4,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** What each exit code means to a person: the help's section on them, and the contract's list. */
export const EXIT_MEANING: Record<ExitCode, string> = {
  0: 'done',
  1: 'an internal error, or git refused what was asked of it',
  2: 'bad usage or bad input (the message names the file and line)',
  3: 'stopped for a person: a decision, a session boundary, a step failed 3 times',
  4: 'another session holds the repository (or was taking its lease just then: run it again)',
};

/**
 * The one map of errors, as the MCP SDK's `ErrorCode` is: every error code
 * an answer can carry (`error.code` in `--json`; over MCP, the code a tool
 * error's text starts with, `mcp/server.ts`) and the exit code the command
 * line gives it. An error carries its code (`CodedError.code`, as `McpError`
 * carries its own), so the code and the exit are both read from the error
 * and this map, nowhere else. The texts an agent reads hold a row for each
 * (`clients/instructions.ts`, tested); the help lists them by exit code.
 */
export const ERROR_EXIT = {
  /** Bad usage or bad input. */
  bad_input: EXIT.badInput,
  /** A step command the rules refuse (missing evidence, not optional, the position moved). */
  refused: EXIT.badInput,
  /** A path that leads out of the repository. */
  outside_repository: EXIT.badInput,
  /** A guard (lock, lease, journal) cannot work here, so nothing runs unguarded. */
  guard_off: EXIT.badInput,
  /** The disk (or the user's quota) is full: a file could not be written, saying whether anything was changed. */
  disk_full: EXIT.badInput,
  /** Another session holds the repository, or the lock was not freed in time. */
  held: EXIT.heldByAnotherSession,
  /**
   * The lease on a shared remote kept moving while autopilot read it: another
   * session was taking or renewing it. Nothing was written; run the command
   * again (still moving: another session drives, and a person decides).
   */
  lease_moved: EXIT.heldByAnotherSession,
  /** Git refused what a command asked of it (a progress commit), with git's words. */
  git_failed: EXIT.internal,
  internal: EXIT.internal,
} as const satisfies Record<string, ExitCode>;

export type ErrorCode = keyof typeof ERROR_EXIT;

export const ERROR_CODES = Object.keys(ERROR_EXIT) as ErrorCode[];

/** Over MCP, an answer with this exit code is a result (work, or a stop for a person); any other is a tool error that starts with its code. */
export const isMcpResult = (exit: number): boolean => exit === EXIT.ok || exit === EXIT.stoppedForPerson;

/**
 * Brands a class so that `instanceof` knows its instances whichever copy of
 * it made them. The CLI loads rare parts (the Markdown parser, git, the MCP
 * server) from bundles of their own, each with its own copy of the modules it
 * uses: the brand is a registered symbol (`Symbol.for`), the same in every
 * copy, set on the class's prototype, so an error thrown in a lazy bundle is
 * still known for what it is. A subclass that is not branded itself is told
 * by its prototype, as usual. Called in the class's static block.
 */
export function brand(cls: abstract new (...args: never[]) => object, name: string): void {
  const mark = Symbol.for(`autopilot.${name}`);
  Object.defineProperty(cls.prototype, mark, { value: true });
  Object.defineProperty(cls, Symbol.hasInstance, {
    value(this: unknown, value: unknown): boolean {
      if (this !== cls) return Function.prototype[Symbol.hasInstance].call(this, value);
      return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[mark] === true;
    },
  });
}

/** An error a user can act on: it carries its code (`ERROR_EXIT`) and, most of them, a hint. Anything else is `internal`. */
export abstract class CodedError extends Error {
  static {
    brand(this, 'CodedError');
  }
  abstract readonly code: ErrorCode;
  abstract readonly hint: string | undefined;
}

/** Bad usage or bad input: exit 2. Carries one problem or several (`check`). */
export class InputError extends CodedError {
  static {
    brand(this, 'InputError');
  }
  readonly problems: Problem[];
  readonly hint: string | undefined;
  readonly code: ErrorCode;
  constructor(problems: Problem | Problem[], hint?: string, code: ErrorCode = 'bad_input') {
    const list = Array.isArray(problems) ? problems : [problems];
    super(list.map(formatProblem).join('\n'));
    this.name = 'InputError';
    this.problems = list;
    this.hint = hint;
    this.code = code;
  }
}

/** Another session (or a lock that was not freed in time) holds the repository: exit 4. */
export class HeldError extends CodedError {
  static {
    brand(this, 'HeldError');
  }
  readonly code = 'held' as const;
  readonly file: string | undefined;
  readonly hint: string;
  readonly holder: unknown;
  /** The person's choice (wait, or take over): shown by the agent, answered by the person. */
  readonly decision: unknown;
  constructor({ message, file, hint, holder, decision }: { message: string; file?: string; hint: string; holder?: unknown; decision?: unknown }) {
    super(message);
    this.name = 'HeldError';
    this.file = file;
    this.hint = hint;
    this.holder = holder;
    this.decision = decision;
  }
}

/** The lease on a shared remote kept moving while autopilot read it (`lease_moved`, exit 4): nothing was written; run the command again. */
export class LeaseMoved extends CodedError {
  static {
    brand(this, 'LeaseMoved');
  }
  readonly code = 'lease_moved' as const;
  readonly hint: string;
  constructor(remote: string) {
    super(`the lease on ${remote} kept changing while autopilot read it: another session is taking or renewing it`);
    this.name = 'LeaseMoved';
    this.hint = 'Nothing was written. Run the command again; if the lease keeps moving, another session drives this project: ask the person.';
  }
}

/** Git refused what a command asked of it — a progress commit — after the state was written: exit 1, git's words in the message. */
export class GitFailed extends CodedError {
  static {
    brand(this, 'GitFailed');
  }
  readonly code = 'git_failed' as const;
  readonly hint: string;
  constructor(message: string, hint: string) {
    super(message);
    this.name = 'GitFailed';
    this.hint = hint;
  }
}

export function where(problem: Pick<Problem, 'file' | 'line'>): string {
  if (!problem.file) return '';
  return problem.line ? `${problem.file}:${problem.line}` : problem.file;
}

export function formatProblem(problem: Problem): string {
  const at = where(problem);
  const lines = [at ? `${at}: ${problem.message}` : problem.message];
  if (problem.expected) lines.push(`  expected: ${problem.expected}`);
  if (problem.received !== undefined) lines.push(`  received: ${problem.received}`);
  return lines.join('\n');
}

/** Failures that mean the disk (or this user's quota) is full. */
export const DISK_FULL = new Set(['ENOSPC', 'EDQUOT']);

/**
 * A full disk, said as what it is (exit 2): the file that could not be
 * written and, where the command took its writes back (`notUndone` given),
 * whether everything was put back.
 */
export function diskFull(code: string, file: string | undefined, notUndone?: string[]): InputError {
  const what = `the disk is full: ${file ? 'this file' : 'a file'} could not be written`;
  return new InputError(
    {
      ...(file ? { file } : {}),
      message: !notUndone ? what : notUndone.length ? `${what}, and ${notUndone.join(', ')} could not be put back` : `${what}; nothing was changed`,
      expected: 'free space on the disk',
      received: code,
    },
    'Free some disk space, then run the command again.',
    'disk_full',
  );
}

/** A full disk met outside a commit (which says more itself) reads as one, never as an internal error; anything else is returned as it is. */
export function knownError(error: unknown): unknown {
  const { code, path } = (error ?? {}) as NodeJS.ErrnoException;
  return error instanceof Error && !(error instanceof InputError) && code && DISK_FULL.has(code) ? diskFull(code, path) : error;
}

/** The code of what was thrown: its own where it is one of autopilot's errors (a full disk read as one), else `internal`. */
export function errorCodeOf(given: unknown): ErrorCode {
  const error = knownError(given);
  return error instanceof CodedError ? error.code : 'internal';
}

/** The command line's exit code for what was thrown, by its code (`ERROR_EXIT`). */
export function exitCodeOfError(given: unknown): ExitCode {
  return ERROR_EXIT[errorCodeOf(given)];
}

/** The one JSON shape of every error: the first problem's fields at the top, all of them in `problems` when there are several. */
export function errorJson(given: unknown, code: ErrorCode = errorCodeOf(given)): { error: Record<string, unknown> } {
  const error = knownError(given);
  if (error instanceof InputError) {
    const [first] = error.problems;
    return {
      error: {
        code,
        message: error.problems.map(formatProblem).join('\n'),
        ...(first?.file ? { file: first.file } : {}),
        ...(first?.line ? { line: first.line } : {}),
        ...(first?.expected ? { expected: first.expected } : {}),
        received: first?.received,
        ...(error.hint ? { hint: error.hint } : {}),
        ...(error.problems.length > 1 ? { problems: error.problems } : {}),
      },
    };
  }
  if (error instanceof HeldError) {
    return {
      error: {
        code,
        message: error.message,
        ...(error.file ? { file: error.file } : {}),
        hint: error.hint,
        ...(error.holder ? { holder: error.holder } : {}),
        ...(error.decision ? { decision: error.decision } : {}),
      },
    };
  }
  if (error instanceof CodedError) return { error: { code, message: error.message, hint: error.hint } };
  return { error: { code, message: error instanceof Error ? error.message : String(error) } };
}

/** A refused step command's problem in the same shape. */
export function problemJson(problem: Problem, code: ErrorCode = 'refused'): Record<string, unknown> {
  return { code, ...problem };
}
