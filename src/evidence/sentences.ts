/**
 * The sentences of Markdown prose, each with its line: every list item, and
 * every paragraph split at its full stops. Fenced code, tables, headings and
 * blank lines end a sentence and hold none. For the judges that compare what
 * is said (`filler.ts`, `draft-copy.ts`). Pure.
 */
import { headingOf, type Line } from './markdown.js';

export interface Sentence {
  /** The line the sentence's paragraph or item starts at. */
  line: number;
  text: string;
}

/** A list item's mark (and a quote's), at the start of a line. */
export const LIST_MARK = /^\s*(?:>\s*)*(?:[-*+]|\d{1,9}[.)])\s+/;

export function sentencesOf(lines: readonly Line[]): Sentence[] {
  const out: Sentence[] = [];
  let unit: Sentence | undefined;
  const close = () => {
    if (unit) for (const s of unit.text.split(/(?<=[.!?])\s+(?=\S)/)) if (s.trim()) out.push({ line: unit.line, text: s.trim() });
    unit = undefined;
  };
  for (const line of lines) {
    const t = line.text.trim();
    if (line.code || t === '' || t.startsWith('|') || headingOf(line)) {
      close();
      continue;
    }
    if (LIST_MARK.test(line.text)) close();
    if (unit) unit.text += ` ${t}`;
    else unit = { line: line.number, text: line.text.replace(LIST_MARK, '').trim() };
  }
  close();
  return out;
}
