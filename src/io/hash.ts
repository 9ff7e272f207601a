import { createHash } from 'node:crypto';

/** sha1 of a text: names a flow file's exact content in caches and, later, in the journal. */
export function hashText(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}
