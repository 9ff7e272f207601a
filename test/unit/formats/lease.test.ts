/** The lease file: what autopilot writes reads back the same; anything else is a short problem naming the file. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLease, serializeLease, type Lease } from '../../../src/formats/lease.js';

const FILE = '_docs/_autopilot/lease.json';
const LEASE: Lease = { session: 'one', host: 'box', machine: 'm1', pid: 42, taken_at: '2026-11-26T10:00:00.000Z', heartbeat: '2026-11-26T10:05:00.000Z' };

describe('parseLease', () => {
  it('reads a lease, on one line as autopilot writes it', () => {
    const text = serializeLease(LEASE);
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.split('\n')).toHaveLength(2);
    expect(parseLease(text, FILE)).toEqual({ lease: LEASE });
  });

  it('reads back any lease it writes', () => {
    const lease = fc.record({
      session: fc.string(),
      host: fc.string(),
      machine: fc.string(),
      pid: fc.integer({ min: 1, max: 2 ** 22 }),
      taken_at: fc.string(),
      heartbeat: fc.string(),
      beat: fc.option(fc.nat(), { nil: undefined }),
    });
    fc.assert(
      fc.property(lease, (l) => {
        expect(parseLease(serializeLease(l), FILE)).toEqual({ lease: JSON.parse(JSON.stringify(l)) });
      }),
    );
  });

  it.each([
    ['not JSON', '{"session":', 'not JSON'],
    ['empty', '', 'not JSON'],
    ['an array', '[]', 'not a lease'],
    ['null', 'null', 'not a lease'],
    ['no heartbeat', JSON.stringify({ ...LEASE, heartbeat: undefined }), 'not a lease'],
    ['a pid as text', JSON.stringify({ ...LEASE, pid: '42' }), 'not a lease'],
    ['a heartbeat count below zero', JSON.stringify({ ...LEASE, beat: -1 }), 'not a lease'],
    ['a heartbeat count as text', JSON.stringify({ ...LEASE, beat: '3' }), 'not a lease'],
  ])('%s: a problem naming the file', (_what, text, message) => {
    const parsed = parseLease(text, FILE);
    expect(parsed).toEqual({ problem: { file: FILE, message, expected: expect.stringContaining('`heartbeat`') as unknown, received: text.slice(0, 80) } });
  });
});
