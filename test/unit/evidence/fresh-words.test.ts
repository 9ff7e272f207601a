/**
 * Freshness on what a reader sees (issue 29, point 10): the failed
 * attempt's file with a space added, in another case, with a comment or a
 * zero-width space is the same file; a journal written before (hashes of the
 * exact text) keeps reading as it did. A new research round that shares
 * most of its sentences with an earlier draft is refused; the bundled
 * example's second draft, a real revision, passes.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { draftCopy } from '../../../src/evidence/draft-copy.js';
import { comparable } from '../../../src/evidence/fold.js';
import { fresh } from '../../../src/evidence/fresh.js';
import { ROOT } from '../../helpers/engine.js';

/** As the edge hashes (io/gather-outputs.ts): 16 hex digits of the sha1, of what a reader sees and of the exact text. */
const hash = (text: string) => createHash('sha1').update(text).digest('hex').slice(0, 16);
const seen = (text: string) => hash(comparable(text));

const EXAMPLE = join(ROOT, '_docs-example', '_docs', '01_solution');
const DRAFT_1 = readFileSync(join(EXAMPLE, 'solution_draft_01.md'), 'utf8');
const DRAFT_2 = readFileSync(join(EXAMPLE, 'solution_draft_02.md'), 'utf8');
const TEMPLATE = readFileSync(join(ROOT, 'skills', 'research', 'templates', 'solution_draft.md'), 'utf8');

describe('what a reader sees of a file', () => {
  const variants = [
    `${DRAFT_1} `,
    DRAFT_1.replace(/\n/g, '\r\n'),
    DRAFT_1.replace(/ /g, '  '),
    DRAFT_1.toUpperCase(),
    `${DRAFT_1}\n<!-- revised -->\n`,
    DRAFT_1.replace('Questions', 'Ques\u200btions'),
    DRAFT_1.replace('Questions', 'Quеstions'),
  ];
  it(`${variants.length} changes a reader cannot see (a space, line ends, case, a comment, a zero-width space, a Cyrillic е) leave it the same; a word does not`, () => {
    expect(variants.map(comparable)).toEqual(Array(variants.length).fill(comparable(DRAFT_1)));
    expect(comparable(DRAFT_1.replace('Questions', 'Question'))).not.toBe(comparable(DRAFT_1));
  });
});

describe('fresh, on the hashes of what a reader sees', () => {
  const step = 'step 2 (Research)';
  it('the failed attempt’s file plus one space: refused as unchanged', () => {
    const baseline = { 'd.md': seen(DRAFT_1) };
    const now = `${DRAFT_1} `;
    expect(fresh({ files: { 'd.md': seen(now) }, exact: { 'd.md': hash(now) }, baseline, attempt: 2, step })).toHaveLength(1);
  });

  it('an older journal’s exact hashes keep reading: the same bytes refused, one space more passes as it did', () => {
    const baseline = { 'd.md': hash(DRAFT_1) };
    expect(fresh({ files: { 'd.md': seen(DRAFT_1) }, exact: { 'd.md': hash(DRAFT_1) }, baseline, step })).toHaveLength(1);
    const now = `${DRAFT_1} `;
    expect(fresh({ files: { 'd.md': seen(now) }, exact: { 'd.md': hash(now) }, baseline, step })).toEqual([]);
  });

  it('a round’s earlier draft re-spaced is not an edit; an older journal’s round hashes read as before', () => {
    const round = { 'd1.md': seen(DRAFT_1) };
    const files = { 'd1.md': seen(`${DRAFT_1}\n\n`), 'd2.md': seen(DRAFT_2) };
    expect(fresh({ files, round, step })).toEqual([]);
    const old = { 'd1.md': hash(DRAFT_1) };
    expect(
      fresh({ files: { 'd1.md': seen(DRAFT_1), 'd2.md': seen(DRAFT_1) }, exact: { 'd1.md': hash(DRAFT_1), 'd2.md': hash(DRAFT_1) }, round: old, step }),
    ).toEqual([expect.objectContaining({ message: "d2.md is a copy of the earlier round's d1.md" })]);
  });

  it('a property: any text with spaces added at its line ends is the same file to fresh', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 20 }), { minLength: 1, maxLength: 10 }), fc.nat(5), (lines, pad) => {
        const text = lines.join('\n');
        const padded = lines.map((l) => l + ' '.repeat(pad)).join('\n');
        expect(fresh({ files: { 'a.md': seen(padded) }, baseline: { 'a.md': seen(text) }, step })).toHaveLength(1);
      }),
      { numRuns: 200 },
    );
  });
});

describe('a new round’s draft that is mostly an earlier one', () => {
  const earlier = [{ file: '01_solution/solution_draft_01.md', text: DRAFT_1 }];

  it('draft 01 under a new title, with one sentence changed: refused, naming the draft it copies and the counts', () => {
    const copy = DRAFT_1.replace('# Solution draft 01', '# Solution draft 02').replace('How does GitHub', 'How exactly does GitHub');
    const found = draftCopy({ file: '01_solution/solution_draft_02.md', text: copy }, earlier, TEMPLATE);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ check: 'fresh', file: '01_solution/solution_draft_02.md', line: 5, heading: 'Questions' });
    expect(found[0]!.message).toMatch(
      /^(\d+) of the (\d+) sentences of 01_solution\/solution_draft_02\.md are an earlier round's \(\d+ of them in 01_solution\/solution_draft_01\.md\)/,
    );
    const [, shared, total] = /^(\d+) of the (\d+)/.exec(found[0]!.message)!.map(Number);
    expect(shared! * 2).toBeGreaterThan(total!);
  });

  it('the example’s draft 02, a real revision that keeps a few sources, passes', () => {
    expect(draftCopy({ file: '01_solution/solution_draft_02.md', text: DRAFT_2 }, earlier, TEMPLATE)).toEqual([]);
  });

  it('a draft with fewer than half its sentences from the earlier one passes; an identical one is left to fresh’s hash', () => {
    const sections = DRAFT_1.split(/^## /m);
    const half = [
      sections[0],
      sections[1],
      ...sections.slice(2).map((s) => s.replace(/^(.*)\n[\s\S]*$/, '$1\n\nNew findings of round two replace this part, each checked again.\n')),
    ];
    expect(draftCopy({ file: 'd2.md', text: half.join('## ') }, earlier)).toEqual([]);
    expect(draftCopy({ file: 'd2.md', text: DRAFT_1 }, earlier)).toEqual([]);
  });
});
