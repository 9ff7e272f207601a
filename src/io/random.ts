/**
 * Random names for temporary files, lock holders and scratch output, from
 * node:crypto loaded on the first call: a command that writes nothing
 * (`status`) never loads it, nor the stream modules it brings
 * (docs/performance.md, "Where start-up still goes").
 */

/** `bytes` random bytes as hex digits (twice as many). */
export const randomHex = (bytes: number): string => process.getBuiltinModule('node:crypto').randomBytes(bytes).toString('hex');

/** A random UUID (version 4). */
export const randomId = (): string => process.getBuiltinModule('node:crypto').randomUUID();
