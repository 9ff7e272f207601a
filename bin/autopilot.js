#!/usr/bin/env node
/*
 * The published entry point: CommonJS, so a call never starts Node's ES module loader, and the
 * bundled CLI (dist/cli.cjs) run from V8's code cache, kept where Node keeps its compile cache
 * (never in the repository); a stale or broken cache is rejected and written again, and a
 * command the cache has not seen run adds its functions (docs/architecture.md, "Start-up";
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off).
 */
'use strict';
const { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } = require('node:fs');
const module_ = require('node:module');
const { tmpdir } = require('node:os');
const { dirname, join } = require('node:path');
const { pathToFileURL } = require('node:url');
const { Script } = require('node:vm');

// Node 22 and later keep the lazily imported bundles compiled too.
module_.enableCompileCache?.();

const dist = join(__dirname, '..', 'dist');
const file = join(dist, 'cli.cjs');
const url = pathToFileURL(file).href;

// One cache file per bundle, install, Node version and command; its first line names the bundle and the commands it has
// seen run (docs/architecture.md, "Start-up", says why per command).
const CACHE_MAGIC = 'autopilot-code-cache-1';
const COMMAND_NAMES = new Set(
  'status runs next substep done fail skip exec decide ack adopt mcp hook init uninstall breadcrumb report lease repin checkpoint checkpoints restore reset check log'.split(
    ' ',
  ),
);
const cacheKey = process.argv.slice(2).find((word) => COMMAND_NAMES.has(word)) ?? 'other';
const off = process.env.NODE_DISABLE_COMPILE_CACHE === '1';
const folder = join(process.env.NODE_COMPILE_CACHE || join(tmpdir(), 'node-compile-cache'), 'autopilot');
const bundle = { exports: {} };

/**
 * Runs a CommonJS bundle from V8's code cache: compiled as a function of `params`, called with `args`. The cache is
 * read here and written at exit when the bundle or the command is new to it. Undefined when the bundle is missing.
 */
function runCached(path, name, params, args) {
  let source;
  let stat;
  try {
    // The build keeps the bundles ASCII: read as Latin-1, each becomes a one-byte string with no UTF-8 decoding.
    source = readFileSync(path, 'latin1');
    stat = statSync(path);
  } catch {
    return undefined;
  }
  const cacheFile = join(folder, `${name}-${installId(path)}-${process.version}-${process.arch}-${cacheKey}.v8`);
  const build = `${stat.size}-${Math.trunc(stat.mtimeMs)}`;
  let cached;
  if (!off) {
    try {
      const bytes = readFileSync(cacheFile);
      const end = bytes.indexOf(10);
      const [magic, madeFrom, seen] = bytes.toString('latin1', 0, Math.max(end, 0)).split(' ');
      if (end > 0 && magic === CACHE_MAGIC && madeFrom === build) cached = { seen: seen ? seen.split(',') : [], data: bytes.subarray(end + 1) };
    } catch {
      // No cache yet.
    }
  }
  const script = new Script(`(function (${params.join(', ')}) {${source}\n})`, { filename: path, cachedData: cached?.data });
  if (!off) process.once('exit', () => writeCache(script, cached, cacheFile, build));
  script.runInThisContext()(...args);
  return true;
}

/** At exit (the CLI ends with process.exit: 'exit', not 'beforeExit'), once the command's functions are compiled. */
function writeCache(script, cached, cacheFile, build) {
  const command = bundle.exports.commandRun;
  const fresh = cached === undefined || script.cachedDataRejected;
  if (!fresh && (command === undefined || cached.seen.includes(command))) return;
  const seen = [...(fresh ? [] : cached.seen), ...(command === undefined ? [] : [command])];
  const temp = `${cacheFile}.${process.pid}.tmp`;
  try {
    mkdirSync(folder, { recursive: true });
    writeFileSync(temp, Buffer.concat([Buffer.from(`${CACHE_MAGIC} ${build} ${seen.join(',')}\n`, 'latin1'), script.createCachedData()]));
    renameSync(temp, cacheFile);
  } catch {
    // A read-only or full temporary folder, or no folder at all: the next call compiles again.
    try {
      rmSync(temp, { force: true });
    } catch {
      // Nothing was written there either.
    }
  }
}

/** The lazy bundles, by their path under dist/: a CommonJS one (the git layer) runs from the code cache, once; the others are ES modules. */
const lazy = new Map();
function lazyImport(spec) {
  if (!spec.endsWith('.cjs')) return import(new URL(spec, url).href);
  if (!lazy.has(spec)) {
    const path = join(dist, spec);
    const module = { exports: {} };
    const found = runCached(
      path,
      spec.replace(/^.*\//, '').replace(/\.cjs$/, ''),
      ['require', 'module', 'exports', '__filename', '__dirname'],
      [module_.createRequire(path), module, module.exports, path, dirname(path)],
    );
    lazy.set(
      spec,
      found
        ? Promise.resolve(module.exports)
        : Promise.reject(new Error(`autopilot: dist/${spec.slice(2)} is missing; run \`npm run build\` in the autopilot folder.`)),
    );
  }
  return lazy.get(spec);
}

// The CLI is compiled as a function of what a CommonJS module has, plus the
// two things an ES module would: its URL, and import() for the lazy bundles.
const ran = runCached(
  file,
  'cli',
  ['require', 'module', 'exports', '__filename', '__dirname', '__apUrl', '__apImport'],
  [module_.createRequire(file), bundle, bundle.exports, file, dist, url, lazyImport],
);
if (!ran) {
  process.stderr.write('autopilot: dist/cli.cjs is missing; run `npm run build` in the autopilot folder first.\n');
  process.exit(1);
}

/** A short name for where this install lives (FNV-1a of the bundle's path): two installs keep two caches. */
function installId(path) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) hash = Math.imul(hash ^ path.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}
