/**
 * How far the acceptance criteria are traced, for people (`status`,
 * `report`): the `AC-NN` ids of the criteria, which of them the task index
 * names (covered by tasks) and which the test report names (tested), read as
 * the trace reads them (`acceptance-trace.ts`: what a reader sees). Pure:
 * the texts come in, read by src/app only when the files exist.
 */

import { acceptanceIds, criteriaLines } from './acceptance-ids.js';
import { criteriaIds } from './acceptance-trace.js';
import { linesOf } from './markdown.js';
import { renderedText } from './rendered.js';

/** Where a run's criteria, task index and test report live, relative to the docs folder. */
export interface AcceptanceFiles {
  criteria: string;
  /** The task index; absent when it is the criteria file itself (a cycle's index holds both). */
  tasks?: string;
  tests: string;
}

/** The greenfield files, or a cycle's (existing-code: the cycle's index holds its criteria and its tasks). */
export function acceptanceFiles(cycle: number | undefined): AcceptanceFiles {
  if (cycle === undefined) return { criteria: '00_problem/acceptance_criteria.md', tasks: '02_tasks/_index.md', tests: '03_implementation/test_report.md' };
  return { criteria: `02_tasks/cycle-${cycle}/_index.md`, tests: `03_implementation/cycle-${cycle}/test_report.md` };
}

export interface Traced {
  /** The file, relative to the docs folder. */
  file: string;
  /** The criteria it names, in the criteria's order. */
  named: string[];
  /** The criteria it does not name. */
  missing: string[];
}

export interface AcCoverage {
  file: string;
  ids: string[];
  /** Absent when there is no task index yet. */
  covered?: Traced;
  /** Absent when there is no test report yet. */
  tested?: Traced;
}

export interface AcTexts {
  files: AcceptanceFiles;
  criteria: string;
  tasks?: string;
  tests?: string;
}

/** The text outside the criteria section: in a cycle's index, where its tasks name the criteria. */
function outsideCriteria(text: string): string {
  const inside = new Set(criteriaLines(text).map((l) => l.number));
  return linesOf(text)
    .filter((l) => !inside.has(l.number))
    .map((l) => l.text)
    .join('\n');
}

/** What `text` names of the criteria, as a reader sees it (not in comments: `rendered.ts`), as the trace judges it. */
function traced(file: string, ids: string[], text: string): Traced {
  const named = new Set(acceptanceIds(renderedText(text)));
  return { file, named: ids.filter((id) => named.has(id)), missing: ids.filter((id) => !named.has(id)) };
}

/** The coverage of the criteria; undefined when they name no id (nothing to trace). */
export function acCoverage({ files, criteria, tasks, tests }: AcTexts): AcCoverage | undefined {
  const ids = criteriaIds(criteria);
  if (ids.length === 0) return undefined;
  const taskText = files.tasks === undefined ? outsideCriteria(criteria) : tasks;
  return {
    file: files.criteria,
    ids,
    ...(taskText !== undefined ? { covered: traced(files.tasks ?? files.criteria, ids, taskText) } : {}),
    ...(tests !== undefined ? { tested: traced(files.tests, ids, tests) } : {}),
  };
}

/** Ids for one line: the first `max`, then how many more. */
export function someIds(ids: string[], max = 3): string {
  return ids.length <= max ? ids.join(', ') : `${ids.slice(0, max).join(', ')} +${ids.length - max} more`;
}

/** One line for people: `11 of 12 covered by tasks, 10 of 12 tested; untested AC-07, AC-09`. */
export function acCoverageLine(c: AcCoverage): string {
  const n = c.ids.length;
  const parts = [
    c.covered ? `${c.covered.named.length} of ${n} covered` : `${n} criteria, no task index yet`,
    c.tested ? `${c.tested.named.length} of ${n} tested` : 'no test report yet',
  ];
  const gaps = [
    ...(c.covered && c.covered.missing.length > 0 ? [`uncovered ${someIds(c.covered.missing)}`] : []),
    ...(c.tested && c.tested.missing.length > 0 ? [`untested ${someIds(c.tested.missing)}`] : []),
  ];
  return `${parts.join(', ')}${gaps.length > 0 ? `; ${gaps.join('; ')}` : ''}`;
}
