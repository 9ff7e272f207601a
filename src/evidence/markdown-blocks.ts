/**
 * The block starts of CommonMark that decide where a GFM table can be, each
 * told from one line: indentation (a tab to the next stop of 4), blank lines,
 * ATX headings, thematic breaks, code fences and the seven kinds of HTML
 * block (CommonMark 0.31, 4.6). Pure, linear in the line, no parser: the
 * table reader (`markdown-tables.ts`) walks a file with them. Lists, block
 * quotes, setext underlines and link definitions are not among them: the
 * readers of a task index never read those, and a line holding one is text.
 */

/** The columns of indentation before a line's first character that is not a space or tab, and that character's index. */
export function indentOf(line: string): { columns: number; at: number } {
  let columns = 0;
  let at = 0;
  for (; at < line.length; at++) {
    const c = line[at];
    if (c === ' ') columns++;
    else if (c === '\t') columns += 4 - (columns % 4);
    else break;
  }
  return { columns, at };
}

export const isBlank = (line: string): boolean => /^[ \t]*$/.test(line);

/** An ATX heading's text (its closing `#`s left out), if `rest` (a line after at most 3 columns of indentation) is one. */
export function atxHeading(rest: string): string | undefined {
  const m = /^(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/.exec(rest);
  if (!m) return undefined;
  return (m[2] ?? '')
    .replace(/[ \t]+#+$/, '')
    .replace(/^#+$/, '')
    .trim();
}

/** Three or more of one of `*`, `-`, `_`, with only spaces or tabs between them. */
export const isThematicBreak = (rest: string): boolean => /^(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/.test(rest);

export interface Fence {
  char: string;
  length: number;
}

/** The fence a line opens: three or more backticks (whose info has none) or tildes. */
export function fenceOpening(rest: string): Fence | undefined {
  const m = /^(`{3,}|~{3,})(.*)$/.exec(rest);
  if (!m || (m[1]![0] === '`' && m[2]!.includes('`'))) return undefined;
  return { char: m[1]![0]!, length: m[1]!.length };
}

/** Whether `line` closes `fence`: at most 3 columns in, as many of its character or more, then only spaces or tabs. */
export function closesFence(line: string, fence: Fence): boolean {
  const { columns, at } = indentOf(line);
  if (columns > 3) return false;
  const m = /^(`+|~+)[ \t]*$/.exec(line.slice(at));
  return m !== null && m[1]![0] === fence.char && m[1]!.length >= fence.length;
}

const RAW_NAMES = new Set(['pre', 'script', 'style', 'textarea']);
const BLOCK_NAMES = new Set(
  (
    'address article aside base basefont blockquote body caption center col colgroup dd details dialog dir div dl dt fieldset ' +
    'figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link main menu ' +
    'menuitem nav noframes ol optgroup option p param search section summary table tbody td tfoot th thead title tr track ul'
  ).split(' '),
);
const ATTRIBUTE = String.raw`[ \t]+[A-Za-z_:][\w.:-]*(?:[ \t]*=[ \t]*(?:[^ \t"'=<>\x60]+|'[^']*'|"[^"]*"))?`;
const COMPLETE_TAG = new RegExp(String.raw`^(?:<[A-Za-z][A-Za-z0-9-]*(?:${ATTRIBUTE})*[ \t]*\/?>|<\/[A-Za-z][A-Za-z0-9-]*[ \t]*>)[ \t]*$`);

/**
 * How an HTML block ends: on the line holding `marker` (kinds 1 to 5, the
 * line that opens it included), or at a blank line (kinds 6 and 7).
 */
export type HtmlEnd = { marker: RegExp } | 'blank';

/**
 * The HTML block `rest` opens, and how it ends. A complete tag alone on its
 * line (kind 7) opens one only where no paragraph goes on (`inParagraph`).
 */
export function htmlOpening(rest: string, inParagraph: boolean): HtmlEnd | undefined {
  if (rest[0] !== '<') return undefined;
  const name = /^<\/?([A-Za-z][A-Za-z0-9-]*)/.exec(rest);
  const after = name ? rest[name[0].length] : undefined;
  if (name && !rest.startsWith('</') && RAW_NAMES.has(name[1]!.toLowerCase()) && (after === undefined || /[ \t>]/.test(after)))
    return { marker: /<\/(?:pre|script|style|textarea)>/i };
  if (rest.startsWith('<!--')) return { marker: /-->/ };
  if (rest.startsWith('<?')) return { marker: /\?>/ };
  if (/^<![A-Za-z]/.test(rest)) return { marker: />/ };
  if (rest.startsWith('<![CDATA[')) return { marker: /\]\]>/ };
  if (name && BLOCK_NAMES.has(name[1]!.toLowerCase()) && (after === undefined || /[ \t>]/.test(after) || rest.startsWith('/>', name[0].length))) return 'blank';
  if (!inParagraph && name && COMPLETE_TAG.test(rest)) return 'blank';
  return undefined;
}
