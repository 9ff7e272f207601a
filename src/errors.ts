/**
 * Errors a user can act on. Every one says what is wrong, where (file and
 * line when there is one), what was expected (with a short example) and what
 * was received — the shape changesets' parser made familiar.
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

/** Bad usage or bad input: exit 2. Carries one problem or several (`check`). */
export class InputError extends Error {
  readonly problems: Problem[];
  readonly hint: string | undefined;
  constructor(problems: Problem | Problem[], hint?: string) {
    const list = Array.isArray(problems) ? problems : [problems];
    super(list.map(formatProblem).join('\n'));
    this.name = 'InputError';
    this.problems = list;
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
