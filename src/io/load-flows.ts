/**
 * Finds the flows a repository can use — the package's built-in ones, then the
 * repository's `.autopilot/flows/*.md`, which replace built-ins of the same
 * name — and returns them parsed, from the cache when the text is unchanged.
 * A file whose name is not a flow id, or that is over the size limit, is a
 * problem naming it, and is never read or parsed.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Problem } from '../errors.js';
import { cacheKey, bytesFingerprint, fromCached, isCachedParse, toCached, type CachedParse, type FlowCache } from '../formats/flow-cache.js';
import { FLOW_ID_RULE, flowIdProblem } from '../formats/flow/ids.js';
import type { Flow } from '../formats/flow/model.js';
import { FLOW_MAX_BYTES } from '../limits.js';
import { hashText } from '../hash.js';
import { readFlowCache, writeFlowCache } from './flow-cache-file.js';
import { packageRoot } from './package-root.js';
import { readBounded } from './read-bounded.js';
import { displayPath, gatePath, isInside, realOrSelf, type Repo } from './repo.js';

export interface FlowFile {
  id: string;
  path: string;
  builtIn: boolean;
}

export interface LoadedFlows {
  /** In scan order. */
  flows: Flow[];
  problems: Problem[];
  /** The flow files that hold problems, by flow id (a run pinned to one goes on with its pinned steps). */
  invalid: { id: string; file: string; problems: Problem[] }[];
}

function markdownFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => name.endsWith('.md'))
      .sort();
  } catch {
    return [];
  }
}

export function flowFiles(repo: Repo): FlowFile[] {
  const byId = new Map<string, FlowFile>();
  const builtIns = join(packageRoot(), 'flows');
  for (const name of markdownFiles(builtIns)) byId.set(basename(name, '.md'), { id: basename(name, '.md'), path: join(builtIns, name), builtIn: true });
  for (const name of markdownFiles(repo.repoFlowsDir))
    byId.set(basename(name, '.md'), { id: basename(name, '.md'), path: join(repo.repoFlowsDir, name), builtIn: false });
  return [...byId.values()];
}

export const builtInCacheFile = () => join(packageRoot(), 'dist', 'flows.json');

/**
 * `writeCache`: keep new parses of the repository's flows for the next call.
 * Read-only commands (`status`) pass false and never write.
 */
export async function loadFlows(repo: Repo, options: { writeCache: boolean }): Promise<LoadedFlows> {
  const files = flowFiles(repo);
  const builtInCache = readFlowCache(builtInCacheFile());
  let repoCache: FlowCache | undefined;
  const flows: Flow[] = [];
  const problems: Problem[] = [];
  const invalid: LoadedFlows['invalid'] = [];
  const current = new Set<string>();

  for (const file of files) {
    const display = displayPath(file.path, repo.root);
    const badId = flowIdProblem(file.id);
    if (badId) {
      problems.push({
        file: display,
        message: `the file name is not a flow id: ${badId}`,
        expected: `a file name like \`bug-fix.md\`: ${FLOW_ID_RULE}`,
        received: basename(file.path),
      });
      continue;
    }
    // A repository's flow decides where the work stands: one behind a link out of the repository is not read.
    if (!file.builtIn && !isInside(repo.root, realOrSelf(file.path))) {
      problems.push({
        file: display,
        message: 'this flow file leads outside the repository (through a symlink); it is not read',
        expected: 'a flow file inside the repository',
        received: realOrSelf(file.path),
      });
      invalid.push({ id: file.id, file: display, problems: [problems.at(-1)!] });
      continue;
    }
    const read = readBounded(file.path, display, 'flow file', FLOW_MAX_BYTES);
    if ('problem' in read) {
      problems.push(read.problem);
      invalid.push({ id: file.id, file: display, problems: [read.problem] });
      continue;
    }
    // The package's cache keys a built-in flow by a fingerprint of its text: no node:crypto to load.
    const key = cacheKey(file.id, file.builtIn ? bytesFingerprint(read.bytes) : hashText(read.text));
    if (!file.builtIn) current.add(key);
    const cache = file.builtIn ? builtInCache : (repoCache ??= readFlowCache(repo.flowCacheFile));
    const entry = cache.entries.get(key);
    // The package's own cache (built with it) is trusted; a repository's is checked before use.
    const hit = entry !== undefined && (file.builtIn || isCachedParse(entry, file.id)) ? (entry as CachedParse) : undefined;
    // Only a flow that changed since its last parse pays for loading the Markdown parser.
    const parsed = hit ? fromCached(hit, display) : (await import('../formats/flow/parse-flow.js')).parseFlow(read.text, display, file.id);
    problems.push(...parsed.problems);
    if (parsed.problems.length > 0) invalid.push({ id: file.id, file: display, problems: parsed.problems });
    if (parsed.flow) flows.push(parsed.flow);
    if (!hit && !file.builtIn) {
      cache.entries.set(key, toCached(parsed));
      cache.changed = true;
    }
  }
  if (options.writeCache && repoCache?.changed) {
    // Keep the parses of the files as they are now: entries for older texts would only pile up.
    for (const key of repoCache.entries.keys()) if (!current.has(key)) repoCache.entries.delete(key);
    try {
      gatePath(repo, repo.flowCacheFile);
      mkdirSync(dirname(repo.flowCacheFile), { recursive: true });
      writeFlowCache(repo.flowCacheFile, repoCache);
    } catch {
      // A read-only checkout still works; it only parses again next time.
    }
  }
  flows.sort((a, b) => a.scanOrder - b.scanOrder || a.id.localeCompare(b.id));
  return { flows, problems, invalid };
}
