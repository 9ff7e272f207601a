/**
 * A line-based reading of a Markdown file, enough for the judges: its ATX
 * headings (`## Users`) outside fenced code, the sections they open, the
 * lines of each, and the words in a line. One pass over the lines, no parser:
 * the files can be large and `done` is called often (remark is loaded only
 * for a flow file or a boundary's task table).
 */

export interface Line {
  /** 1-based. */
  number: number;
  text: string;
  /** Inside a fenced code block (or its fence). */
  code: boolean;
}

export interface Heading {
  level: number;
  /** The heading's text, trimmed, without closing `#`s. */
  text: string;
  line: number;
}

export interface Section {
  heading: Heading;
  /** The lines under the heading, up to the next heading of the same or a higher level (sub-headings included). */
  lines: Line[];
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/;

/** Every line, marked when it is fenced code. */
export function linesOf(text: string): Line[] {
  const out: Line[] = [];
  let fence: string | undefined;
  const raw = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let i = 0; i < raw.length; i++) {
    const t = raw[i]!;
    const open = FENCE.exec(t);
    if (fence === undefined && open) {
      fence = open[1]!;
      out.push({ number: i + 1, text: t, code: true });
      continue;
    }
    if (fence !== undefined) {
      if (open && open[1]![0] === fence[0] && open[1]!.length >= fence.length && t.trim() === open[1]) fence = undefined;
      out.push({ number: i + 1, text: t, code: true });
      continue;
    }
    out.push({ number: i + 1, text: t, code: false });
  }
  return out;
}

/** The heading a line holds, if it is one (fenced code holds none). */
export function headingOf(line: Line): Heading | undefined {
  if (line.code) return undefined;
  const m = HEADING.exec(line.text);
  if (!m) return undefined;
  const text = (m[2] ?? '')
    .replace(/[ \t]+#+$/, '')
    .replace(/^#+$/, '')
    .trim();
  return { level: m[1]!.length, text, line: line.number };
}

/** Every section opened by a heading of `level`, in order. */
export function sectionsOf(lines: Line[], level = 2): Section[] {
  const out: Section[] = [];
  let current: Section | undefined;
  for (const line of lines) {
    const h = headingOf(line);
    if (h && h.level <= level) {
      current = h.level === level ? { heading: h, lines: [] } : undefined;
      if (current) out.push(current);
      continue;
    }
    current?.lines.push(line);
  }
  return out;
}

/** A heading as compared with a declared one: case, spacing, a trailing colon and emphasis do not count. */
export function headingKey(text: string): string {
  return text.replace(/[*_`]/g, '').replace(/:\s*$/, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** The first section whose heading is `name` (as `headingKey` compares them). */
export function findSection(lines: Line[], name: string, level = 2): Section | undefined {
  const key = headingKey(name);
  return sectionsOf(lines, level).find((s) => headingKey(s.heading.text) === key);
}

/** Text that is no content: HTML comments (a template's guidance). */
export function withoutComments(lines: Line[]): Line[] {
  let open = false;
  return lines.map((line) => {
    let text = line.text;
    let kept = '';
    while (text.length > 0) {
      if (open) {
        const end = text.indexOf('-->');
        if (end < 0) break;
        open = false;
        text = text.slice(end + 3);
      } else {
        const start = text.indexOf('<!--');
        if (start < 0) {
          kept += text;
          break;
        }
        kept += text.slice(0, start);
        open = true;
        text = text.slice(start + 4);
      }
    }
    return kept === line.text ? line : { ...line, text: kept };
  });
}

/** The words of a line: runs of letters or digits (table pipes, list marks and punctuation are not words). */
export function wordsIn(text: string): number {
  return text.match(/[\p{L}\p{N}][\p{L}\p{N}'\u2019_-]*/gu)?.length ?? 0;
}

/**
 * Blocks of consecutive non-blank lines (paragraphs, lists, tables), each
 * with its first line, headings and fenced code left out.
 */
export function blocksOf(lines: Line[]): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let current: { line: number; parts: string[] } | undefined;
  const close = () => {
    if (current) out.push({ line: current.line, text: current.parts.join('\n') });
    current = undefined;
  };
  for (const line of lines) {
    if (line.code || headingOf(line) || line.text.trim() === '') {
      close();
      continue;
    }
    if (!current) current = { line: line.number, parts: [] };
    current.parts.push(line.text.trim());
  }
  close();
  return out;
}

/** A block as compared with a template's: spacing does not count. */
export const blockKey = (text: string): string => text.replace(/\s+/g, ' ').trim();
