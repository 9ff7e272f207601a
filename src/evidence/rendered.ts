/**
 * The text a reader sees of Markdown, line by line: what the acceptance
 * trace counts ids in. Not seen: HTML comments, link reference definitions
 * (`[x]: AC-01`), the destinations and titles of links and images, HTML tags
 * with their attributes (`<a title="AC-02">`), and an element marked `hidden`
 * on one line. Seen: fenced code and inline code, which a page shows (a test
 * run's output pasted in a fence names the criteria a reader sees). Pure.
 */
import { linesOf, withoutComments, type Line } from './markdown.js';

const REFERENCE_DEFINITION = /^ {0,3}\[[^\]]+\]:\s*\S/;
const LINK = /(!?)\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])/g;
const HIDDEN_ELEMENT = /<([A-Za-z][\w-]*)\b[^>]*\shidden\b[^>]*>.*?<\/\1\s*>/g;
const TAG = /<\/?[A-Za-z][^>]*>/g;

/** Each line as a reader sees it (comments already out: `withoutComments`). */
export function visibleLines(lines: readonly Line[]): Line[] {
  return lines.map((line) => {
    if (line.code) return line;
    if (REFERENCE_DEFINITION.test(line.text)) return { ...line, text: '' };
    const text = line.text.replace(HIDDEN_ELEMENT, '').replace(LINK, '$2').replace(TAG, '');
    return text === line.text ? line : { ...line, text };
  });
}

/** The text a reader sees, with its lines where they were. */
export function renderedText(text: string): string {
  return visibleLines(withoutComments(linesOf(text)))
    .map((l) => l.text)
    .join('\n');
}
