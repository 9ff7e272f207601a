/**
 * The acceptance trace counts what a reader sees (issue 29, point 8): ids in
 * an HTML comment, a link's address, a reference definition or a tag's
 * attribute name nothing; ids in fenced or inline code do (a page shows
 * them). An id the criteria do not hold (`AC-99`) is refused at its line
 * and heading. `status` and `report` count the same way.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acCoverage } from '../../../src/evidence/ac-coverage.js';
import { acceptanceTrace, criteriaIds } from '../../../src/evidence/acceptance-trace.js';
import { renderedText } from '../../../src/evidence/rendered.js';
import type { JudgeInput } from '../../../src/evidence/types.js';
import { ROOT } from '../../helpers/engine.js';

const CRITERIA = '# Acceptance criteria\n\n## Acceptance criteria\n\n- **AC-01**: one\n- **AC-02**: two\n- **AC-03**: three\n';
const trace = (text: string, acceptance = CRITERIA) =>
  acceptanceTrace({ output: { file: 'r.md', sections: [], checks: [] }, file: 'r.md', text, skill: 'test-run', acceptance } as JudgeInput);

describe('the trace in rendered text', () => {
  const hidden = [
    ['an HTML comment', '<!-- AC-02 AC-03 -->'],
    ['a comment over 3 lines', '<!--\nAC-02\nAC-03\n-->'],
    ['a link address', '[the tests](tests.md#AC-02-AC-03)'],
    ['a reference definition', '[t]: https://example.com/AC-02/AC-03'],
    ['a tag attribute', '<span title="AC-02 AC-03">covered</span>'],
    ['a hidden element', '<span hidden>AC-02 AC-03</span>'],
  ];
  it.each(hidden)('ids in %s name nothing: 2 of 3 criteria not named', (_, where) => {
    const found = trace(`# Report\n\n## Coverage\n\nAC-01 is covered.\n\n${where}\n`);
    expect(found).toEqual([expect.objectContaining({ message: '2 of 3 acceptance criteria are not named: AC-02, AC-03', line: 3, heading: 'Coverage' })]);
  });

  it('ids in inline code, a fence and a link’s text are seen: all 3 named', () => {
    expect(trace('## Coverage\n\n`AC-01` holds.\n\n```\n✓ AC-02 exports CSV\n```\n\n[AC-03](tests.md)\n')).toEqual([]);
  });

  it('an invented AC-99 and AC-04 are refused, each at the line and heading a reader sees it', () => {
    const found = trace('# Report\n\n## Coverage\n\n- AC-01, AC-02, AC-03\n\n## Extra\n\n- AC-99: also done\n- AC-04 too\n<!-- AC-77 -->\n');
    expect(found.map((f) => [f.line, f.heading, f.message])).toEqual([
      [9, 'Extra', 'AC-99 is not an acceptance criterion: 00_problem/acceptance_criteria.md holds AC-01, AC-02, AC-03'],
      [10, 'Extra', 'AC-04 is not an acceptance criterion: 00_problem/acceptance_criteria.md holds AC-01, AC-02, AC-03'],
    ]);
    expect(found[0]!.write).toMatch(/only the ids of 00_problem\/acceptance_criteria\.md/);
  });

  it('a criterion in a comment of the criteria file is no criterion', () => {
    expect(criteriaIds(`${CRITERIA}<!-- - **AC-04**: four -->\n`)).toEqual(['AC-01', 'AC-02', 'AC-03']);
    expect(trace('AC-01 AC-02 AC-03', `${CRITERIA}<!-- - **AC-04**: four -->\n`)).toEqual([]);
  });

  it('status and report count as the trace does: ids in a comment are not covered', () => {
    const files = { criteria: 'c.md', tasks: 't.md', tests: 'r.md' };
    const c = acCoverage({ files, criteria: CRITERIA, tasks: 'AC-01 <!-- AC-02 -->', tests: 'AC-01 AC-02 AC-03' })!;
    expect(c.covered!.missing).toEqual(['AC-02', 'AC-03']);
    expect(c.tested!.missing).toEqual([]);
  });

  it('the example’s 7 criteria and the demo’s index: every id seen, none invented', () => {
    const criteria = readFileSync(join(ROOT, '_docs-example', '_docs', '00_problem', 'acceptance_criteria.md'), 'utf8');
    expect(criteriaIds(criteria)).toHaveLength(7);
    expect(trace(readFileSync(join(ROOT, 'scripts', 'demo', '02_tasks', '_index.md'), 'utf8'), criteria)).toEqual([]);
    expect(renderedText('a <!-- b -->\n[c](d)\n<e f="g">h</e>')).toBe('a \nc\nh');
  });
});
