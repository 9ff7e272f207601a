/** The flow cache is a file in the repository: an entry is used only if it is what the parser would have written. */
import { describe, expect, it } from 'vitest';
import { isCachedParse } from '../../../src/flow/cached-shape.js';
import { toCached } from '../../../src/flow/flow-cache.js';
import { builtInFlow } from '../../helpers/engine.js';

const entry = () => JSON.parse(JSON.stringify(toCached({ flow: builtInFlow('greenfield'), problems: [] }))) as { flow: Record<string, unknown> };

describe('isCachedParse', () => {
  it('takes what the parser writes: a flow, or problems', () => {
    expect(isCachedParse(entry(), 'greenfield')).toBe(true);
    expect(isCachedParse(toCached({ problems: [{ file: 'x.md', line: 2, message: 'bad', expected: 'good', received: 'bad' }] }), 'x')).toBe(true);
  });

  it('refuses an entry made for another id, and anything that is not an entry', () => {
    expect(isCachedParse(entry(), 'other')).toBe(false);
    for (const junk of [null, 42, 'x', [], {}, { flow: null }, { problems: 'x' }, { problems: [] }, { problems: [{}] }])
      expect(isCachedParse(junk, 'greenfield')).toBe(false);
  });

  it('refuses a flow of the wrong shape, or one the parser would have refused', () => {
    const damage: ((flow: Record<string, unknown>) => void)[] = [
      (f) => (f.steps = 'steps'),
      (f) => (f.steps = []),
      (f) => ((f.steps as Record<string, unknown>[])[0]!.number = 2),
      (f) => ((f.steps as Record<string, unknown>[])[0]!.doneWhen = ['../../etc/passwd']),
      (f) => ((f.steps as Record<string, unknown>[])[0]!.then = { kind: 'jump' }),
      (f) => ((f.steps as Record<string, unknown>[])[1]!.then = { kind: 'decision', id: 'undeclared' }),
      (f) => (f.detect = { any: '**', none: [] }),
      (f) => (f.decisions = { 'research-round': { id: 'research-round' } }),
      (f) => delete f.title,
    ];
    for (const [i, change] of damage.entries()) {
      const damaged = entry();
      change(damaged.flow);
      expect(isCachedParse(damaged, 'greenfield'), `damage ${i}`).toBe(false);
    }
  });
});
