/**
 * The top-level GFM tables of a Markdown file, read line by line as a
 * Markdown renderer shows them (GFM 0.29 tables over CommonMark 0.31 blocks):
 * a header row, then a delimiter row of as many cells (`---`, `:--`, `--:`,
 * `:-:`, with a `|` or a `:` somewhere), then every following line up to a
 * blank line or the start of another block (a heading, a fence, a thematic
 * break, an HTML block, indented code), each a row. Nothing inside front
 * matter, fenced or indented code or an HTML block is a table; a table may
 * follow a paragraph's line with no blank line between. Lists, quotes,
 * setext underlines and link definitions are read as text, as the readers of
 * a task index want (`> | a |` is no table; `- x` after a table is a row).
 *
 * Cells are split at each `|` that no `\` escapes; a row's leading and
 * trailing `|` open and close it. A cell is the text as written, trimmed
 * (`cellText` reads it as a renderer shows it). Pure and linear in the text:
 * no Markdown parser is loaded, so `done` and a boundary's summary read a
 * task index without remark (docs/architecture.md, "Start-up").
 */
import { atxHeading, closesFence, fenceOpening, htmlOpening, indentOf, isBlank, isThematicBreak, type Fence, type HtmlEnd } from './markdown-blocks.js';

export interface TableRow {
  /** 1-based. */
  line: number;
  /** Each cell's text as written, trimmed; as many as the row holds. */
  cells: string[];
  /** Whether the line opens with `|` (after any indentation). */
  piped: boolean;
}

export interface MarkdownTable {
  /** The header row's line (1-based). */
  line: number;
  /** The nearest ATX heading above the table, if any. */
  heading?: string;
  header: string[];
  /** Whether the header row opens with `|` (after any indentation). */
  piped: boolean;
  rows: TableRow[];
}

/** A line's cells: split at unescaped `|`; an opening and a closing `|` bound the row (a row of one `|` is one empty cell). */
export function splitCells(line: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '\\' && (line[i + 1] === '\\' || line[i + 1] === '|')) i++;
    else if (line[i] === '|') {
      parts.push(line.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(line.slice(start));
  if (parts.length > 1 && isBlank(parts[0]!)) parts.shift();
  if (parts.length > 1 && isBlank(parts.at(-1)!)) parts.pop();
  return parts.map((p) => p.trim());
}

const isPiped = (line: string): boolean => line.trimStart().startsWith('|');

/** The delimiter row under a header of `size` cells: each cell `:?-+:?`, as many as the header's, a `|` or a `:` in it. */
function isDelimiterRow(line: string, size: number): boolean {
  const { columns, at } = indentOf(line);
  const rest = line.slice(at);
  if (columns > 3 || !/[|:]/.test(rest)) return false;
  const cells = splitCells(rest);
  return cells.length === size && cells.every((c) => /^:?-+:?$/.test(c));
}

/** The lines of a file's text (`\n`, `\r\n` and a lone `\r` each end one), and where its front matter ends (0: none). */
function linesAndFrontMatter(text: string): { lines: string[]; body: number } {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  if (!/^---[ \t]*$/.test(lines[0] ?? '')) return { lines, body: 0 };
  const close = lines.findIndex((l, i) => i > 0 && /^---[ \t]*$/.test(l));
  return { lines, body: close < 0 ? 0 : close + 1 };
}

/** Where the walk is: in a fence or an HTML block until it ends, in a paragraph, in a table, or between blocks. */
interface Walk {
  fence?: Fence;
  html?: HtmlEnd;
  paragraph: boolean;
  table?: MarkdownTable;
  heading?: string;
}

/** Whether the line is held by a block already open (a fence, an HTML block), closing the block when it ends there. */
function inOpenBlock(walk: Walk, line: string): boolean {
  if (walk.fence) {
    if (closesFence(line, walk.fence)) walk.fence = undefined;
    return true;
  }
  if (walk.html) {
    if (walk.html === 'blank' ? isBlank(line) : walk.html.marker.test(line)) walk.html = undefined;
    return true;
  }
  return false;
}

/** Whether `rest` (a line after at most 3 columns of indentation) starts a block other than a table or a paragraph: a heading (recorded), a fence or an HTML block (opened), a thematic break. */
function startsBlock(walk: Walk, rest: string): boolean {
  const heading = atxHeading(rest);
  if (heading !== undefined) walk.heading = heading;
  walk.fence = fenceOpening(rest);
  const html = htmlOpening(rest, walk.paragraph);
  // A block of kinds 1 to 5 may end on the line that opens it.
  walk.html = html === 'blank' || (html && !html.marker.test(rest)) ? html : undefined;
  return heading !== undefined || walk.fence !== undefined || html !== undefined || isThematicBreak(rest);
}

/** The table whose header is `line`, when the line under it is its delimiter row. */
function tableAt(walk: Walk, line: string, next: string | undefined, number: number): MarkdownTable | undefined {
  if (line.trim() === '|' || next === undefined) return undefined;
  const header = splitCells(line.trim());
  if (!isDelimiterRow(next, header.length)) return undefined;
  return { line: number, heading: walk.heading, header, piped: isPiped(line), rows: [] };
}

/** Every top-level table of the file, in order. */
export function markdownTables(text: string): MarkdownTable[] {
  const { lines, body } = linesAndFrontMatter(text);
  const tables: MarkdownTable[] = [];
  const walk: Walk = { paragraph: false };
  for (let i = body; i < lines.length; i++) {
    const line = lines[i]!;
    if (inOpenBlock(walk, line)) continue;
    const { columns, at } = indentOf(line);
    if (isBlank(line) || (columns >= 4 && !walk.paragraph) || (columns < 4 && startsBlock(walk, line.slice(at)))) {
      // A blank line, indented code, or another block: the table and the paragraph end.
      walk.table = undefined;
      walk.paragraph = false;
    } else if (columns >= 4) {
      // A paragraph goes on.
    } else if (walk.table) {
      walk.table.rows.push({ line: i + 1, cells: splitCells(line), piped: isPiped(line) });
    } else {
      const table = tableAt(walk, line, lines[i + 1], i + 1);
      // A table ends the paragraph above it; the line then opens a block as any first line does (a lone tag: HTML).
      walk.html = table && walk.paragraph ? htmlOpening(line.slice(at), false) : undefined;
      walk.table = walk.html ? undefined : table;
      if (walk.table) tables.push(walk.table);
      if (walk.table) i++;
      walk.paragraph = table === undefined;
    }
  }
  return tables;
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/**
 * A cell as a renderer shows its text when no inline syntax is read: a `\`
 * before punctuation and the character references (`&amp;`, `&#51;`) resolved,
 * runs of spaces one. Emphasis, links and code marks stay as written.
 */
export function cellText(cell: string): string {
  return cell
    .replace(/\\([!-/:-@[-`{-~])|&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z]+);/g, (all, escaped: string | undefined, ref: string | undefined) => {
      if (escaped !== undefined) return escaped;
      if (ref![0] !== '#') return NAMED[ref!] ?? all;
      const code = ref![1] === 'x' || ref![1] === 'X' ? parseInt(ref!.slice(2), 16) : parseInt(ref!.slice(1), 10);
      return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? '\uFFFD' : String.fromCodePoint(code);
    })
    .replace(/\s+/g, ' ')
    .trim();
}
