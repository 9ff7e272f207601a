#!/usr/bin/env node
/*
 * The published entry point: CommonJS, so a call never starts Node's ES module loader, and the
 * bundled CLI (dist/cli.cjs) run from V8's code cache, kept where Node keeps its compile cache
 * (never in the repository); a stale or broken cache is rejected and written again
 * (docs/architecture.md, "Start-up"; NODE_DISABLE_COMPILE_CACHE=1 turns it off).
 */
'use strict';
const { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } = require('node:fs');
const module_ = require('node:module');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');
const { Script } = require('node:vm');

// Node 22 and later keep the lazily imported bundles compiled too.
module_.enableCompileCache?.();

const file = join(__dirname, '..', 'dist', 'cli.cjs');
let source;
let stat;
try {
  source = readFileSync(file, 'utf8');
  stat = statSync(file);
} catch {
  process.stderr.write('autopilot: dist/cli.cjs is missing; run `npm run build` in the autopilot folder first.\n');
  process.exit(1);
}
const url = pathToFileURL(file).href;

// V8 checks a cache against the source's length only: the name carries what else tells one bundle from another.
const off = process.env.NODE_DISABLE_COMPILE_CACHE === '1';
const folder = join(process.env.NODE_COMPILE_CACHE || join(tmpdir(), 'node-compile-cache'), 'autopilot');
const cacheFile = join(folder, `cli-${process.version}-${process.arch}-${stat.size}-${Math.trunc(stat.mtimeMs)}.v8`);
let cachedData;
if (!off) {
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // No cache yet.
  }
}

// The bundle is compiled as a function of what a CommonJS module has, plus the
// two things an ES module would: its URL, and import() for the lazy bundles.
const script = new Script(`(function (require, module, exports, __filename, __dirname, __apUrl, __apImport) {${source}\n})`, {
  filename: file,
  cachedData,
});
const exports_ = {};
script.runInThisContext()(
  module_.createRequire(file),
  { exports: exports_ },
  exports_,
  file,
  join(__dirname, '..', 'dist'),
  url,
  (spec) => import(new URL(spec, url).href),
);

if (!off && (cachedData === undefined || script.cachedDataRejected)) {
  // Written once the command is done (the CLI ends with process.exit: 'exit', not 'beforeExit'), so the
  // functions it ran are in the cache too.
  process.once('exit', () => {
    const temp = `${cacheFile}.${process.pid}.tmp`;
    try {
      mkdirSync(folder, { recursive: true });
      writeFileSync(temp, script.createCachedData());
      renameSync(temp, cacheFile);
    } catch {
      // A read-only or full temporary folder, or no folder at all: the next call compiles again.
      try {
        rmSync(temp, { force: true });
      } catch {
        // Nothing was written there either.
      }
    }
  });
}
