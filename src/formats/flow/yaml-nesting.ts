/**
 * How deep a front matter's YAML nests: read in one pass, before yaml (which
 * takes seconds on thousands of levels, or overflows its stack) sees it.
 */
import type { Problem } from '../../errors.js';
import { YAML_MAX_NESTING } from '../../limits.js';

/**
 * Collections nested past `YAML_MAX_NESTING`, found in one pass before yaml
 * sees the text: flow collections (`[`, `{`; inside quotes or comments too: a
 * front matter has no use for so many either way), and block ones, told by a
 * line's indentation and the compact `- ` or `? ` indicators that open it
 * (`- - - - x` nests a list in a list on one line).
 */
export function nestingProblem(source: string, file: string, firstLine: number): Problem | undefined {
  let depth = 0;
  let line = firstLine + 1;
  let lineStart = true;
  let block = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 10) {
      line++;
      lineStart = true;
      block = 0;
      continue;
    }
    if (lineStart) {
      // Two columns of indentation, or one indicator with its space, open a level at most.
      if (c === 32) block += 0.5;
      else if ((c === 45 || c === 63) && source.charCodeAt(i + 1) === 32) {
        block += 1;
        i++; // the indicator's own space opens nothing more
      } else lineStart = false;
      if (block > YAML_MAX_NESTING) return tooDeep(file, line, 'a list or a map by its indentation or its `- ` indicators');
    }
    if (c === 91 || c === 123) {
      if (++depth > YAML_MAX_NESTING) return tooDeep(file, line, '`[` or `{`');
    } else if ((c === 93 || c === 125) && depth > 0) depth--;
  }
  return undefined;
}

function tooDeep(file: string, line: number, what: string): Problem {
  return {
    file,
    line,
    message: `the front matter nests ${what} more than ${YAML_MAX_NESTING} deep`,
    expected: 'a front matter that nests a list or a map a few levels at most',
    received: `more than ${YAML_MAX_NESTING} levels by this line`,
  };
}
