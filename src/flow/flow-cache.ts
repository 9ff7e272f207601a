/**
 * Parsed flows kept as JSON, keyed by flow id and the sha1 of the file's
 * text, so a cache entry can never be stale: a changed file has a new key.
 * A file that does not parse is kept too, with its problems, so a broken flow
 * costs one parse, not one per call. The package ships a cache for its
 * built-in flows (`dist/flows.json`, made by the build); a repository's own
 * flows are cached in `_docs/_autopilot/cache/`.
 */
import { readFileSync } from 'node:fs';
import type { Problem } from '../errors.js';
import { writeFileAtomically } from '../io/atomic-write.js';
import type { Flow } from './model.js';

/** Bump when the entry shape or the parser's reading of a file changes. 2: failed parses are cached too. */
export const FLOW_CACHE_FORMAT = 2;

export type CachedFlow = Omit<Flow, 'file'>;
export type CachedProblem = Omit<Problem, 'file'>;

/** A flow, or the problems that kept the file from being one. Neither names the file: a hit adds where it was read from. */
export type CachedParse = { flow: CachedFlow } | { problems: CachedProblem[] };

export interface FlowCache {
  entries: Map<string, CachedParse>;
  changed: boolean;
}

export const cacheKey = (id: string, hash: string) => `${id}:${hash}`;

export function readFlowCache(file: string): FlowCache {
  try {
    const data = JSON.parse(readFileSync(file, 'utf8')) as { format?: number; entries?: Record<string, CachedParse> };
    if (data.format === FLOW_CACHE_FORMAT && data.entries) return { entries: new Map(Object.entries(data.entries)), changed: false };
  } catch {
    // Missing or unreadable: a cache is only ever an optimisation.
  }
  return { entries: new Map(), changed: false };
}

export function writeFlowCache(file: string, cache: FlowCache): void {
  writeFileAtomically(file, JSON.stringify({ format: FLOW_CACHE_FORMAT, entries: Object.fromEntries(cache.entries) }) + '\n');
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
