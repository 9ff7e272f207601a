/**
 * `sections`: every heading the output declares is a `## ` heading of the
 * file, with real content under it: not blank, not only sub-headings or a
 * template's comments, at least `SECTION_MIN_WORDS` words.
 */
import { findSection, headingKey, headingOf, linesOf, withoutComments, wordsIn } from './markdown.js';
import type { Finding, Judge } from './types.js';

/** The fewest words a required section holds: "None." is not an answer, "No known users yet." is. */
export const SECTION_MIN_WORDS = 3;

export const sections: Judge = ({ output, file, text }) => {
  const lines = linesOf(text);
  const findings: Finding[] = [];
  for (const name of output.sections) {
    const section = findSection(lines, name);
    if (!section) {
      const elsewhere = lines.map(headingOf).find((h) => h && h.level !== 2 && headingKey(h.text) === headingKey(name));
      findings.push({
        check: 'sections',
        file,
        line: elsewhere?.line,
        heading: name,
        message: elsewhere
          ? `the heading "${name}" is a level-${elsewhere.level} heading (\`${'#'.repeat(elsewhere.level)} ${elsewhere.text}\`)`
          : `the required section "${name}" is missing`,
        write: `a \`## ${name}\` heading with at least ${SECTION_MIN_WORDS} words under it`,
      });
      continue;
    }
    const content = withoutComments(section.lines).filter((l) => !headingOf(l));
    const words = content.reduce((n, l) => n + wordsIn(l.text), 0);
    if (words < SECTION_MIN_WORDS) {
      findings.push({
        check: 'sections',
        file,
        line: section.heading.line,
        heading: section.heading.text,
        message:
          words === 0
            ? `the section "${section.heading.text}" has nothing under it`
            : `the section "${section.heading.text}" holds ${words} word${words === 1 ? '' : 's'}`,
        write: `what the section asks for, at least ${SECTION_MIN_WORDS} words of it`,
      });
    }
  }
  return findings;
};
