/**
 * `placeholders`: nothing left to fill in. No placeholder marker (`TODO`,
 * `TBD`, `FIXME`, `XXX` where they stand as markers, in any case or
 * look-alike letters: `markers.ts`), no template braces (`{{ … }}`) or
 * `<… placeholder …>`, no hint of the template in other brackets or on a line
 * of its own (`hints.ts`), no paragraph copied unchanged from the template,
 * and no more `[NEEDS CLARIFICATION]` markers than the output allows (by
 * default 3 in the Problem step's files, where open questions are the work,
 * and none in any other step's). Fenced code and inline code spans are not
 * read: a report may quote code that holds a `TODO`.
 */
import { templateHints, hintIn, type Hints } from './hints.js';
import { blockKey, blocksOf, headingOf, linesOf, withoutComments, wordsIn, type Line } from './markdown.js';
import { disguised, markerIn } from './markers.js';
import type { Finding, Judge, JudgeInput } from './types.js';

const BRACES = /\{\{[^{}\n]*\}\}/;
const ANGLE = /<[^<>\n]*placeholder[^<>\n]*>/i;
const CLARIFICATION = /\[NEEDS CLARIFICATION\b[^\]\n]*\]/gi;
/** The markers a Problem-step file may keep. */
export const PROBLEM_MAX_CLARIFICATIONS = 3;
/** A template's paragraph shorter than this may recur by chance ("None."): only a longer one copied unchanged counts. */
const COPIED_MIN_WORDS = 4;

/** The cap on `[NEEDS CLARIFICATION]` for an output: declared, else 3 for the `problem` skill, else 0. */
export function clarificationCap(input: Pick<JudgeInput, 'output' | 'skill'>): number {
  return input.output.maxClarifications ?? (input.skill === 'problem' ? PROBLEM_MAX_CLARIFICATIONS : 0);
}

const withoutInlineCode = (text: string) => text.replace(/`[^`\n]*`/g, (m) => ' '.repeat(m.length));

const NO_HINTS: Hints = { all: new Set(), bare: new Set(), longest: 0, firsts: new Set() };

/** What is left to fill in on one line of prose (not fenced code): a marker, a template's placeholder or hint. */
function leftToFill(file: string, line: Line, heading: string | undefined, hints: Hints): Finding[] {
  const t = withoutInlineCode(line.text);
  const at = { check: 'placeholders', file, line: line.number, heading };
  const table = t.trim().startsWith('|');
  const findings: Finding[] = [];
  const marker = markerIn(t, table);
  if (marker)
    findings.push({
      ...at,
      message: `the placeholder marker \`${marker}\` is left in${disguised(t, marker) ? ' (written in look-alike or invisible characters)' : ''}`,
      write: 'the content itself, in place of the marker',
    });
  const braces = BRACES.exec(t)?.[0] ?? ANGLE.exec(t)?.[0] ?? hintIn(t, hints, table);
  if (braces) findings.push({ ...at, message: `the template's placeholder \`${braces}\` is left in`, write: 'what the placeholder asks for, in its place' });
  return findings;
}

export const placeholders: Judge = (input) => {
  const { file, text, template } = input;
  const lines = withoutComments(linesOf(text));
  const hints = template === undefined ? NO_HINTS : templateHints(template);
  const findings: Finding[] = [];
  let heading: string | undefined;
  const clarifications: { line: number; heading?: string }[] = [];
  for (const line of lines) {
    const h = headingOf(line);
    if (h) heading = h.text;
    if (line.code) continue;
    findings.push(...leftToFill(file, line, heading, hints));
    for (const _ of withoutInlineCode(line.text).matchAll(CLARIFICATION)) clarifications.push({ line: line.number, heading });
  }
  const cap = clarificationCap(input);
  if (clarifications.length > cap) {
    findings.push({
      check: 'placeholders',
      file,
      ...clarifications[cap]!,
      message: `${clarifications.length} \`[NEEDS CLARIFICATION]\` markers (lines ${clarifications.map((c) => c.line).join(', ')}); ${cap === 0 ? 'this step allows none' : `at most ${cap} are allowed`}`,
      write: cap === 0 ? 'the answers (ask the person, or settle them in an earlier step)' : `answers for all but ${cap}: ask the person`,
    });
  }
  if (template !== undefined) findings.push(...copied(file, lines, template));
  return findings;
};

/** Paragraphs, lists and tables of the template, unchanged in the file (those with braces are caught above). */
function copied(file: string, lines: ReturnType<typeof linesOf>, template: string): Finding[] {
  const fixed = new Set(
    blocksOf(withoutComments(linesOf(template)))
      .filter((b) => !BRACES.test(b.text) && wordsIn(b.text) >= COPIED_MIN_WORDS && !/^\s*[-*] \[[ xX]\]/m.test(b.text))
      .map((b) => blockKey(b.text)),
  );
  if (fixed.size === 0) return [];
  const findings: Finding[] = [];
  let heading: string | undefined;
  const headingAt = new Map<number, string>();
  for (const line of lines) {
    const h = headingOf(line);
    if (h) heading = h.text;
    if (heading) headingAt.set(line.number, heading);
  }
  for (const block of blocksOf(lines)) {
    if (!fixed.has(blockKey(block.text))) continue;
    const h = headingAt.get(block.line);
    findings.push({
      check: 'placeholders',
      file,
      line: block.line,
      ...(h ? { heading: h } : {}),
      message: `this text is the template's, unchanged: "${clip(block.text)}"`,
      write: "this project's own content in its place",
    });
  }
  return findings;
}

const clip = (text: string) => {
  const one = text.replace(/\s+/g, ' ');
  return one.length > 60 ? `${one.slice(0, 57)}…` : one;
};
