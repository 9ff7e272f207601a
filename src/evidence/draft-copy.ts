/**
 * A new round's draft that is an earlier draft under a new title (part of
 * `fresh`, for a round a decision repeats: research). The draft's sentences,
 * list items and table rows are compared with every earlier draft's, each as
 * a reader sees it (`comparable`: case, spacing, look-alike letters aside);
 * when more than half of them are found in the earlier drafts, the draft is
 * refused, naming the earlier draft it shares most with and the first line it
 * copies. Not counted: the Self-check, fenced code, headings, the template's
 * own text and lines under four words ("None left open." recurs honestly).
 * A draft identical to an earlier one is `fresh`'s (by its hash). Pure.
 */
import { comparable, fold } from './fold.js';
import { headingKey, headingOf, linesOf, withoutComments, wordsIn, type Line } from './markdown.js';
import { SELF_CHECK_HEADING } from './self-check.js';
import { sentencesOf } from './sentences.js';
import type { Finding } from './types.js';

/** Words a sentence needs to count: shorter ones recur in honest drafts. */
const UNIT_MIN_WORDS = 4;
/** Sentences a draft needs before it is judged a copy. */
const UNITS_MIN = 3;

export interface Draft {
  /** Relative to the docs folder. */
  file: string;
  text: string;
}

interface Unit {
  line: number;
  heading?: string;
  key: string;
}

/** A unit of a folded text as compared: one case, one space. */
const keyOf = (folded: string) => folded.toLowerCase().replace(/\s+/g, ' ').trim();

/** The sentences, list items and table rows of a draft, each with its line and heading (as written), outside the Self-check. */
function unitsOf(text: string, fixed: ReadonlySet<string>): Unit[] {
  const shown = linesOf(text);
  const units: Unit[] = [];
  let heading: string | undefined;
  let body: Line[] = [];
  const flush = () => {
    const rows = body.filter((l) => !l.code && l.text.trim().startsWith('|') && !/^[\s|:-]+$/.test(l.text)).map((l) => ({ line: l.number, text: l.text }));
    for (const s of [...sentencesOf(body), ...rows]) {
      const key = keyOf(s.text);
      if (heading !== SELF_CHECK_HEADING && wordsIn(s.text) >= UNIT_MIN_WORDS && !fixed.has(key)) units.push({ line: s.line, heading, key });
    }
    body = [];
  };
  for (const line of withoutComments(linesOf(fold(text)))) {
    const h = headingOf(line);
    if (!h) {
      body.push(line);
      continue;
    }
    flush();
    heading = headingKey(h.text) === headingKey(SELF_CHECK_HEADING) ? SELF_CHECK_HEADING : (headingOf(shown[line.number - 1]!)?.text ?? h.text);
  }
  flush();
  return units;
}

/** The template's own lines and sentences, as compared. */
function fixedOf(template: string | undefined): Set<string> {
  if (template === undefined) return new Set();
  const lines = linesOf(fold(template));
  return new Set([...lines.map((l) => keyOf(l.text)), ...sentencesOf(lines).map((s) => keyOf(s.text))]);
}

/** Findings for a new draft that shares most of its sentences with the earlier drafts of its round. */
export function draftCopy(draft: Draft, earlier: readonly Draft[], template?: string): Finding[] {
  const whole = comparable(draft.text);
  if (earlier.length === 0 || earlier.some((e) => comparable(e.text) === whole)) return [];
  const fixed = fixedOf(template);
  const units = unitsOf(draft.text, fixed);
  const theirs = earlier.map((e) => ({ file: e.file, keys: new Set(unitsOf(e.text, fixed).map((u) => u.key)) }));
  const shared = units.filter((u) => theirs.some((t) => t.keys.has(u.key)));
  if (units.length < UNITS_MIN || shared.length * 2 <= units.length) return [];
  const most = theirs.map((t) => ({ file: t.file, count: shared.filter((u) => t.keys.has(u.key)).length })).reduce((a, b) => (b.count > a.count ? b : a));
  const first = shared[0]!;
  return [
    {
      check: 'fresh',
      file: draft.file,
      line: first.line,
      heading: first.heading,
      message: `${shared.length} of the ${units.length} sentences of ${draft.file} are an earlier round's (${most.count} of them in ${most.file}): it is an earlier draft under a new title`,
      write: "this round's own draft: what the new round asked and found, in new sentences; name an earlier draft where it still holds rather than copy it",
    },
  ];
}
