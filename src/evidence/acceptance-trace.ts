/**
 * `acceptance-trace`: every acceptance criterion of the Problem step
 * (`00_problem/acceptance_criteria.md`) is named, by its id, in the file
 * (the task index, the test report). Nothing to trace when that file does not
 * exist or holds no id: the Problem step's own checks ask for them.
 */
import { acceptanceIds } from './acceptance-ids.js';
import type { Judge } from './types.js';

/** Where the acceptance criteria are, under the docs folder. */
export const ACCEPTANCE_FILE = '00_problem/acceptance_criteria.md';

/** Which of the criteria a text names, and which it does not. */
export function coverage(criteria: string, text: string): { ids: string[]; covered: string[]; missing: string[] } {
  const ids = acceptanceIds(criteria);
  const named = new Set(acceptanceIds(text));
  return { ids, covered: ids.filter((id) => named.has(id)), missing: ids.filter((id) => !named.has(id)) };
}

export const acceptanceTrace: Judge = ({ file, text, acceptance }) => {
  if (acceptance === undefined) return [];
  const { ids, missing } = coverage(acceptance, text);
  if (missing.length === 0) return [];
  return [
    {
      check: 'acceptance-trace',
      file,
      message: `${missing.length} of ${ids.length} acceptance criteria are not named: ${missing.join(', ')}`,
      write: `where each is covered, by its id (${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''})`,
    },
  ];
};
