/** The skills a run is pinned to, as the journal keeps them (`formats/skill-pins.ts`): their hash, their check, their changes in words. */
import { describe, expect, it } from 'vitest';
import { isPinnedSkills, skillChanges, skillsHash, type PinnedSkills } from '../../../src/formats/skill-pins.js';

const PINNED: PinnedSkills = {
  problem: {
    source: 'builtin',
    hash: 'aaaa',
    outputs: [{ file: '00_problem/problem.md', template: 'templates/problem.md', sections: ['Problem'], checks: ['placeholders'] }],
    templates: { 'templates/problem.md': '1111' },
  },
  research: { source: 'repository', hash: 'bbbb', outputs: [], templates: {} },
  plan: { source: 'builtin', hash: 'cccc', outputs: [], templates: {} },
};

describe('pinned skills', () => {
  it('names a set by its skills, sources and folders only, in any order', () => {
    const same = {
      plan: { source: 'builtin' as const, hash: 'cccc' },
      research: { source: 'repository' as const, hash: 'bbbb' },
      problem: { source: 'builtin' as const, hash: 'aaaa' },
    };
    expect(skillsHash(same)).toBe(skillsHash(PINNED));
    expect(skillsHash({ ...same, plan: { source: 'builtin', hash: 'dddd' } })).not.toBe(skillsHash(PINNED));
    expect(skillsHash(PINNED)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('says 3 changes in words: an override written, one edited, one removed; 0 for the set as pinned', () => {
    const now = {
      problem: { source: 'repository' as const, hash: 'eeee' },
      research: { source: 'repository' as const, hash: 'ffff' },
      plan: { source: 'builtin' as const, hash: 'cccc' },
    };
    expect([...skillChanges(PINNED, now).values()]).toEqual([
      'the skill problem is now read from .autopilot/skills/problem/SKILL.md (the run pinned the built-in one)',
      "the skill research's files changed (.autopilot/skills/research/SKILL.md)",
    ]);
    const removed = { ...now, problem: { source: 'builtin' as const, hash: 'aaaa' }, research: { source: 'builtin' as const, hash: 'gggg' } };
    expect([...skillChanges(PINNED, removed).values()]).toEqual([
      'the skill research is now the built-in one (the run pinned .autopilot/skills/research/SKILL.md)',
    ]);
    expect(skillChanges(PINNED, PINNED).size).toBe(0);
  });

  it('reads a pin only in its shape: 4 hand-edited shapes refused', () => {
    expect(isPinnedSkills(PINNED)).toBe(true);
    expect(isPinnedSkills([])).toBe(false);
    expect(isPinnedSkills({ problem: { ...PINNED.problem, source: 'elsewhere' } })).toBe(false);
    expect(isPinnedSkills({ problem: { ...PINNED.problem, outputs: [{ file: 'x' }] } })).toBe(false);
    expect(isPinnedSkills({ problem: { ...PINNED.problem, templates: { t: 1 } } })).toBe(false);
  });
});
