/**
 * Random names for temporary files, lock holders and scratch output.
 *
 * `randomHex` names a temporary file (created with `O_EXCL`, so a clash is
 * an error, never a shared file; its name carries the process id too) or a
 * lock holder's nonce (told apart from other holders, never a secret). It
 * comes from V8's `Math.random`, which Node seeds per process from the
 * operating system's entropy: no `node:crypto`, whose 40 modules (the stream
 * stack among them) a `next` that resumes a step would otherwise load only to
 * name its lock and its lease's temporary file (docs/performance.md, "Where
 * start-up still goes"). 24 bits a draw, so a 6-byte nonce is two draws.
 *
 * `randomId` is a real version-4 UUID, from node:crypto loaded on the call.
 */

/** `bytes` random bytes as hex digits (twice as many). */
export function randomHex(bytes: number): string {
  let hex = '';
  while (hex.length < bytes * 2)
    hex += Math.floor(Math.random() * 0x1000000)
      .toString(16)
      .padStart(6, '0');
  return hex.slice(0, bytes * 2);
}

/** A random UUID (version 4). */
export const randomId = (): string => process.getBuiltinModule('node:crypto').randomUUID();
