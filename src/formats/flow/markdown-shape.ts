/**
 * One linear pass over a flow file before remark parses it. It refuses the
 * shapes that would make remark overflow the stack or take seconds (deep
 * nesting, long marker runs, thousands of list items, links, emphasis
 * markers or table cells), which no real flow has, naming the line where the
 * file passes the limit. The limits, and why each, are in `src/limits.ts`.
 */
import type { Problem } from '../../errors.js';
import { MARKDOWN_LIMITS as LIMIT } from '../../limits.js';

const EXPECTED = 'a flow shaped like the built-in ones: short lines, little nesting, a few dozen links, emphasis markers and table cells';

const TAB = 9;
const SPACE = 32;

/** The container prefix of a line (indentation, `>` and list markers): its width in columns, its `>` and its markers. */
function prefixOf(line: string): { columns: number; quotes: number; markers: number } {
  let columns = 0;
  let quotes = 0;
  let markers = 0;
  let i = 0;
  for (;;) {
    let code = line.charCodeAt(i);
    while (code === SPACE || code === TAB) {
      columns += code === TAB ? 4 - (columns % 4) : 1;
      code = line.charCodeAt(++i);
    }
    const length = line[i] === '>' ? 1 : listMarkerLength(line, i);
    if (length === 0) return { columns, quotes, markers };
    if (length === 1 && line[i] === '>') quotes += 1;
    markers += 1;
    columns += length;
    i += length;
  }
}

/** Length of a list marker (`-`, `+`, `*`, `1.`, `1)`) at `i` followed by a space, a tab or the end of the line; 0 if none. */
function listMarkerLength(line: string, i: number): number {
  let end = i;
  const first = line[i];
  if (first === '-' || first === '+' || first === '*') end = i + 1;
  else {
    while (end < line.length && end - i < 10 && isDigit(line.charCodeAt(end))) end += 1;
    if (end === i || (line[end] !== '.' && line[end] !== ')')) return 0;
    end += 1;
  }
  const after = line.charCodeAt(end);
  return end === line.length || after === SPACE || after === TAB ? end - i : 0;
}

const isDigit = (code: number) => code >= 48 && code <= 57;
const isWordChar = (code: number) => isDigit(code) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);

interface Counts {
  containers: number;
  emphasisMarkers: number;
  brackets: number;
  pipes: number;
  inlineMarkup: number;
}

/** Adds a line's markers to the counts; returns its longest run of one emphasis marker. */
function countLine(line: string, counts: Counts): number {
  let longestRun = 0;
  let run = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '*' || c === '_' || c === '~') {
      run = c === line[i - 1] ? run + 1 : 1;
      if (run > longestRun) longestRun = run;
      // `_` inside a word (`00_problem`) can neither open nor close emphasis: it costs remark nothing to match.
      const intraword = c === '_' && isWordChar(line.charCodeAt(i - 1)) && isWordChar(line.charCodeAt(i + 1));
      if (!intraword) counts.emphasisMarkers += 1;
    } else if (c === '[' || c === ']') counts.brackets += 1;
    else if (c === '|') counts.pipes += 1;
    else if (c === '`' || c === '<' || c === '&' || c === '\\' || c === '@') counts.inlineMarkup += 1;
    // Where GFM looks for a bare link: `www.` and `://`.
    else if ((c === 'w' && line.startsWith('ww.', i + 1)) || (c === ':' && line.startsWith('//', i + 1))) counts.inlineMarkup += 1;
  }
  return longestRun;
}

/** The first shape limit the text exceeds, as a problem naming the line; undefined when the text is within them all. */
export function markdownShapeProblem(text: string, file: string): Problem | undefined {
  const problem = (line: number, message: string, received: string): Problem => ({ file, line, message, expected: EXPECTED, received });
  const counts: Counts = { containers: 0, emphasisMarkers: 0, brackets: 0, pipes: 0, inlineMarkup: 0 };
  // Line endings as Markdown counts them: \n, \r\n or a lone \r.
  const ending = /\r\n?|\n/g;
  let line = 0;
  for (let start = 0; start <= text.length;) {
    line += 1;
    if (line > LIMIT.lines) return problem(line, `the flow has more than ${LIMIT.lines} lines`, `${countLines(text)} lines`);
    const found = ending.exec(text);
    const end = found ? found.index : text.length;
    const content = text.slice(start, end);
    start = found ? end + found[0].length : text.length + 1;

    const prefix = prefixOf(content);
    if (prefix.quotes > LIMIT.quoteDepth)
      return problem(line, `block quotes nested ${prefix.quotes} deep (the limit is ${LIMIT.quoteDepth})`, `${prefix.quotes} \`>\` at the start of the line`);
    if (prefix.columns > LIMIT.indentColumns)
      return problem(
        line,
        `the line is indented or nested ${prefix.columns} columns deep (the limit is ${LIMIT.indentColumns})`,
        `${prefix.columns} columns of indentation, \`>\` and list markers`,
      );
    counts.containers += prefix.markers;
    if (counts.containers > LIMIT.containers)
      return problem(line, `the flow has more than ${LIMIT.containers} list items and quote markers`, `${counts.containers} by this line`);
    const longestRun = countLine(content, counts);
    if (longestRun > LIMIT.markerRun)
      return problem(line, `a run of ${longestRun} emphasis markers (the limit is ${LIMIT.markerRun})`, `${longestRun} \`*\`, \`_\` or \`~\` in a row`);
    if (content.length > LIMIT.lineLength) return problem(line, `the line is longer than ${LIMIT.lineLength} characters`, `${content.length} characters`);
    if (counts.emphasisMarkers > LIMIT.emphasisMarkers)
      return problem(line, `the flow has more than ${LIMIT.emphasisMarkers} emphasis markers (\`*\`, \`_\`, \`~\`)`, `${counts.emphasisMarkers} by this line`);
    if (counts.brackets > LIMIT.brackets)
      return problem(line, `the flow has more than ${LIMIT.brackets} brackets (\`[\`, \`]\`: links and images)`, `${counts.brackets} by this line`);
    if (counts.pipes > LIMIT.pipes) return problem(line, `the flow has more than ${LIMIT.pipes} table pipes (\`|\`)`, `${counts.pipes} by this line`);
    if (counts.inlineMarkup > LIMIT.inlineMarkup)
      return problem(
        line,
        `the flow has more than ${LIMIT.inlineMarkup} backticks, \`<\`, \`&\`, \`\\\`, \`@\`, \`www.\` and \`://\` (code spans, HTML, escapes, addresses)`,
        `${counts.inlineMarkup} by this line`,
      );
  }
  return undefined;
}

function countLines(text: string): number {
  return (text.match(/\r\n?|\n/g)?.length ?? 0) + 1;
}
