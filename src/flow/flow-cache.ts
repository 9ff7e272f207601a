/**
 * Parsed flows kept as JSON, keyed by flow id and the sha1 of the file's
 * text, so a cache entry can never be stale: a changed file has a new key.
 * The package ships one for its built-in flows (`dist/flows.json`, made by
 * the build); a repository's own flows are cached in `_docs/_autopilot/cache/`.
 */
import { readFileSync } from 'node:fs';
import { writeFileAtomically } from '../io/atomic-write.js';
import type { Flow } from './model.js';

/** Bump when the Flow shape or the parser's reading of a file changes. */
export const FLOW_CACHE_FORMAT = 1;

export type CachedFlow = Omit<Flow, 'file'>;

export interface FlowCache {
  entries: Map<string, CachedFlow>;
  changed: boolean;
}

export const cacheKey = (id: string, hash: string) => `${id}:${hash}`;

export function readFlowCache(file: string): FlowCache {
  try {
    const data = JSON.parse(readFileSync(file, 'utf8')) as { format?: number; entries?: Record<string, CachedFlow> };
    if (data.format === FLOW_CACHE_FORMAT && data.entries) return { entries: new Map(Object.entries(data.entries)), changed: false };
  } catch {
    // Missing or unreadable: a cache is only ever an optimisation.
  }
  return { entries: new Map(), changed: false };
}

export function writeFlowCache(file: string, cache: FlowCache): void {
  writeFileAtomically(file, JSON.stringify({ format: FLOW_CACHE_FORMAT, entries: Object.fromEntries(cache.entries) }) + '\n', { fsync: false });
}

export function toCached(flow: Flow): CachedFlow {
  const { file: _file, ...rest } = flow;
  return rest;
}
