/**
 * The flow cache: parsed flows kept as JSON, keyed by flow id and the sha1 of
 * the file's text, so a cache entry can never be stale (a changed file has a
 * new key); the package's own cache keys a built-in flow by a fingerprint
 * of its bytes computed in JavaScript (`bytesFingerprint`), so a `status` loads no hash module. A file that does not parse is kept too, with its problems, so a
 * broken flow costs one parse, not one per call. The package ships one for
 * its built-in flows (`dist/flows.json`, made by the build); a repository's
 * own flows are cached in `_docs/_autopilot/cache/flows.json`
 * (`io/flow-cache-file.ts` reads and writes both).
 *
 * Pure: text → the cache's entries or a problem; cache → text. The entries
 * are not checked when the file is read, only when one is used
 * (`isCachedParse`): the repository's cache is a file of the repository,
 * untrusted like the flow itself, so an entry of the wrong shape, or a flow
 * the parser would have refused, is a cache miss and the flow is parsed again.
 */
import type { Problem } from '../errors.js';
import type { Decision, Flow, Runs, Step, Then } from './flow/model.js';
import { patternProblem } from './flow/patterns.js';
import { validateFlow } from './flow/validate-flow.js';

/**
 * Bump when the entry shape or the parser's reading of a file changes. 2:
 * failed parses are cached too. 3: `checkpoint_before`, which 2 cached as an
 * unknown key's problem.
 */
export const FLOW_CACHE_FORMAT = 3;

export type CachedFlow = Omit<Flow, 'file'>;
export type CachedProblem = Omit<Problem, 'file'>;

/** A flow, or the problems that kept the file from being one. Neither names the file: a hit adds where it was read from. */
export type CachedParse = { flow: CachedFlow } | { problems: CachedProblem[] };

export interface FlowCache {
  /** Unchecked until used: see `isCachedParse`. */
  entries: Map<string, unknown>;
  /** Whether an entry was added since it was read: only then is it written back. */
  changed: boolean;
}

const EXPECTED = `a JSON object \`{"format":${FLOW_CACHE_FORMAT},"entries":{…}}\``;

export const cacheKey = (id: string, hash: string) => `${id}:${hash}`;

/**
 * The key of a built-in flow's file in the package's own cache: its length in
 * bytes and two 32-bit FNV-style sums over its bytes, four at a time (the
 * platform's byte order: on a big-endian machine the keys differ from the
 * build's and the flows are parsed, not misread). Not a defence against
 * anyone (the package's files are the package's): it tells a flow file edited
 * in place from the one the build parsed, with no hash module to load on
 * `status`'s path. A word at a time keeps the loop short enough that V8 never
 * marks it hot: a character at a time it did, and the command waited at exit
 * for a Turbofan compile (docs/performance.md, fifth pass).
 */
export function bytesFingerprint(bytes: Uint8Array): string {
  // A copy when unaligned (a Buffer's `slice` would not copy): an Int32Array starts on a multiple of 4.
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : new Uint8Array(bytes);
  const words = new Int32Array(aligned.buffer, aligned.byteOffset, aligned.length >> 2);
  let a = 0x811c9dc5 | 0;
  let b = 0x050c5d1f | 0;
  for (let i = 0; i < words.length; i++) {
    a = Math.imul(a ^ words[i]!, 0x01000193);
    b = Math.imul(b ^ words[i]!, 0x01000193) ^ (b >>> 15);
  }
  for (let i = words.length * 4; i < aligned.length; i++) {
    a = Math.imul(a ^ aligned[i]!, 0x01000193);
    b = Math.imul(b ^ aligned[i]!, 0x01000193);
  }
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
  return `${bytes.length}-${hex(a)}${hex(b)}`;
}

/** The cache a file holds; a problem when it is not one this autopilot wrote (the caller starts afresh). */
export function parseFlowCache(text: string, file: string): { cache: FlowCache } | { problem: Problem } {
  let data: { format?: unknown; entries?: unknown } | undefined;
  try {
    data = JSON.parse(text) as typeof data;
  } catch {
    return { problem: { file, message: 'the flow cache is not JSON', expected: EXPECTED, received: text.slice(0, 80) } };
  }
  if (data?.format !== FLOW_CACHE_FORMAT)
    return { problem: { file, message: 'the flow cache is of another format', expected: EXPECTED, received: `format ${JSON.stringify(data?.format)}` } };
  if (typeof data.entries !== 'object' || data.entries === null || Array.isArray(data.entries))
    return { problem: { file, message: 'the flow cache has no entries', expected: EXPECTED, received: text.slice(0, 80) } };
  return { cache: { entries: new Map(Object.entries(data.entries as Record<string, unknown>)), changed: false } };
}

