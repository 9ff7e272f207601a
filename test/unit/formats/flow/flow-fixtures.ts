/** Small flow texts for the parser tests, and the line numbers a person would count in them. */
import { expect } from 'vitest';
import type { Problem } from '../../../../src/errors.js';
import { parseFlow } from '../../../../src/formats/flow/parse-flow.js';

export const FILE = 'flows/demo.md';
export const ID = 'demo';

/** The 1-based line of the one line of `text` that contains `needle`. */
export function lineContaining(text: string, needle: string): number {
  const lines = text.split('\n');
  const hits = lines.flatMap((line, i) => (line.includes(needle) ? [i + 1] : []));
  expect(hits, `lines containing ${JSON.stringify(needle)}`).toHaveLength(1);
  return hits[0]!;
}

export const FRONT = ['---', 'id: demo', 'title: Demo flow', 'scan_order: 3', '---'].join('\n');
export const HEADER = '| Step | Name | Runs | Skill | Sub-steps | Done when | Then |\n|---|---|---|---|---|---|---|';

/** One row of the step table. */
export function row(n: number | string, name: string, runs: string, skill: string, doneWhen: string, then: string): string {
  return `| ${n} | ${name} | ${runs} | ${skill} | 1 Do it | ${doneWhen} | ${then} |`;
}

/** Three valid steps; tests replace one row to break it. */
export const ROWS = [
  row(1, 'Brief', 'always', '`brief`', '`00_brief/brief.md`', 'next'),
  row(2, 'Build', 'always', '`build`', '`01_build/report.md`', 'next'),
  row(3, 'Ship', 'always', '`ship`', '`02_ship/report.md`', 'end'),
];

/** A whole flow file: front matter, a title, the step table and whatever follows it. */
export function flowText(rows: string[] = ROWS, after = '', front = FRONT): string {
  return `${front}\n\n# Demo\n\n## Step Reference Table\n\n${HEADER}\n${rows.join('\n')}\n${after ? `\n${after}\n` : ''}`;
}

/** A `## Decisions` section with one decision. */
export function decisions(body: string, id = 'go-on'): string {
  return `## Decisions\n\n### \`${id}\`: Go on, or do it again?\n\n${body}`;
}

export const TWO_OPTIONS = '| Option | Choice | Then |\n|---|---|---|\n| A | Do it again | repeat |\n| B | Go on | continue |';
export const RECOMMENDATION = 'Recommendation: B — once is usually enough.';

export function problemsOf(text: string): Problem[] {
  const parsed = parseFlow(text, FILE, ID);
  expect(parsed.flow, 'parseFlow accepted a flow it should refuse').toBeUndefined();
  expect(parsed.problems.length).toBeGreaterThan(0);
  for (const p of parsed.problems) expect(p.file).toBe(FILE);
  return parsed.problems;
}

export function onlyProblemOf(text: string): Problem {
  const problems = problemsOf(text);
  expect(problems, JSON.stringify(problems, null, 2)).toHaveLength(1);
  return problems[0]!;
}

/** The parsed flow of a text that must be valid. */
export function validFlow(text: string) {
  const parsed = parseFlow(text, FILE, ID);
  expect(parsed.problems).toEqual([]);
  return parsed.flow!;
}
