/** The lock file: a holder reads back as written; anything else names no holder, and the lock reads it as empty. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLockHolder, serializeLockHolder, type LockHolder } from '../../../src/formats/lock.js';

const FILE = '_docs/_autopilot/lock';
const HOLDER: LockHolder = { pid: 42, host: 'box', machine: 'm1', session: 'one', at: '2026-11-26T10:00:00.000Z', nonce: 'a1b2c3d4e5f6' };

describe('parseLockHolder', () => {
  it('reads back the holder it writes', () => {
    expect(parseLockHolder(serializeLockHolder(HOLDER), FILE)).toEqual({ holder: HOLDER });
    const holder = fc.record({ pid: fc.nat(), host: fc.string(), machine: fc.string(), session: fc.string(), at: fc.string(), nonce: fc.string() });
    fc.assert(
      fc.property(holder, (h) => {
        expect(parseLockHolder(serializeLockHolder(h), FILE)).toEqual({ holder: h });
      }),
    );
  });

  it.each([
    ['empty (its writer killed before it wrote)', ''],
    ['cut short', serializeLockHolder(HOLDER).slice(0, 20)],
    ['null', 'null'],
    ['no nonce', JSON.stringify({ ...HOLDER, nonce: undefined })],
    ['a pid as text', JSON.stringify({ ...HOLDER, pid: '42' })],
  ])('%s: names no holder', (_what, text) => {
    expect(parseLockHolder(text, FILE)).toEqual({
      problem: { file: FILE, message: 'the lock file names no holder', expected: 'a JSON object with `pid` and `nonce`', received: text.slice(0, 80) },
    });
  });
});
