/** Reads and writes a flow cache file (its format: `formats/flow-cache.ts`). */
import { FLOW_CACHE_MAX_BYTES } from '../limits.js';
import { parseFlowCache, serializeFlowCache, type FlowCache } from '../formats/flow-cache.js';
import { writeFileAtomically } from './atomic-write.js';
import { readBounded } from './read-bounded.js';

/** The cache `file` holds; an empty one when it is missing, unreadable, not a file, past the limit or not a cache: it is only ever an optimisation, and the next write starts it afresh. */
export function readFlowCache(file: string): FlowCache {
  const read = readBounded(file, file, 'flow cache', FLOW_CACHE_MAX_BYTES);
  const parsed = 'text' in read ? parseFlowCache(read.text, file) : undefined;
  return parsed && 'cache' in parsed ? parsed.cache : { entries: new Map(), changed: false };
}

/** Not fsynced: a cache lost to a power cut is only parsed again. */
export function writeFlowCache(file: string, cache: FlowCache): void {
  writeFileAtomically(file, serializeFlowCache(cache), { fsync: false });
}
