/** Build step: parse the built-in flows once and ship the result, so the CLI never loads the parser for them. */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { formatProblem } from '../errors.js';
import { cacheKey, bytesFingerprint, toCached, type FlowCache } from '../formats/flow-cache.js';
import { parseFlow } from '../formats/flow/parse-flow.js';
import { writeFlowCache } from '../io/flow-cache-file.js';
import { builtInCacheFile } from '../io/load-flows.js';
import { packageRoot } from '../io/package-root.js';

const dir = join(packageRoot(), 'flows');
const cache: FlowCache = { entries: new Map(), changed: true };
let failed = false;
for (const name of readdirSync(dir).filter((n) => n.endsWith('.md'))) {
  const bytes = readFileSync(join(dir, name));
  const text = bytes.toString('utf8');
  const id = basename(name, '.md');
  const parsed = parseFlow(text, `flows/${name}`, id);
  for (const problem of parsed.problems) console.error(formatProblem(problem));
  if (parsed.flow) cache.entries.set(cacheKey(id, bytesFingerprint(bytes)), toCached(parsed));
  else failed = true;
}
if (failed) process.exit(1);
const target = process.argv[2] ?? builtInCacheFile();
writeFlowCache(target, cache);
console.log(`flows.json: ${cache.entries.size} built-in flows pre-parsed`);
