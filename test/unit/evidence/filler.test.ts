/**
 * `filler` (issue 29, point 10): lorem ipsum, a section that only restates
 * its heading, one sentence shape filling three sections or more. Real
 * documents pass: they repeat shapes ("The system shall …") but not with
 * the heading as the only word that changes, and "None …" is an answer.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { filler, stem } from '../../../src/evidence/filler.js';
import type { JudgeInput } from '../../../src/evidence/types.js';
import { ROOT } from '../../helpers/engine.js';

const input = (text: string, template?: string): JudgeInput => ({
  output: { file: 'x.md', sections: [], checks: [] },
  file: 'x.md',
  text,
  skill: 'plan',
  template,
});
const judged = (text: string, template?: string) => filler(input(text, template)).map((f) => [f.line, f.heading, f.message]);
const doc = (sections: [string, string][]) => `# A document\n\n${sections.map(([h, body]) => `## ${h}\n\n${body}\n`).join('\n')}`;
const PROBLEM_HEADINGS = ['Problem', 'Users', 'Scope', 'Restrictions', 'Interfaces'];

describe('filler refused', () => {
  it('"This section describes the users." under each of the 5 headings: 5 sections restate their heading, each at its line', () => {
    const found = judged(doc(PROBLEM_HEADINGS.map((h) => [h, `This section describes the ${h.toLowerCase()}.`])));
    expect(found).toHaveLength(5);
    expect(found[1]).toEqual([9, 'Users', 'the section "Users" only restates its heading: "This section describes the users."']);
    expect(filler(input(doc([['Users', 'The users.']])))[0]!.write).toBe('what "Users" is for this project: names, facts, numbers, decisions');
  });

  it('one sentence shape under 4 headings, with words no heading has ("… of Acme in detail"): 4 sections refused', () => {
    const found = judged(doc(PROBLEM_HEADINGS.slice(0, 4).map((h) => [h, `This part covers the ${h.toLowerCase()} of Acme in detail.`])));
    expect(found.map(([line, heading]) => [line, heading])).toEqual([
      [5, 'Problem'],
      [9, 'Users'],
      [13, 'Scope'],
      [17, 'Restrictions'],
    ]);
    expect(found[0]![2]).toBe(
      'the section "Problem" is one sentence shape that 3 other sections repeat, their headings aside: "This part covers the problem of Acme in detail."',
    );
  });

  it('the shape counts where it is half a section or more: 3 of 3 sections with one real sentence each beside it are still refused', () => {
    const text = doc(
      ['Users', 'Scope', 'Interfaces'].map((h, i) => [h, `- Here we write about our ${h.toLowerCase()} for the Acme team.\n- Item ${i} holds.`]),
    );
    expect(judged(text)).toHaveLength(3);
  });

  it('lorem ipsum in 2 sections, and placeholder Latin without the words "lorem ipsum": 3 refused', () => {
    const text = doc([
      ['Problem', 'Lorem ipsum dolor sit amet, consectetur adipiscing elit.'],
      ['Users', 'Developers who run agents.\n\nSed do eiusmod tempor incididunt ut labore.'],
      ['Scope', 'Duis aute irure dolor in reprehenderit.'],
    ]);
    expect(judged(text).map(([line, heading]) => [line, heading])).toEqual([
      [5, 'Problem'],
      [11, 'Users'],
      [15, 'Scope'],
    ]);
  });
});

describe('honest documents pass', () => {
  it('requirements that repeat "The system shall …" in 4 sections pass', () => {
    const text = doc([
      ['Export', 'The system shall export every report as CSV.\n\nThe system shall name the file after the report.'],
      ['Logging', 'The system shall log every failed login with its address.'],
      ['Security', 'The system shall lock an account after five failed logins.'],
      ['Backups', 'The system shall back up the database every night at two.'],
    ]);
    expect(judged(text)).toEqual([]);
  });

  it('"None in this cycle." under 4 headings passes: a negation is an answer', () => {
    expect(judged(doc(['Behaviour changed', 'Documents updated', 'Tests added', 'Files changed'].map((h) => [h, 'None in this cycle.'])))).toEqual([]);
  });

  it('short honest answers pass: "No users yet.", "None left open.", a section that is a table or code', () => {
    const text = doc([
      ['Users', 'No users yet.'],
      ['Open questions', 'None left open.'],
      ['Result', 'Command: npm test\nExit code: 0\nTotals: 12 passed, 0 failed'],
      ['Stack', '| Part | Choice |\n|---|---|\n| stack | Node 20 |'],
      ['Build and run', '```\nnpm run build\n```'],
    ]);
    expect(judged(text)).toEqual([]);
  });

  it('a sentence the template gives is not the writer’s shape', () => {
    const template = doc(PROBLEM_HEADINGS.slice(0, 3).map((h) => [h, 'See the decision record for the reasons behind it.']));
    expect(judged(template, template)).toEqual([]);
    expect(judged(template)).toHaveLength(3);
  });

  it('every document of the bundled example and the demo passes (7 files)', () => {
    const files = [
      ...[
        '00_problem/problem.md',
        '00_problem/acceptance_criteria.md',
        '01_solution/solution.md',
        '01_solution/solution_draft_01.md',
        '01_solution/solution_draft_02.md',
      ].map((f) => join(ROOT, '_docs-example', '_docs', f)),
      join(ROOT, 'scripts', 'demo', '02_document', 'architecture.md'),
      join(ROOT, 'scripts', 'demo', '02_tasks', '_index.md'),
    ];
    expect(files.map((f) => [f, judged(readFileSync(f, 'utf8'))])).toEqual(files.map((f) => [f, []]));
  });

  const sentences = ['00_problem/problem.md', '01_solution/solution_draft_01.md', '01_solution/solution.md'].flatMap((f) =>
    readFileSync(join(ROOT, '_docs-example', '_docs', f), 'utf8')
      .replace(/^#.*$|^\|.*$|^- \[x\].*$/gm, '')
      .split(/(?<=\.)\s+/)
      .map((s) => s.replace(/\s+/g, ' ').trim())
      .filter((s) => s.split(' ').length >= 5),
  );
  const headings = readdirSync(join(ROOT, 'skills')).flatMap((skill) =>
    [...readFileSync(join(ROOT, 'skills', skill, 'SKILL.md'), 'utf8').matchAll(/^ {4}sections: \[(.*)\]$/gm)].flatMap((m) => m[1]!.split(', ')),
  );

  it(`a property: documents of the example's ${sentences.length} sentences under the skills' ${headings.length} headings, shuffled, hold no filler`, () => {
    fc.assert(
      fc.property(
        fc.shuffledSubarray(sentences, { minLength: 6 }),
        fc.shuffledSubarray([...new Set(headings)], { minLength: 3, maxLength: 6 }),
        (picked, hs) => {
          const sections = hs.map((h, i): [string, string] => [h, picked.filter((_, j) => j % hs.length === i).join(' ')]);
          expect(judged(doc(sections.filter(([, body]) => body !== '')))).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('compares words with headings by their stem: users/user, batches/batch, stories/story', () => {
    expect(['users', 'batches', 'stories', 'class', 'bus'].map(stem)).toEqual(['user', 'batch', 'story', 'class', 'bus']);
  });
});
