/**
 * The acceptance criteria as pinned (issue 29 point 8): the criteria file's
 * list items (`- AC-01: …`, read where `acceptance-ids` reads them: under an
 * `Acceptance criteria` heading when the file has one, comments left out),
 * each as its id, a hash of its text and the text itself, cut short. Pure:
 * text → criteria; what a journal line carries (`criteria` on the step's
 * `step_completed`, or on a person's `edit_adopted`) is checked in
 * `journal-line.ts`.
 *
 * The hash is of the item's whole text (its continuation lines too) with
 * whitespace folded, so re-wrapping a criterion is no edit, and changing a
 * word is one.
 */
import { criteriaLines } from '../evidence/acceptance-ids.js';
import { headingKey, headingOf } from '../evidence/markdown.js';
import { hashText } from '../hash.js';
import { CRITERIA_PINNED_MAX, CRITERION_TEXT_MAX_LENGTH } from '../limits.js';
import type { PinnedCriterion } from './journal-line.js';

const ITEM = /^([-*+]|\d+[.)])\s+(.*)$/;
const LEADING_ID = /^(?:\*\*|__)?\[?(AC-\d{2,})\b/;
const SELF_CHECK = headingKey('Self-check');

/** Each criterion with an id, in the file's order (the first of an id that is used twice); at most `CRITERIA_PINNED_MAX`. */
export function readCriteria(text: string): PinnedCriterion[] {
  const items: { id: string; words: string[] }[] = [];
  let open: { id: string; words: string[] } | undefined;
  let selfCheck = false;
  for (const line of criteriaLines(text)) {
    const heading = headingOf(line);
    if (heading) {
      selfCheck = headingKey(heading.text) === SELF_CHECK;
      open = undefined;
      continue;
    }
    if (line.code || selfCheck) continue;
    const item = ITEM.exec(line.text);
    if (item) {
      const id = LEADING_ID.exec(item[2]!.trim())?.[1];
      open = id && !items.some((i) => i.id === id) ? { id, words: [item[2]!] } : undefined;
      if (open) items.push(open);
    } else if (open && /^\s+\S/.test(line.text)) open.words.push(line.text);
    else if (line.text.trim() !== '') open = undefined;
  }
  return items.slice(0, CRITERIA_PINNED_MAX).map(({ id, words }) => {
    const folded = words.join(' ').replace(/\s+/g, ' ').trim();
    return {
      id,
      hash: hashText(folded).slice(0, 8),
      text: folded.length > CRITERION_TEXT_MAX_LENGTH ? `${folded.slice(0, CRITERION_TEXT_MAX_LENGTH - 1)}…` : folded,
    };
  });
}
