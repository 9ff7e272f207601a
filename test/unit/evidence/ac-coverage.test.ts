/** How far the acceptance criteria are traced, for `status` and `report`: pure texts in, the ids covered by tasks and tested out. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acceptanceFiles, acCoverage, acCoverageLine } from '../../../src/evidence/ac-coverage.js';

const GREENFIELD = acceptanceFiles(undefined);
const CRITERIA = '# Acceptance criteria\n\n- **AC-01**: a\n- **AC-02**: b\n- **AC-07**: c\n';

describe('acceptance criteria coverage', () => {
  it('2 of 3 covered by the task index, 1 of 3 tested: the uncovered and untested ids named', () => {
    const c = acCoverage({ files: GREENFIELD, criteria: CRITERIA, tasks: '| T1 | AC-01 |\n| T2 | AC-07, AC-01 |', tests: 'AC-07 passes' })!;
    expect(c.ids).toEqual(['AC-01', 'AC-02', 'AC-07']);
    expect(c.covered).toEqual({ file: '02_tasks/_index.md', named: ['AC-01', 'AC-07'], missing: ['AC-02'] });
    expect(c.tested).toEqual({ file: '03_implementation/test_report.md', named: ['AC-07'], missing: ['AC-01', 'AC-02'] });
    expect(acCoverageLine(c)).toBe('2 of 3 covered, 1 of 3 tested; uncovered AC-02; untested AC-01, AC-02');
  });

  it('says which file is not there yet, and nothing when the criteria name no id', () => {
    expect(acCoverageLine(acCoverage({ files: GREENFIELD, criteria: CRITERIA })!)).toBe('3 criteria, no task index yet, no test report yet');
    expect(acCoverage({ files: GREENFIELD, criteria: '# Acceptance criteria\n\nTBD\n' })).toBeUndefined();
  });

  it("a cycle's index: its criteria section holds the ids, the rest of it (the task table) covers them; 5 ids shown as 3 and +2 more", () => {
    const index = [
      '## Scope',
      '- export, not AC-09 which is a typo',
      '## Acceptance criteria',
      ...[1, 2, 3, 4, 5, 6].map((n) => `- AC-0${n}: holds`),
      '## Tasks',
      '| T1 | AC-01 |',
    ].join('\n');
    const c = acCoverage({ files: acceptanceFiles(2), criteria: index })!;
    expect(c.file).toBe('02_tasks/cycle-2/_index.md');
    expect(c.ids).toHaveLength(6);
    expect(c.covered?.named).toEqual(['AC-01']);
    expect(acCoverageLine(c)).toBe('1 of 6 covered, no test report yet; uncovered AC-02, AC-03, AC-04 +2 more');
  });

  it('property: every id is either named or missing, once, in the criteria order', () => {
    const id = fc.integer({ min: 1, max: 40 }).map((n) => `AC-${String(n).padStart(2, '0')}`);
    fc.assert(
      fc.property(fc.uniqueArray(id, { minLength: 1 }), fc.array(id), (ids, named) => {
        const c = acCoverage({ files: GREENFIELD, criteria: ids.map((i) => `- ${i}: x`).join('\n'), tasks: named.join(' '), tests: '' })!;
        expect(c.ids).toEqual(ids);
        expect([...c.covered!.named, ...c.covered!.missing].sort()).toEqual([...ids].sort());
        expect(c.covered!.named).toEqual(ids.filter((i) => named.includes(i)));
        expect(c.tested!.missing).toEqual(ids);
      }),
    );
  });
});
