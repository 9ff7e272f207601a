/**
 * `acceptance-ids`: the acceptance criteria are numbered `AC-01`, `AC-02`, …
 * (`AC-` and two or more digits): every top-level list item (outside the
 * Self-check) starts with its own id, and no id is used twice, so later
 * steps can name each criterion. A file with an `## Acceptance criteria`
 * heading (any level, any case) is read only under that heading, so a list
 * under Scope or Tasks is not taken for criteria; a file without one is the
 * criteria file itself and is read whole.
 */
import { headingKey, headingOf, linesOf, withoutComments, type Line } from './markdown.js';
import { SELF_CHECK_HEADING } from './self-check.js';
import type { Finding, Judge } from './types.js';

export const AC_ID = /\bAC-\d{2,}\b/g;
const ITEM = /^([-*+]|\d+[.)])\s+(.*)$/;
const LEADING_ID = /^(?:\*\*|__)?\[?(AC-\d{2,})\b/;

/** The acceptance criteria ids a text names, each once, in order of first mention. */
export function acceptanceIds(text: string): string[] {
  return [...new Set(text.match(AC_ID) ?? [])];
}

const CRITERIA_HEADING = headingKey('Acceptance criteria');

/**
 * The lines the criteria are read from: those under every `Acceptance
 * criteria` heading (up to the next heading of the same or a higher level)
 * when the file has one, else the whole file.
 */
export function criteriaLines(text: string): Line[] {
  const lines = withoutComments(linesOf(text));
  const sectioned = lines.some((line) => headingKey(headingOf(line)?.text ?? '') === CRITERIA_HEADING);
  if (!sectioned) return lines;
  const out: Line[] = [];
  let level: number | undefined;
  for (const line of lines) {
    const h = headingOf(line);
    if (h && level !== undefined && h.level <= level) level = undefined;
    if (h && headingKey(h.text) === CRITERIA_HEADING) level = h.level;
    if (level !== undefined) out.push(line);
  }
  return out;
}

export const acceptanceIdsJudge: Judge = ({ file, text }) => {
  const findings: Finding[] = [];
  const seen = new Map<string, number>();
  let heading: string | undefined;
  let inSelfCheck = false;
  for (const line of criteriaLines(text)) {
    const h = headingOf(line);
    if (h) {
      heading = h.text;
      inSelfCheck = headingKey(h.text) === headingKey(SELF_CHECK_HEADING);
      continue;
    }
    if (line.code || inSelfCheck) continue;
    const item = ITEM.exec(line.text);
    if (!item) continue;
    const at = { check: 'acceptance-ids', file, line: line.number, ...(heading ? { heading } : {}) };
    const id = LEADING_ID.exec(item[2]!.trim())?.[1];
    if (!id) {
      findings.push({ ...at, message: `the criterion "${clip(item[2]!)}" has no id`, write: 'an id first: `- AC-01: <what must hold, testably>`' });
      continue;
    }
    const first = seen.get(id);
    if (first !== undefined) findings.push({ ...at, message: `${id} is used again (first at line ${first})`, write: 'the next unused id' });
    else seen.set(id, line.number);
  }
  if (seen.size === 0 && findings.length === 0)
    findings.push({
      check: 'acceptance-ids',
      file,
      message: 'no acceptance criterion with an id (`AC-01`)',
      write: 'the criteria as a list: `- AC-01: <what must hold>`',
    });
  return findings;
};

const clip = (text: string) => (text.length > 50 ? `${text.slice(0, 47)}…` : text);
