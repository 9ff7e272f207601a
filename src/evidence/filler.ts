/**
 * `filler`: words that fill a section and say nothing. Refused:
 * - lorem ipsum, anywhere outside code;
 * - a section that only restates its heading: once the words any section
 *   could hold are set aside ("this section describes the …"), nothing is
 *   left that its heading does not already say ("## Users" → "This section
 *   describes the users.");
 * - one sentence shape filling three sections or more: sentences that read
 *   the same once each section's heading words are a blank and the small
 *   words (the, our, this) are set aside ("This section describes the
 *   users." under Users, "… the scope." under Scope), where they are at least
 *   half of what each of those sections holds.
 * Real documents repeat shapes too ("The system shall …"), but not with the
 * heading as the only word that changes, as the bulk of three sections. A
 * sentence that opens with a negation ("None in this cycle.") is an answer,
 * not filler: it is never counted as a shape. The Self-check, fenced code,
 * tables and the template's own sentences are not read for shapes. Pure.
 */
import { fold } from './fold.js';
import { headingKey, headingOf, linesOf, withoutComments, wordsIn, type Line } from './markdown.js';
import { SELF_CHECK_HEADING } from './self-check.js';
import { LIST_MARK, sentencesOf } from './sentences.js';
import type { Finding, Judge } from './types.js';

/** Sections one shape must fill before it is filler. */
export const FILLER_SHAPE_MIN_SECTIONS = 3;
const LOREM = /\b(lorem ipsum|ipsum dolor|dolor sit amet|consectetur adipiscing)\b/;
/** Any word of lorem ipsum at all: most lines hold none, and are done with in one test. */
const ANY_LOREM =
  /lorem|ipsum|dolor|amet|consectetur|adipi|eiusmod|tempor|incididunt|labor|aliqu|veniam|nostrud|exercitation|ullamco|nisi|commodo|consequat|duis|aute|irure|reprehenderit|voluptate|velit|esse|cillum|fugiat|nulla|pariatur|excepteur|occaecat|cupidatat|proident|culpa|officia|deserunt|mollit|anim/;
const LOREM_WORDS = new Set(
  'lorem ipsum dolor amet consectetur adipiscing adipisicing eiusmod tempor incididunt labore dolore aliqua veniam nostrud exercitation ullamco laboris nisi aliquip commodo consequat duis aute irure reprehenderit voluptate velit esse cillum fugiat nulla pariatur excepteur occaecat cupidatat proident culpa officia deserunt mollit anim laborum'.split(
    ' ',
  ),
);
/** Words any section could hold about anything: the frame of a sentence that restates its heading. */
const FRAME_WORDS = new Set(
  'a an the this that these those here there it its our their we you they my your of for in on at to by with from about as and or is are was were be been being will shall would should can could may must do does goes go section sections part chapter heading document page file below above following follows describe describes described description list lists listed contain contains cover covers explain explains outline outlines detail details detailed information info content contents text provide provides give gives present presents show shows summarize summarizes summarise summarises summary overview project product system all some every each various etc what which who how where when why written write writes'.split(
    ' ',
  ),
);
/** The small words a shape sets aside. */
const SMALL_WORDS = new Set('a an the this that these those our their its my your his her'.split(' '));
const NEGATION = new Set(['no', 'none', 'nothing', 'not', 'n', 'never', 'nobody', 'neither']);

/** The words of a text already folded, in one case. */
const tokens = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** A word as compared with a heading's: its plural ending aside (users, batches, stories). */
export function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && /(ss|sh|ch|x|z)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

interface Part {
  /** As written. */
  heading: string;
  /** The heading's words, folded, each by its stem. */
  stems: ReadonlySet<string>;
  line: number;
  /** Folded (`fold.ts`), comments out: what the words are read from. */
  lines: Line[];
}

/**
 * The text under each heading of level 2 or deeper, up to the next heading of
 * any level; the Self-check left out. `shown` and `folded` are the file's
 * lines as written and folded: folding keeps every line where it was.
 */
function partsOf(shown: Line[], folded: Line[]): Part[] {
  const parts: Part[] = [];
  let current: Part | undefined;
  for (const line of folded) {
    const h = headingOf(line);
    if (h) {
      const heading = headingOf(shown[line.number - 1]!)?.text ?? h.text;
      const kept = h.level >= 2 && headingKey(h.text) !== headingKey(SELF_CHECK_HEADING);
      current = kept ? { heading, stems: new Set(tokens(h.text).map(stem)), line: h.line, lines: [] } : undefined;
      if (current) parts.push(current);
    } else current?.lines.push(line);
  }
  return parts;
}

const wordsOfPart = (part: Part) => part.lines.reduce((n, l) => n + wordsIn(l.text), 0);

