/**
 * `acceptance-trace`: every acceptance criterion of the Problem step
 * (`00_problem/acceptance_criteria.md`) is named, by its id, in the text a
 * reader sees of the file (the task index, the test report): an id in an
 * HTML comment, a link's address or a tag's attribute names nothing
 * (`rendered.ts`). And every id the file names is a criterion: an `AC-99`
 * the criteria do not hold is refused. Nothing to trace when that file does
 * not exist or holds no id: the Problem step's own checks ask for them. The
 * criteria are read as a reader sees them too, under their heading
 * (`criteriaLines`).
 */
import { acceptanceIds, criteriaLines } from './acceptance-ids.js';
import { headingKey, headingOf, linesOf, withoutComments } from './markdown.js';
import { renderedText, visibleLines } from './rendered.js';
import type { Finding, Judge } from './types.js';

/** Where the acceptance criteria are, under the docs folder. */
export const ACCEPTANCE_FILE = '00_problem/acceptance_criteria.md';

/** The ids of the criteria a criteria file holds, as a reader sees it. */
export function criteriaIds(criteria: string): string[] {
  return acceptanceIds(
    visibleLines(criteriaLines(criteria))
      .map((l) => l.text)
      .join('\n'),
  );
}

/** Which of the criteria a text names (as a reader sees it), which it does not, and which ids it names that are no criterion. */
export function coverage(criteria: string, text: string): { ids: string[]; covered: string[]; missing: string[]; unknown: string[] } {
  const ids = criteriaIds(criteria);
  const named = acceptanceIds(renderedText(text));
  const known = new Set(ids);
  const has = new Set(named);
  return { ids, covered: ids.filter((id) => has.has(id)), missing: ids.filter((id) => !has.has(id)), unknown: named.filter((id) => !known.has(id)) };
}

/** The section where the criteria are traced (`Coverage`, `Criteria covered`, …), for a finding's line. */
function traceSection(text: string): { heading: string; line: number } | undefined {
  const h = linesOf(text)
    .map(headingOf)
    .find((x) => x && x.level >= 2 && /coverage|criteri/.test(headingKey(x.text)));
  return h ? { heading: h.text, line: h.line } : undefined;
}

/** The first line and heading where a reader sees `id` in the text. */
function firstSeen(text: string, id: string): { line?: number; heading?: string } {
  let heading: string | undefined;
  for (const line of visibleLines(withoutComments(linesOf(text)))) {
    const h = headingOf(line);
    if (h) heading = h.text;
    else if (acceptanceIds(line.text).includes(id)) return { line: line.number, heading };
  }
  return {};
}

export const acceptanceTrace: Judge = ({ file, text, acceptance }) => {
  if (acceptance === undefined) return [];
  const { ids, missing, unknown } = coverage(acceptance, text);
  if (ids.length === 0) return [];
  const findings: Finding[] = [];
  if (missing.length > 0)
    findings.push({
      check: 'acceptance-trace',
      file,
      ...traceSection(text),
      message: `${missing.length} of ${ids.length} acceptance criteria are not named: ${missing.join(', ')}`,
      write: `where each is covered, by its id (${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''}), in text a reader sees (not in a comment)`,
    });
  for (const id of unknown)
    findings.push({
      check: 'acceptance-trace',
      file,
      ...firstSeen(text, id),
      message: `${id} is not an acceptance criterion: ${ACCEPTANCE_FILE} holds ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? `, … (${ids.length})` : ''}`,
      write: `only the ids of ${ACCEPTANCE_FILE}; a criterion the person did not write is theirs to add there, not yours to cite`,
    });
  return findings;
};
