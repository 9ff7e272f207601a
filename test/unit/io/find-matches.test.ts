import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { findMatches, matcherForTest } from '../../../src/io/find-matches.js';

const base = mkdtempSync(join(tmpdir(), 'autopilot-find-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const put = (rel: string, text = 'content') => {
  mkdirSync(dirname(join(base, rel)), { recursive: true });
  writeFileSync(join(base, rel), text);
};

put('01_solution/solution_draft_01.md');
put('01_solution/solution_draft_02.md');
put('01_solution/notes.md');
put('02_tasks/cycle-1/_index.md');
put('02_tasks/cycle-2/_index.md', '');
put('_docs/readme.md');
mkdirSync(join(base, '02_document/empty'), { recursive: true });

describe('findMatches', () => {
  it('matches a glob segment by name only, in a stable order', () => {
    expect(findMatches(base, '01_solution/solution_draft_*.md')).toEqual(['01_solution/solution_draft_01.md', '01_solution/solution_draft_02.md']);
    // Every name in the folder is tested on its own: nothing else slips through.
    expect(findMatches(base, '*.csproj')).toEqual([]);
    expect(findMatches(base, '01_solution/*.txt')).toEqual([]);
  });

  it('needs content: an empty file proves nothing', () => {
    expect(findMatches(base, '02_tasks/cycle-*/_index.md')).toEqual(['02_tasks/cycle-1/_index.md']);
  });

  it('counts a named folder, and a trailing slash asks for folders only', () => {
    expect(findMatches(base, '02_document/empty')).toEqual(['02_document/empty']);
    expect(findMatches(base, '01_solution/notes.md/')).toEqual([]);
    expect(findMatches(base, '02_tasks/*/')).toEqual(['02_tasks/cycle-1', '02_tasks/cycle-2']);
  });

  it('matches alternatives in braces within a segment, with one readdir per folder', () => {
    expect(findMatches(base, '01_solution/*.{md,txt}', 10)).toEqual([
      '01_solution/notes.md',
      '01_solution/solution_draft_01.md',
      '01_solution/solution_draft_02.md',
    ]);
    expect(findMatches(base, '{01_solution,02_tasks}/*', 10)).toEqual([
      '01_solution/notes.md',
      '01_solution/solution_draft_01.md',
      '01_solution/solution_draft_02.md',
      '02_tasks/cycle-1',
      '02_tasks/cycle-2',
    ]);
    expect(findMatches(base, '*/{notes,readme}.{md,rst}', 10)).toEqual(['01_solution/notes.md', '_docs/readme.md']);
  });

  it('stops at the limit and finds nothing under a missing folder', () => {
    expect(findMatches(base, '01_solution/*.md', 1)).toHaveLength(1);
    expect(findMatches(base, 'nowhere/*/x.md')).toEqual([]);
  });
});

describe('the `*`-only fast path agrees with picomatch', () => {
  it('on the patterns picomatch reads its own way (found by the random run: `*.*` is not `_.`)', async () => {
    const { default: picomatch } = await import('picomatch');
    for (const [pattern, name] of [
      ['*.*', '_.'],
      ['*.*', 'a.b'],
      ['.*', '.a'],
      ['.*.md', '..md'],
      ['*.*.md', 'a..md'],
    ] as const)
      expect(matcherForTest(pattern)(name), `${pattern} ${name}`).toBe(picomatch(pattern, { dot: false })(name));
  });
  it('on 2,000 random names and patterns', async () => {
    const { default: picomatch } = await import('picomatch');
    const piece = fc.stringMatching(/^[a-z._-]{0,4}$/);
    fc.assert(
      fc.property(fc.array(piece, { minLength: 2, maxLength: 4 }), fc.stringMatching(/^\.?[a-z._-]{0,12}$/), (parts, name) => {
        // A folder listing never holds `.` or `..`.
        fc.pre(name !== '.' && name !== '..');
        const pattern = parts.join('*');
        expect(matcherForTest(pattern)(name)).toBe(picomatch(pattern, { dot: false })(name));
      }),
      { numRuns: 2000 },
    );
  });
});
