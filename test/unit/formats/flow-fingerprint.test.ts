/**
 * The built-in flows' cache key (`bytesFingerprint`): a flow file edited in
 * place gets a new key, so the package's prebuilt parse is never taken for
 * another text, and the key does not depend on where the bytes sit in memory.
 */
import { expect, it } from 'vitest';
import { bytesFingerprint } from '../../../src/formats/flow-cache.js';

it('one byte changed anywhere in an 8 KB flow, or the file one byte shorter or longer: 8,195 edits, 8,195 keys unlike the original and each other', () => {
  const original = Buffer.from('# Flow\n'.repeat(1170).slice(0, 8192));
  const keys = new Set([bytesFingerprint(original)]);
  for (let i = 0; i < original.length; i++) {
    const edited = Buffer.from(original);
    edited[i] = edited[i]! ^ 0x01;
    keys.add(bytesFingerprint(edited));
  }
  keys.add(bytesFingerprint(original.subarray(0, original.length - 1)));
  keys.add(bytesFingerprint(Buffer.concat([original, Buffer.from(' ')])));
  keys.add(bytesFingerprint(Buffer.concat([original, Buffer.from('\n')])));
  expect(keys.size).toBe(1 + original.length + 3);
});

it('the same bytes at 4 offsets in memory (aligned or not, 0 to 3 bytes trailing a word): 1 key each', () => {
  const text = Buffer.from('---\nid: greenfield\n---\n## Steps\n');
  for (let offset = 0; offset < 4; offset++) {
    const host = Buffer.alloc(text.length + 8);
    text.copy(host, offset);
    expect(bytesFingerprint(host.subarray(offset, offset + text.length))).toBe(bytesFingerprint(text));
  }
});
