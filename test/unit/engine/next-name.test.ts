/** The name `next` tells the agent to write where a Done-when cell is a pattern (`write`): the next free number, from the pattern and its matches alone. */
import { describe, expect, it } from 'vitest';
import { nextFreeName } from '../../../src/engine/next-name.js';

describe('nextFreeName', () => {
  const pattern = '01_solution/solution_draft_*.md';

  it('starts at 01, and names one more than the highest of 2 drafts, as wide', () => {
    expect(nextFreeName(pattern, [])).toBe('01_solution/solution_draft_01.md');
    expect(nextFreeName(pattern, ['01_solution/solution_draft_01.md', '01_solution/solution_draft_02.md'])).toBe('01_solution/solution_draft_03.md');
    expect(nextFreeName(pattern, ['01_solution/solution_draft_02.md', '01_solution/solution_draft_final.md'])).toBe('01_solution/solution_draft_03.md');
    expect(nextFreeName(pattern, ['01_solution/solution_draft_9.md'])).toBe('01_solution/solution_draft_10.md');
    expect(nextFreeName(pattern, ['01_solution/solution_draft_099.md', '01_solution/solution_draft_7.md'])).toBe('01_solution/solution_draft_100.md');
  });

  it('names nothing for a plain path, a bare `*`, two stars, a class or alternatives, or a glob in the folder (5 patterns)', () => {
    for (const p of ['02_tasks/_index.md', '02_tasks/*.md', 'a/draft_*_*.md', 'a/draft_[0-9].md', 'a/*/draft_*.md'])
      expect(nextFreeName(p, []), p).toBeUndefined();
    expect(nextFreeName('a/draft_*.{md,txt}', [])).toBeUndefined();
  });
});