export function serializeFlowCache(cache: FlowCache): string {
  return JSON.stringify({ format: FLOW_CACHE_FORMAT, entries: Object.fromEntries(cache.entries) }) + '\n';
}

export function toCached(parsed: { flow?: Flow; problems: Problem[] }): CachedParse {
  if (parsed.flow) {
    const { file: _file, ...flow } = parsed.flow;
    return { flow };
  }
  return { problems: parsed.problems.map(({ file: _file, ...problem }) => problem) };
}

/** A cache entry as the parse it stands for, read from `file`. */
export function fromCached(entry: CachedParse, file: string): { flow?: Flow; problems: Problem[] } {
  if ('flow' in entry) return { flow: { ...entry.flow, file }, problems: [] };
  return { problems: entry.problems.map((problem) => ({ file, ...problem })) };
}

type Fields = Record<string, unknown>;

const isObject = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isLine = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
const optionalString = (v: unknown) => v === undefined || isString(v);

function isRuns(v: unknown): v is Runs {
  return isObject(v) && (v.kind === 'always' || v.kind === 'optional' || (v.kind === 'if' && isString(v.pattern) && !patternProblem(v.pattern)));
}

function isThen(v: unknown): v is Then {
  if (!isObject(v)) return false;
  if (v.kind === 'next' || v.kind === 'boundary' || v.kind === 'end') return true;
  if (v.kind === 'decision') return isString(v.id);
  return v.kind === 'loop' && Number.isInteger(v.to);
}

function isStep(v: unknown, index: number): v is Step {
  return (
    isObject(v) &&
    v.number === index + 1 &&
    isString(v.name) &&
    isString(v.skill) &&
    isString(v.subSteps) &&
    isStrings(v.doneWhen) &&
    v.doneWhen.length > 0 &&
    v.doneWhen.every((p) => !patternProblem(p)) &&
    isRuns(v.runs) &&
    isThen(v.then) &&
    isLine(v.line) &&
    (v.batches === undefined || (isObject(v.batches) && isString(v.batches.index) && isString(v.batches.report)))
  );
}

function isDecision(v: unknown, id: string): v is Decision {
  if (!isObject(v) || v.id !== id || !isString(v.question) || !isLine(v.line) || !Array.isArray(v.options)) return false;
  const options = v.options as unknown[];
  const lettered = options.every((o, i) => isObject(o) && o.letter === 'ABCD'[i] && isString(o.choice) && (o.then === 'continue' || o.then === 'repeat'));
  const recommendation = v.recommendation;
  return (
    lettered &&
    options.length >= 2 &&
    options.length <= 4 &&
    isObject(recommendation) &&
    isString(recommendation.reason) &&
    options.some((o) => (o as Fields).letter === recommendation.letter)
  );
}

/** Absent in a flow that names none, and in one pinned by an autopilot older than the key: both read as valid. */
function isCheckpointMarks(v: unknown): boolean {
  return v === undefined || (Array.isArray(v) && v.every((m) => isObject(m) && isString(m.step) && m.step.trim() !== '' && isLine(m.line)));
}

function isFlow(v: unknown, id: string): v is CachedFlow {
  if (!isObject(v) || v.id !== id || !isString(v.title) || !Number.isInteger(v.scanOrder) || !isString(v.hash)) return false;
  if (!isCheckpointMarks(v.checkpointBefore)) return false;
  const { detect, steps, decisions } = v;
  if (!isObject(detect) || !isStrings(detect.any) || !isStrings(detect.none) || [...detect.any, ...detect.none].some((p) => patternProblem(p, true)))
    return false;
  if (!Array.isArray(steps) || steps.length === 0 || !steps.every(isStep)) return false;
  if (!isObject(decisions) || !Object.entries(decisions).every(([key, d]) => isDecision(d, key))) return false;
  // The checks the parser makes on the flow as a whole: decisions named and declared, loops, `{cycle}`, shared patterns, checkpoints before steps that exist.
  return validateFlow({ ...(v as unknown as CachedFlow), file: '' }).length === 0;
}

function isProblem(v: unknown): v is CachedProblem {
  return isObject(v) && isString(v.message) && (v.line === undefined || isLine(v.line)) && optionalString(v.expected) && optionalString(v.received);
}

/** `id` is the flow id of the cache key: an entry may only stand for the file it was made from. */
export function isCachedParse(entry: unknown, id: string): entry is CachedParse {
  if (!isObject(entry)) return false;
  if ('flow' in entry) return isFlow(entry.flow, id);
  return Array.isArray(entry.problems) && entry.problems.length > 0 && entry.problems.every(isProblem);
}
