/** The journal index's file: what autopilot writes reads back the same; anything else is a problem, so the index is derived again. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  carryIndex,
  indexFromCarried,
  emptyJournalIndex,
  evidenceFromIndex,
  indexEvent,
  JOURNAL_INDEX_FORMAT,
  parseJournalIndex,
  serializeJournalIndex,
  type JournalIndex,
} from '../../../src/formats/journal-index.js';
import { entry, type StampedEntry } from '../../../src/formats/journal-line.js';
import type { Position } from '../../../src/formats/pointer/position.js';
import { JOURNAL_INDEX_KEPT_CYCLES } from '../../../src/limits.js';

const FILE = '_docs/_autopilot/cache/journal-index.json';
const at = (step: number, cycle = 1): Position => ({ flow: 'f', step, name: 'S', status: 'completed', subStep: '0', retryCount: 0, cycle });
const stamped = (e: ReturnType<typeof entry>): StampedEntry => ({ seq: 1, at: 'now', session: 'local', ...e }) as StampedEntry;

describe('parseJournalIndex', () => {
  it('reads back the index it writes', () => {
    const index = emptyJournalIndex();
    indexEvent(index, stamped(entry('step_skipped', at(2), { by: 'agent', reason: 'x' })));
    indexEvent(index, stamped(entry('decision_answered', at(3), { decision: 'd', option: 'B', choice: 'again', then: 'repeat', round_files: ['a.md'] })));
    Object.assign(index, { size: 1234, tail: 'abc' });
    expect(parseJournalIndex(serializeJournalIndex(index), FILE)).toEqual({ index });
  });

  it('reads back any facts', () => {
    const facts = fc.record(
      { w: fc.constantFrom('skipped' as const, 'forced' as const), r: fc.array(fc.string()), c: fc.constant({}) },
      { requiredKeys: ['c'] },
    );
    const index = fc.record({
      format: fc.constant(JOURNAL_INDEX_FORMAT),
      size: fc.nat(),
      tail: fc.string(),
      steps: fc.dictionary(fc.string(), facts),
    });
    fc.assert(
      fc.property(index, (i: JournalIndex) => {
        expect(parseJournalIndex(serializeJournalIndex(i), FILE)).toEqual({ index: JSON.parse(JSON.stringify(i)) });
      }),
    );
  });

  it.each([
    ['not JSON', '{"format":', 'the journal index is not JSON'],
    ['null', 'null', 'the journal index is not one this autopilot writes'],
    ['another format', JSON.stringify({ ...emptyJournalIndex(), format: 2 }), 'the journal index is not one this autopilot writes'],
    ['a size that is not a count', JSON.stringify({ ...emptyJournalIndex(), size: 1.5 }), 'the journal index is not one this autopilot writes'],
    ['no steps', JSON.stringify({ ...emptyJournalIndex(), steps: null }), 'the journal index is not one this autopilot writes'],
  ])('%s: a problem naming the file', (_what, text, message) => {
    expect(parseJournalIndex(text, FILE)).toEqual({ problem: expect.objectContaining({ file: FILE, message }) as unknown });
  });
});

describe('indexEvent and evidenceFromIndex', () => {
  it('keeps waivers and rounds per cycle, and the latest across cycles', () => {
    const index = emptyJournalIndex();
    indexEvent(index, stamped(entry('step_skipped', at(2, 1), { by: 'agent', reason: 'x' })));
    indexEvent(index, stamped(entry('step_skipped', at(4, 1), { by: 'condition', reason: 'x' })));
    indexEvent(index, stamped(entry('step_completed', at(5, 2), { forced: true, reason: 'checked' })));
    indexEvent(index, stamped(entry('decision_answered', at(6, 2), { decision: 'd', option: 'B', choice: 'again', then: 'repeat', round_files: ['a.md'] })));
    const perCycle = (step: number) => step >= 5;
    expect(evidenceFromIndex(index, 'f', 2, perCycle)).toEqual({
      waivers: new Map([
        [2, 'skipped'],
        [5, 'forced'],
      ]),
      rounds: new Map([[6, ['a.md']]]),
    });
    expect(evidenceFromIndex(index, 'f', 3, perCycle)).toEqual({ waivers: new Map([[2, 'skipped']]), rounds: new Map() });
    // A completion closes the round.
    indexEvent(index, stamped(entry('step_completed', at(6, 2))));
    expect(evidenceFromIndex(index, 'f', 2, perCycle).rounds).toEqual(new Map());
  });

  it(`keeps the ${JOURNAL_INDEX_KEPT_CYCLES} most recent cycles of a step`, () => {
    const index = emptyJournalIndex();
    for (let cycle = 1; cycle <= JOURNAL_INDEX_KEPT_CYCLES + 2; cycle++)
      indexEvent(index, stamped(entry('step_skipped', at(5, cycle), { by: 'agent', reason: 'x' })));
    expect(Object.keys(index.steps['f|5']!.c).map(Number)).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('keeps the step list a run is pinned to', () => {
    const index = emptyJournalIndex();
    const pinned = { id: 'f' } as never;
    indexEvent(index, stamped(entry('run_started', at(1), { source: 'init', flow_hash: 'h', flow_file: 'builtin:f', pinned })));
    expect(index.pins).toEqual({ f: { id: 'f' } });
  });

  it('keeps the test command a run is pinned to, the latest pin winning, and carries it on a journal line', () => {
    const index = emptyJournalIndex();
    indexEvent(index, stamped(entry('verify_pinned', at(1), { command: 'npm test', sources: { 'package.json scripts.test': 'aa' }, by: 'found' })));
    indexEvent(index, stamped(entry('verify_pinned', at(2), { command: null, reason: 'a docs site', sources: {}, by: 'person' })));
    expect(index.verify).toMatchObject({ command: null, reason: 'a docs site', sources: {} });
    expect(indexFromCarried(JSON.parse(JSON.stringify(carryIndex(index))))?.verify).toEqual(index.verify);
  });
});