export const filler: Judge = ({ file, text, template }) => {
  const shown = linesOf(text);
  const parts = partsOf(shown, withoutComments(linesOf(fold(text))));
  /** A line as written, for a message. */
  const quote = (line: number) => clip((shown[line - 1]?.text ?? '').replace(LIST_MARK, ''));
  const findings: Finding[] = [];
  const lorem = new Set<string>();
  for (const part of parts) {
    const at = part.lines.find((l) => !l.code && isLorem(l.text));
    if (!at) continue;
    lorem.add(part.heading);
    findings.push({
      check: 'filler',
      file,
      line: at.number,
      heading: part.heading,
      message: `the section "${part.heading}" holds lorem ipsum, placeholder Latin`,
      write: 'what the section asks for, about this project',
    });
  }
  const restated = new Set<Part>();
  for (const part of parts) {
    const found = restates(part);
    if (!found || lorem.has(part.heading)) continue;
    restated.add(part);
    findings.push({
      check: 'filler',
      file,
      line: found,
      heading: part.heading,
      message: `the section "${part.heading}" only restates its heading: "${quote(found)}"`,
      write: `what "${part.heading}" is for this project: names, facts, numbers, decisions`,
    });
  }
  findings.push(...repeatedShapes(file, parts, template === undefined ? undefined : fold(template), restated, quote));
  return findings;
};

/** Lorem ipsum in a folded line: its words, or three of its distinct words. */
function isLorem(text: string): boolean {
  const lower = text.toLowerCase();
  if (!ANY_LOREM.test(lower)) return false;
  return LOREM.test(lower) || new Set(tokens(lower).filter((w) => LOREM_WORDS.has(w))).size >= 3;
}

/** The part's first line, when all its words are its heading's or words any section could hold; undefined when it says more. */
function restates(part: Part): number | undefined {
  let first: number | undefined;
  for (const line of part.lines) {
    const words = tokens(line.text.replace(LIST_MARK, ''));
    if (!words.every((w) => FRAME_WORDS.has(w) || part.stems.has(stem(w)))) return undefined;
    if (words.length > 0) first ??= line.number;
  }
  return first;
}

/** The shape of a sentence under a heading: its words with the heading's as one blank, small words aside; undefined for a negation or too few words. */
function shapeOf(words: readonly string[], heading: ReadonlySet<string>): string | undefined {
  if (words.length === 0 || NEGATION.has(words[0]!)) return undefined;
  const shape: string[] = [];
  for (const w of words) {
    if (SMALL_WORDS.has(w)) continue;
    const token = heading.has(stem(w)) ? '_' : /^\d+$/.test(w) ? '#' : w;
    if (!(token === '_' && shape.at(-1) === '_')) shape.push(token);
  }
  return shape.filter((t) => t !== '_' && t !== '#').length >= 2 ? shape.join(' ') : undefined;
}

/** The sections filled, each for half its words or more, by one sentence shape that fills at least three. */
function repeatedShapes(file: string, parts: Part[], template: string | undefined, skip: ReadonlySet<Part>, quote: (line: number) => string): Finding[] {
  const fixed = new Set(template === undefined ? [] : tokensOfLines(template));
  const filled = new Map<string, { part: Part; line: number }[]>();
  for (const part of parts) {
    const byShape = new Map<string, { words: number; line: number }>();
    for (const s of sentencesOf(part.lines)) {
      const words = tokens(s.text);
      const shape = fixed.has(words.join(' ')) ? undefined : shapeOf(words, part.stems);
      if (!shape) continue;
      const seen = byShape.get(shape) ?? { words: 0, line: s.line };
      byShape.set(shape, { line: seen.line, words: seen.words + wordsIn(s.text) });
    }
    const total = wordsOfPart(part);
    for (const [shape, { words, line }] of byShape)
      if (words * 2 >= total)
        filled
          .set(shape, filled.get(shape) ?? [])
          .get(shape)!
          .push({ part, line });
  }
  const findings: Finding[] = [];
  for (const places of filled.values()) {
    if (places.length < FILLER_SHAPE_MIN_SECTIONS) continue;
    for (const { part, line } of places.filter((p) => !skip.has(p.part)))
      findings.push({
        check: 'filler',
        file,
        line,
        heading: part.heading,
        message: `the section "${part.heading}" is one sentence shape that ${places.length - 1} other sections repeat, their headings aside: "${quote(line)}"`,
        write: `what "${part.heading}" is for this project, in its own sentences: names, facts, numbers, decisions`,
      });
  }
  return findings;
}

/** Each line and sentence of a template, as words: a sentence the template gives is not the writer's shape. */
function tokensOfLines(template: string): string[] {
  return template.split(/\n|(?<=[.!?])\s+/).map((l) => tokens(l.replace(LIST_MARK, '')).join(' '));
}

const clip = (text: string) => {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > 60 ? `${one.slice(0, 57)}…` : one;
};
