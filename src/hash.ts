/**
 * sha1 of a text, and git's id of a blob. Pure (node:crypto only), so every layer may use it: the
 * flow parser names a flow file's exact content with it (cache keys, the
 * journal's pinned runs), io the machine id and the journal index's tail,
 * and the journal's chain each line (`chainHash`, thousands a read: so the
 * one-shot `crypto.hash`, a third of `createHash`'s cost on a short text);
 * the step's commit the bytes its judges read (`blobId`, in app/ and git/).
 * It sits beside errors.ts and limits.ts, the other modules every layer
 * shares, rather than in io/ (the edge, which flow/ must not import).
 *
 * node:crypto is loaded on the first hash, not with the bundle: loading it
 * (and the stream modules it brings) is 4 ms of a 60 ms `node -e 0`, and a
 * `status` right after `init` hashes nothing (docs/performance.md).
 */
let loaded: typeof import('node:crypto') | undefined;
const crypto = () => (loaded ??= process.getBuiltinModule('node:crypto'));

export function hashText(text: string): string {
  const { hash, createHash } = crypto();
  // `crypto.hash` is Node 20.12 and later; the package asks for 20.17, but a bundle may still meet an older Node.
  return typeof hash === 'function' ? hash('sha1', text, 'hex') : createHash('sha1').update(text).digest('hex');
}

/** git's id of a blob holding these bytes (a text: its UTF-8 bytes): the hash of `blob <length>\0` and the bytes. */
export function blobId(bytes: Uint8Array | string, format: 'sha1' | 'sha256' = 'sha1'): string {
  const body = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
  return crypto().createHash(format).update(`blob ${body.length}\0`).update(body).digest('hex');
}
