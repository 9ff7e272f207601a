/**
 * A template's hints (the text of each `{{ … }}`: "who has the problem")
 * left in a file in any other dress: `{ who has the problem }`,
 * `[Who has the problem]`, `<who has the problem>`, `(( … ))`, `«…»`,
 * full-width brackets, or no brackets at all when the hint is a line or a
 * table cell of its own (a hint of three words or more: "Points" alone is a
 * column's name too). Hints compare folded (`fold.ts`), in one case, spacing
 * and emphasis aside, and without the punctuation at their ends. Pure.
 */
import { fold } from './fold.js';

/** A hint this short, unbracketed, is also an ordinary word ("points", "batch"): only in brackets does it count. */
const BARE_HINT_MIN_WORDS = 3;
const TEMPLATE_HINT = /\{\{\s*([^{}]*?)\s*\}\}/g;
/**
 * Each bracket pair: the innermost span, whose text holds neither of its two
 * (a doubled form, `(( … ))`, holds one). Linear: a run of brackets with no
 * closing one costs one pass.
 */
const PAIRS = ['{}', '[]', '<>', '()', '«»', '‹›', '⟨⟩', '〈〉', '【】', '〔〕', '「」', '『』', '⦃⦄'];
const escape = (c: string) => c.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
const BRACKETED = PAIRS.map(([open, close]) => ({
  open: open!,
  pattern: new RegExp(`${escape(open!)}([^${escape(open!)}${escape(close!)}\\n]+)${escape(close!)}`, 'g'),
}));
const ITEM_START = /^\s*(?:>\s*)*(?:(?:[-*+]|\d{1,9}[.)])\s+)?/;

/** A hint as compared: folded, one case, no emphasis or quotes, one space, no punctuation at its ends. */
export function hintKey(text: string): string {
  return fold(text)
    .toLowerCase()
    .replace(/[*_`"'\u201c\u201d\u2018\u2019]/g, '')
    .replace(/\s+/g, ' ')
    .replace(/^[\s\p{P}]+|[\s\p{P}]+$/gu, '');
}

export interface Hints {
  /** Every hint, as compared: counted in brackets of any kind. */
  all: ReadonlySet<string>;
  /** Those counted with no brackets too: three words or more, and not also the template's own text (a column's name, "Cost and effort"). */
  bare: ReadonlySet<string>;
  /** The longest hint's length: a text far longer holds none whole, and is not compared. */
  longest: number;
  /** The first word of each hint: a text that opens with none of them is not compared. */
  firsts: ReadonlySet<string>;
}

const FIRST_WORD = /[\p{L}\p{N}]+/u;
const firstWord = (text: string) => FIRST_WORD.exec(text.toLowerCase())?.[0] ?? '';

/** The hints of a template: each `{{ … }}`'s text, as compared. */
export function templateHints(template: string): Hints {
  const all = new Set<string>();
  for (const m of template.matchAll(TEMPLATE_HINT)) {
    const key = hintKey(m[1]!);
    if (/\p{L}/u.test(key)) all.add(key);
  }
  const fixed = new Set(
    template
      .replace(TEMPLATE_HINT, '|')
      .split(/[|\n]/)
      .map((part) => hintKey(part.replace(ITEM_START, ''))),
  );
  const bare = new Set([...all].filter((key) => key.split(' ').length >= BARE_HINT_MIN_WORDS && !fixed.has(key)));
  return { all, bare, longest: Math.max(0, ...[...all].map((key) => key.length)), firsts: new Set([...all].map(firstWord)) };
}

/** The first hint a line holds in brackets of any kind, or as all of the line or of a cell; the text as written (folded). */
export function hintIn(text: string, hints: Hints, isTable = false): string | undefined {
  if (hints.all.size === 0) return undefined;
  const folded = fold(text);
  // A hint in other dress is at most its own length again in marks, emphasis and spacing.
  const within = (t: string) => t.length <= 2 * hints.longest + 8 && hints.firsts.has(firstWord(t));
  for (const { open, pattern } of BRACKETED) {
    if (!folded.includes(open)) continue;
    for (const m of folded.matchAll(pattern)) if (within(m[1]!) && hints.all.has(hintKey(m[1]!))) return m[0];
  }
  if (hints.bare.size === 0) return undefined;
  const parts = isTable ? folded.split('|') : [folded.replace(ITEM_START, '')];
  return parts.find((part) => within(part) && hints.bare.has(hintKey(part)))?.trim();
}
