/**
 * sha1 of a text. Pure (node:crypto only), so every layer may use it: the
 * flow parser names a flow file's exact content with it (cache keys, the
 * journal's pinned runs), io the machine id and the journal index's tail.
 * It sits beside errors.ts and limits.ts, the other modules every layer
 * shares, rather than in io/ (the edge, which flow/ must not import).
 */
import { createHash } from 'node:crypto';

export function hashText(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}
