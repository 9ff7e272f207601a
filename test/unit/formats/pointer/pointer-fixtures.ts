/** Shared text for the pointer tests: the contract's template and ways to edit it line by line. */
import { expect } from 'vitest';
import { InputError, type Problem } from '../../../../src/errors.js';
import { parsePointer } from '../../../../src/formats/pointer/parse-pointer.js';
import type { Position } from '../../../../src/formats/pointer/position.js';

export const FILE = '_docs/_autopilot_state.md';

/** The contract's template, exactly (lines 1–9 plus the final newline). */
export const TEMPLATE = `# Autopilot State

## Current Step
flow: existing-code
step: 2
name: Test Spec
status: failed
sub_step: 1b — Test Case Generation
retry_count: 3
`;

/** Lines of the template, 1-based, as a person reading the file would count them. */
export const LINE = { title: 1, heading: 3, flow: 4, step: 5, name: 6, status: 7, sub_step: 8, retry_count: 9 } as const;

export const TEMPLATE_POSITION: Position = {
  flow: 'existing-code',
  step: 2,
  name: 'Test Spec',
  status: 'failed',
  subStep: '1b — Test Case Generation',
  retryCount: 3,
  cycle: 1,
};

/** The template with one line replaced (or removed, with `null`), keeping every other line where it was. */
export function editLine(line: number, replacement: string | null, text = TEMPLATE): string {
  const lines = text.split('\n');
  expect(line).toBeGreaterThanOrEqual(1);
  expect(line).toBeLessThanOrEqual(lines.length);
  if (replacement === null) lines.splice(line - 1, 1);
  else lines[line - 1] = replacement;
  return lines.join('\n');
}

/** The problems parsePointer reports for a text it must refuse. */
export function problemsOf(text: string, file = FILE): Problem[] {
  let thrown: unknown;
  try {
    parsePointer(text, file);
  } catch (error) {
    thrown = error;
  }
  expect(thrown, 'parsePointer accepted a text it should refuse').toBeInstanceOf(InputError);
  return (thrown as InputError).problems;
}

/** The one problem parsePointer reports for a text with exactly one thing wrong. */
export function onlyProblemOf(text: string, file = FILE): Problem {
  const problems = problemsOf(text, file);
  expect(problems, JSON.stringify(problems, null, 2)).toHaveLength(1);
  return problems[0]!;
}
