/** How deep a front matter's YAML nests its `[` and `{`: read in one pass, before yaml (which takes seconds on thousands of levels) sees it. */
import type { Problem } from '../errors.js';
import { YAML_MAX_NESTING } from '../limits.js';

/**
 * Flow collections nested past `YAML_MAX_NESTING`, found in one pass before
 * yaml sees the text. Brackets inside quotes or comments count too: a flow's
 * front matter has no use for so many either way.
 */
export function nestingProblem(source: string, file: string, firstLine: number): Problem | undefined {
  let depth = 0;
  let line = firstLine + 1;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 10) line++;
    else if (c === 91 || c === 123) {
      if (++depth > YAML_MAX_NESTING)
        return {
          file,
          line,
          message: `the front matter nests \`[\` or \`{\` more than ${YAML_MAX_NESTING} deep`,
          expected: 'a front matter that nests a list or a map a few levels at most',
          received: `more than ${YAML_MAX_NESTING} open brackets by this line`,
        };
    } else if ((c === 93 || c === 125) && depth > 0) depth--;
  }
  return undefined;
}
