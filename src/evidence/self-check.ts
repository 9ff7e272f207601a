/**
 * `self-check`: the file ends its work with the skill's checklist, copied
 * from the template and ticked: a `## Self-check` section whose items are
 * all `- [x]`. An unticked item, an empty checklist, or an item of the
 * template's checklist left out refuses.
 */
import { findSection, linesOf, withoutComments } from './markdown.js';
import type { Finding, Judge } from './types.js';

export const SELF_CHECK_HEADING = 'Self-check';
const ITEM = /^\s*[-*+]\s+\[([ xX])\]\s*(.*)$/;

/** The checklist items of a text's `## Self-check` section; undefined when it has none. */
export function selfCheckItems(text: string): { line: number; checked: boolean; text: string }[] | undefined {
  const section = findSection(linesOf(text), SELF_CHECK_HEADING);
  if (!section) return undefined;
  return withoutComments(section.lines)
    .filter((l) => !l.code)
    .map((l) => ({ line: l.number, m: ITEM.exec(l.text) }))
    .filter((x) => x.m !== null)
    .map(({ line, m }) => ({ line, checked: m![1] !== ' ', text: m![2]!.trim() }));
}

const itemKey = (text: string) => text.replace(/[*_`]/g, '').replace(/\s+/g, ' ').trim().toLowerCase();

export const selfCheck: Judge = ({ file, text, template }) => {
  const items = selfCheckItems(text);
  const base = { check: 'self-check', file, heading: SELF_CHECK_HEADING };
  if (!items)
    return [
      {
        ...base,
        message: 'the file has no `## Self-check` section',
        write: "the skill's Self-check list, copied from its template, each item `- [x]` once it holds",
      },
    ];
  const findings: Finding[] = [];
  if (items.length === 0) findings.push({ ...base, message: 'the Self-check section lists no `- [x]` item', write: "the skill's Self-check items, ticked" });
  for (const item of items.filter((i) => !i.checked))
    findings.push({ ...base, line: item.line, message: `the Self-check item "${item.text}" is not ticked`, write: 'do what it says, then tick it: `- [x]`' });
  const wanted = template === undefined ? undefined : selfCheckItems(template);
  if (wanted) {
    const have = new Set(items.map((i) => itemKey(i.text)));
    for (const item of wanted.filter((w) => !have.has(itemKey(w.text))))
      findings.push({ ...base, message: `the Self-check item "${item.text}" of the template is missing`, write: `\`- [x] ${item.text}\`, once it holds` });
  }
  return findings;
};
