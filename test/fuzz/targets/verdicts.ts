/** How an in-process answer is judged: a value, or problems in the project's shape; anything else is a crash. */
import { isDeepStrictEqual } from 'node:util';
import type { Problem } from '../../../src/errors.js';
import { PARSER_FAILED } from '../../../src/formats/flow/parse-flow.js';
import type { Verdict } from '../harness.js';

/** Why a problem is not one a person can act on, or undefined. */
export function malformed(problem: Problem, file: string): string | undefined {
  if (problem.file !== file) return `names the file ${String(problem.file)}, not ${file}`;
  if (typeof problem.message !== 'string' || problem.message === '') return 'has no message';
  if (problem.line !== undefined && !(Number.isInteger(problem.line) && problem.line >= 1)) return `names the line ${String(problem.line)}`;
  if (typeof problem.expected !== 'string' || problem.expected === '') return 'says nothing of what was expected';
  // The parser's safety net caught an exception: the shape limits let through something remark cannot take.
  if (problem.message.startsWith(PARSER_FAILED)) return 'is the safety net catching an exception';
  return undefined;
}

export function judge(answer: { value?: unknown; problems: Problem[] }, file: string): Verdict {
  if (answer.value !== undefined) {
    if (answer.problems.length > 0) return { kind: 'crash', detail: 'a value and problems at once' };
    // Parsed flows are cached as JSON: they must survive the round trip.
    if (!isDeepStrictEqual(JSON.parse(JSON.stringify(answer.value)), answer.value)) return { kind: 'crash', detail: 'the value does not survive JSON' };
    return { kind: 'accepted' };
  }
  if (answer.problems.length === 0) return { kind: 'crash', detail: 'neither a value nor a problem' };
  for (const problem of answer.problems) {
    const wrong = malformed(problem, file);
    if (wrong) return { kind: 'crash', detail: `a problem ${wrong}: ${JSON.stringify(problem).slice(0, 500)}` };
  }
  return { kind: 'refused' };
}
