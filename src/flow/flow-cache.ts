/**
 * Parsed flows kept as JSON, keyed by flow id and the sha1 of the file's
 * text, so a cache entry can never be stale: a changed file has a new key.
 * A file that does not parse is kept too, with its problems, so a broken flow
 * costs one parse, not one per call. The package ships a cache for its
 * built-in flows (`dist/flows.json`, made by the build); a repository's own
 * flows are cached in `_docs/_autopilot/cache/`.
 */
import type { Problem } from '../errors.js';
import { writeFileAtomically } from '../io/atomic-write.js';
import { readBounded } from '../io/read-bounded.js';
import { FLOW_CACHE_MAX_BYTES } from '../limits.js';
import type { Flow } from './model.js';

/** Bump when the entry shape or the parser's reading of a file changes. 2: failed parses are cached too. */
export const FLOW_CACHE_FORMAT = 2;

export type CachedFlow = Omit<Flow, 'file'>;
export type CachedProblem = Omit<Problem, 'file'>;

/** A flow, or the problems that kept the file from being one. Neither names the file: a hit adds where it was read from. */
export type CachedParse = { flow: CachedFlow } | { problems: CachedProblem[] };

export interface FlowCache {
  /** Unchecked until used: see `isCachedParse`. */
  entries: Map<string, unknown>;
  changed: boolean;
}

export const cacheKey = (id: string, hash: string) => `${id}:${hash}`;

/** Entries are checked when used (`isCachedParse`): the file may have been written by anyone. */
export function readFlowCache(file: string): FlowCache {
  // Missing, unreadable, not a file or past the limit: a cache is only ever an optimisation, and the next write starts it afresh.
  const read = readBounded(file, file, 'flow cache', FLOW_CACHE_MAX_BYTES);
  try {
    const data = 'text' in read ? (JSON.parse(read.text) as { format?: unknown; entries?: unknown }) : undefined;
    if (data?.format === FLOW_CACHE_FORMAT && typeof data.entries === 'object' && data.entries !== null && !Array.isArray(data.entries))
      return { entries: new Map(Object.entries(data.entries as Record<string, unknown>)), changed: false };
  } catch {
    // Not JSON.
  }
  return { entries: new Map(), changed: false };
}

export function writeFlowCache(file: string, cache: FlowCache): void {
  writeFileAtomically(file, JSON.stringify({ format: FLOW_CACHE_FORMAT, entries: Object.fromEntries(cache.entries) }) + '\n', { fsync: false });
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
