/**
 * The top-level GFM tables of a Markdown file that autopilot did not write
 * (an agent did), read so that no input can hold a command up for long.
 *
 * The Markdown parser's cost grows with lines and table cells, not only with
 * bytes, and some of its constructs are far worse than linear on hostile input
 * (minutes for 250 KB of `*a*a*a…` or of `a\n===` pairs). So: limits far above
 * any real file, checked in one pass before parsing; the constructs a table
 * reader never needs switched off; and the parse itself in a try/catch.
 *
 * Heavy (it loads the Markdown parser): import it only when it is needed.
 */
import type { Root, RootContent, Table } from 'mdast';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import type { Problem } from '../errors.js';
import { TABLE_INPUT_LIMITS } from '../limits.js';
import { GFM_UNREAD, withoutConstructs } from '../flow/unread-constructs.js';

export interface TableInputLimits {
  bytes: number;
  lines: number;
  /** `|` characters: a bound on table cells. */
  pipes: number;
}

/**
 * Syntax a table reader never needs. Without the inline constructs, cells read
 * as the plain text they are written in (`**3**` stays `**3**`); without
 * quotes and lists, only tables at the top level are tables.
 */
const UNUSED_CONSTRUCTS = [
  ...GFM_UNREAD,
  'attention',
  'codeText',
  'htmlText',
  'autolink',
  'labelStartLink',
  'labelStartImage',
  'labelEnd',
  'blockQuote',
  'list',
  'setextUnderline',
  'definition',
];

// Front matter is recognised so that a table-like line inside it is not read as a table.
const processor = unified().use(remarkParse).use(remarkFrontmatter, ['yaml']).use(remarkGfm).use(withoutConstructs, UNUSED_CONSTRUCTS);

export function topLevelTables(markdown: string, file: string, what: string, limits: TableInputLimits = TABLE_INPUT_LIMITS): Table[] | { problem: Problem } {
  const tooLarge = sizeProblem(markdown, limits);
  if (tooLarge)
    return {
      problem: { file, message: `the ${what} is too large to be one (${tooLarge.measured})`, expected: tooLarge.expected, received: tooLarge.received },
    };
  try {
    const tree = processor.parse(markdown) as Root;
    return tree.children.filter((node: RootContent): node is Table => node.type === 'table');
  } catch (error) {
    // Not expected with the limits above, but input the engine did not write is no reason to crash it.
    return {
      problem: {
        file,
        message: `the ${what} could not be read as Markdown`,
        expected: 'a Markdown file with a GFM table',
        received: String(error).slice(0, 120),
      },
    };
  }
}

function sizeProblem(markdown: string, limits: TableInputLimits): { measured: string; expected: string; received: string } | undefined {
  const bytes = Buffer.byteLength(markdown, 'utf8');
  if (bytes > limits.bytes) return { measured: `${Math.ceil(bytes / 1024)} KB`, expected: `at most ${limits.bytes / 1024} KB`, received: `${bytes} bytes` };
  let lines = 1;
  let pipes = 0;
  for (let i = 0; i < markdown.length; i++) {
    const code = markdown.charCodeAt(i);
    // \n, \r\n and a lone \r each end a line for the parser.
    if (code === 13 || (code === 10 && markdown.charCodeAt(i - 1) !== 13)) lines++;
    else if (code === 124) pipes++;
  }
  if (lines > limits.lines) return { measured: `${lines} lines`, expected: `at most ${limits.lines} lines`, received: `${lines} lines` };
  if (pipes > limits.pipes) return { measured: `${pipes} table cell borders`, expected: `at most ${limits.pipes} \`|\` characters`, received: `${pipes}` };
  return undefined;
}
