/**
 * `placeholders` against the words issue 29 tried past it (point 10): a
 * placeholder marker in any case or look-alike letters where it stands as a
 * marker, and a template's hint in any other brackets. A to-do app's own
 * words ("the todo list", "Todo items sync", "the Todo model") stay
 * writable. Each finding names the line, the heading and what to write.
 */
import { describe, expect, it } from 'vitest';
import { fold } from '../../../src/evidence/fold.js';
import { hintIn, templateHints } from '../../../src/evidence/hints.js';
import { markerIn } from '../../../src/evidence/markers.js';
import { placeholders } from '../../../src/evidence/placeholders.js';
import type { JudgeInput } from '../../../src/evidence/types.js';
import { filledTemplate } from '../../helpers/templates.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../helpers/engine.js';

const input = (text: string, template?: string): JudgeInput => ({
  output: { file: 'x.md', sections: [], checks: [] },
  file: 'x.md',
  text,
  skill: 'plan',
  template,
});
const found = (text: string, template?: string) => placeholders(input(text, template)).map((f) => [f.line, f.heading, f.message]);

describe('folding look-alike letters', () => {
  it('folds 6 disguises of TODO to TODO: Cyrillic, Greek, full-width, bold mathematical, a zero-width space, small capitals', () => {
    const disguises = ['ТОDO', 'TΟDΟ', 'ＴＯＤＯ', '𝐓𝐎𝐃𝐎', 'TO\u200bDO', 'ᴛᴏᴅᴏ'];
    expect(disguises.map((d) => fold(d).toUpperCase())).toEqual(Array(6).fill('TODO'));
    expect(fold('plain ASCII stays as it is')).toBe('plain ASCII stays as it is');
  });
});

describe('placeholder markers where they stand as markers', () => {
  const markers = [
    ['TODO', 'TODO'],
    ['todo: the users', 'todo'],
    ['Todo : later', 'Todo'],
    ['- todo', 'todo'],
    ['- [ ] Todo.', 'Todo'],
    ['> tbd', 'tbd'],
    ['1. FixMe', 'FixMe'],
    ['**todo**: users', 'todo'],
    ['(todo) who uses it', 'todo'],
    ['[tbd]', 'tbd'],
    ['we ship it, xxx', 'xxx'],
    ['| 01 | todo | 3 |', 'todo'],
    ['ТОDO: Cyrillic', 'TODO'],
    ['ｔｏｄｏ： full-width', 'todo'],
    ['T\u200bODO', 'TODO'],
    ['## todo', 'todo'],
    ['T0D0', 'T0D0'],
  ] as const;

  it(`${markers.length} markers in any case, script or place a marker stands: each found`, () => {
    expect(markers.map(([line]) => markerIn(line, line.startsWith('|')))).toEqual(markers.map(([, marker]) => marker));
  });

  const words = [
    'the todo list app',
    'Todo items sync across devices.',
    'The Todo model holds a title and a due date.',
    '- Todo list screen: every open item, newest first',
    '| Todo list | shows the items | 3 |',
    'A todo is done when its box is ticked.',
    'What to do: run the tests.',
    'mytodo_list and TODOS',
  ];
  it(`${words.length} lines of a to-do app's own words: no marker`, () => {
    expect(words.map((line) => markerIn(line, line.startsWith('|')))).toEqual(Array(words.length).fill(undefined));
  });

  it('names the line, the heading and the disguise', () => {
    expect(found('# Users\n\n## Who\n\nТОDO: write who\n')).toEqual([
      [5, 'Who', 'the placeholder marker `TODO` is left in (written in look-alike or invisible characters)'],
    ]);
    expect(placeholders(input('## A\n\ntodo: users\n'))[0]!.write).toBe('the content itself, in place of the marker');
  });
});

describe("a template's hint in any brackets", () => {
  const template = readFileSync(join(ROOT, 'skills', 'problem', 'templates', 'problem.md'), 'utf8');
  const hints = templateHints(template);
  const hint = 'who has the problem, and how each of them will use the product';

  it('reads the 7 hints of the problem template; those that are also its text are not counted bare', () => {
    expect(hints.all.size).toBe(7);
    expect(hints.all.has(hint)).toBe(true);
    const options = templateHints(readFileSync(join(ROOT, 'skills', 'research', 'templates', 'solution_draft.md'), 'utf8'));
    expect(options.all.has('cost and effort')).toBe(true);
    expect(options.bare.has('cost and effort')).toBe(false);
    expect(hintIn('| Option | Fit to the criteria | Cost and effort | Maturity and licence | Risk |', options, true)).toBeUndefined();
  });

  const forms = [
    `{ ${hint} }`,
    `{${hint}}`,
    `[${hint}]`,
    `<${hint}>`,
    `((${hint}))`,
    `{{{ ${hint} }}}`,
    `«${hint}»`,
    `【${hint}】`,
    `｛${hint}｝`,
    `[Who has the PROBLEM, and how each of them will use the product.]`,
    `- ${hint}`,
    `Users: {${hint}}, to be written`,
  ];
  it(`${forms.length} bracket forms of one hint (and none): each found`, () => {
    expect(forms.map((f) => hintIn(f, hints) !== undefined)).toEqual(Array(forms.length).fill(true));
  });

  it('names every hint of the template turned from {{ }} to { } at its line and heading; the filled template has none', () => {
    const turned = template.replace(/\{\{\s*([^{}]*?)\s*\}\}/g, '{ $1 }');
    const refused = found(turned, template);
    expect(refused.map(([line, heading]) => [line, heading])).toEqual([
      [1, expect.stringMatching(/^Problem: \{ the product/)],
      [5, 'Problem'],
      [9, 'Users'],
      [13, 'Scope'],
      [17, 'Restrictions'],
      [21, 'Interfaces'],
      [25, 'Open questions'],
      [25, 'Open questions'],
    ]);
    expect(refused[1]![2]).toBe("the template's placeholder `{ what is wrong today, for whom, and what they do instead, in the person's words }` is left in");
    expect(found(filledTemplate('problem', 'templates/problem.md'), template)).toEqual([]);
  });

  it('an answer in brackets that is not the hint passes: "(who uses it daily)", "[see AC-02]"', () => {
    expect(found('## Users\n\nDevelopers (who uses it daily), and CI [see AC-02].\n', template)).toEqual([]);
  });
});

describe('hostile files', () => {
  it('4 files of 1 MB (a run of 1,000,000 brackets, brackets of every kind, 20,000 sections, look-alike letters): each judged in under 5 s', async () => {
    const { judgeFile } = await import('../../../src/evidence/index.js');
    const template = readFileSync(join(ROOT, 'skills', 'problem', 'templates', 'problem.md'), 'utf8');
    const files = [
      `## Problem\n\n${'('.repeat(1_000_000)}`,
      `## Problem\n\n${'[a] {b} <c> (d) ((e)) «f» '.repeat(40_000)}`,
      Array.from({ length: 20_000 }, (_, i) => `## H${i}\n\nThis section describes h${i}.\n`).join('\n'),
      `## Problem\n\n${'Ｔｏｄｏ ТОDO lorem '.repeat(50_000)}`,
    ];
    for (const text of files) {
      const started = performance.now();
      judgeFile({
        output: { file: 'x.md', sections: ['Problem'], checks: ['placeholders', 'acceptance-trace'] },
        file: 'x.md',
        text,
        skill: 'plan',
        template,
        acceptance: '- AC-01: a\n',
      });
      expect(performance.now() - started).toBeLessThan(5000);
    }
  });
});
