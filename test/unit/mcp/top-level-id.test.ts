/** The id of a line too long to parse, read as its bytes pass: wherever it stands, only the top level's, fed in any pieces. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TopLevelIdScanner } from '../../../src/mcp/top-level-id.js';

/** Feeds `text` in pieces cut at `cuts` (byte offsets), as a pipe delivers it. */
function scan(text: string, cuts: number[] = []): string | number | null {
  const bytes = Buffer.from(text, 'utf8');
  const scanner = new TopLevelIdScanner();
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    scanner.feed(bytes.subarray(from, Math.max(from, cut)));
    from = Math.max(from, cut);
  }
  scanner.feed(bytes.subarray(from));
  return scanner.id;
}

describe('TopLevelIdScanner', () => {
  it('finds the id last, first or in the middle, as a number or a string', () => {
    const params = { name: 'substep', arguments: { text: 'x'.repeat(1000) } };
    expect(scan(JSON.stringify({ method: 'tools/call', params, jsonrpc: '2.0', id: 7 }))).toBe(7);
    expect(scan(JSON.stringify({ id: 'a-1', method: 'tools/call', params, jsonrpc: '2.0' }))).toBe('a-1');
    expect(scan(JSON.stringify({ method: 'tools/call', id: -3, params }))).toBe(-3);
    expect(scan('{ "method" : "x" ,\n "id" :\t"q\\"uoted" }')).toBe('q"uoted');
  });

  it('never takes an "id" inside params, inside a string, or a key that only starts with id', () => {
    expect(scan(JSON.stringify({ method: 'tools/call', params: { id: 9, arguments: { id: 8 } }, jsonrpc: '2.0' }))).toBeNull();
    expect(scan(JSON.stringify({ method: 'tools/call', params: { text: '","id":5,"' }, idx: 4, i: 3 }))).toBeNull();
    expect(scan(JSON.stringify([{ id: 1 }]))).toBeNull();
    expect(scan('{"id":null,"method":"x"}')).toBeNull();
    expect(scan(`{"id":"${'y'.repeat(300)}","method":"x"}`)).toBeNull();
  });

  it('keeps the last of two ids, as JSON.parse does', () => {
    expect(scan('{"id":1,"method":"x","id":2}')).toBe(2);
  });

  it('reads 1,000 random requests cut into random pieces as JSON.parse reads them', () => {
    const id = fc.oneof(fc.integer({ min: -1e9, max: 1e9 }), fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 10 }));
    const value = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(
        id,
        fc.dictionary(fc.string({ maxLength: 6 }), value, { maxKeys: 5 }),
        fc.nat(6),
        fc.array(fc.nat(4000), { maxLength: 6 }),
        (id, rest, at, cuts) => {
          const entries = Object.entries(rest).filter(([k]) => k !== 'id' && k !== '__proto__');
          entries.splice(Math.min(at, entries.length), 0, ['id', id]);
          const text = JSON.stringify(Object.fromEntries(entries));
          expect(scan(text, cuts)).toEqual((JSON.parse(text) as { id: unknown }).id);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
