/**
 * The CLI runs from V8's code cache (bin/autopilot.js): the cache lives in
 * Node's compile-cache folder, never in the repository, one file an install
 * and command (a call deserialises only what its command compiled); a file
 * two commands share grows by each it has not seen run, and a cache that is
 * broken, from another build or unwritable changes nothing but the time.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/engine.js';
import { exampleCopy, snapshot } from '../helpers/cli.js';

const BIN = join(ROOT, 'bin', 'autopilot.js');
const caches: string[] = [];
afterEach(() => {
  for (const dir of caches.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function cacheFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'autopilot-cache-'));
  caches.push(dir);
  return dir;
}

const run = (repo: string, cache: string, command: string, dir = repo) =>
  spawnSync(process.execPath, [BIN, '-C', dir, command, '--json'], {
    cwd: repo,
    encoding: 'utf8',
    env: { ...process.env, AUTOPILOT_SESSION: '', NODE_COMPILE_CACHE: cache, NODE_DISABLE_COMPILE_CACHE: '' },
  });
const status = (repo: string, cache: string) => run(repo, cache, 'status');

const cacheFiles = (cache: string) => readdirSync(join(cache, 'autopilot')).filter((name) => name.endsWith('.v8'));
/** The cache's first line: `autopilot-code-cache-1 <bundle size>-<bundle mtime> <commands seen>`. */
const headerOf = (path: string) => readFileSync(path, 'latin1').split('\n', 1)[0]!.split(' ');

describe('the code cache', () => {
  it('is written in the compile-cache folder, not the repository; a broken one, a foreign one and one that cannot be written give the same answer', () => {
    const repo = exampleCopy();
    const cache = cacheFolder();
    const before = snapshot(repo);
    const first = status(repo, cache);
    expect(first.status, first.stderr).toBe(0);
    const [file] = cacheFiles(cache);
    expect(file).toMatch(/^cli-[0-9a-f]{8}-v\d+\.\d+\.\d+-[a-z0-9]+-status\.v8$/);
    expect(snapshot(repo)).toEqual(before);
    const path = join(cache, 'autopilot', file!);
    const good = readFileSync(path);
    expect(good.length).toBeGreaterThan(1000);

    // Broken: garbage of the same name; it is not taken for a cache, the call answers alike and writes a good one again.
    writeFileSync(path, 'not a code cache');
    const broken = status(repo, cache);
    expect(broken.status, broken.stderr).toBe(0);
    expect(broken.stdout).toBe(first.stdout);
    expect(broken.stderr).toBe('');
    expect(readFileSync(path).length).toBeGreaterThan(1000);

    // Foreign: a cache of a different script under this build's header; V8 rejects it and the call writes its own.
    const other = spawnSync(process.execPath, ['-e', "process.stdout.write(new (require('node:vm').Script)('1+1').createCachedData())"]);
    const header = `${headerOf(path).join(' ')}\n`;
    writeFileSync(path, Buffer.concat([Buffer.from(header), other.stdout]));
    const foreign = status(repo, cache);
    expect([foreign.status, foreign.stdout, foreign.stderr]).toEqual([0, first.stdout, '']);
    expect(readFileSync(path).length).toBeGreaterThan(1000);

    // Unwritable: the cache path is a file (no folder can be made there, not even by root); the call compiles and answers.
    const blocked = join(cacheFolder(), 'a-file');
    writeFileSync(blocked, 'in the way');
    const unwritable = status(repo, blocked);
    expect([unwritable.status, unwritable.stdout, unwritable.stderr]).toEqual([0, first.stdout, '']);
    expect(readFileSync(blocked, 'utf8')).toBe('in the way');
    expect(snapshot(repo)).toEqual(before);
  });

  it('keeps one file a command (2 commands, 2 files), left alone by a command it has seen; a file two commands share grows by each; another build replaces it', () => {
    const repo = exampleCopy();
    const cache = cacheFolder();
    expect(status(repo, cache).status).toBe(0);
    const [file] = cacheFiles(cache);
    const path = join(cache, 'autopilot', file!);
    const [magic, build, seen] = headerOf(path);
    expect([magic, seen]).toEqual(['autopilot-code-cache-1', 'status']);
    const afterStatus = readFileSync(path);

    // Seen: the same command again writes nothing.
    expect(status(repo, cache).status).toBe(0);
    expect(readFileSync(path).equals(afterStatus)).toBe(true);

    // Another command: `check` keeps its own functions in a file of its own; `status`'s is left as it was.
    const checked = run(repo, cache, 'check');
    expect(checked.status, checked.stderr).toBe(0);
    expect(cacheFiles(cache).sort()).toEqual([file!.replace(/-status\.v8$/, '-check.v8'), file].sort());
    expect(readFileSync(path).equals(afterStatus)).toBe(true);
    const checkPath = join(cache, 'autopilot', file!.replace(/-status\.v8$/, '-check.v8'));
    expect(headerOf(checkPath)).toEqual(['autopilot-code-cache-1', build, 'check']);

    // Shared: a folder named `check` given to `status` (`-C check status`) keys the call as `check`; the file grows by `status`'s functions.
    mkdirSync(join(repo, 'check'));
    cpSync(join(repo, '_docs'), join(repo, 'check', '_docs'), { recursive: true });
    const afterCheck = readFileSync(checkPath);
    const shared = run(repo, cache, 'status', 'check');
    expect(shared.status, shared.stderr).toBe(0);
    expect(headerOf(checkPath)).toEqual(['autopilot-code-cache-1', build, 'check,status']);
    expect(readFileSync(checkPath).length).toBeGreaterThan(afterCheck.length);

    // Another build (an upgrade, a rebuild): its cache is written over, under the same name, with this build's commands only.
    writeFileSync(path, Buffer.concat([Buffer.from('autopilot-code-cache-1 1-1 status,check,next\n'), afterStatus.subarray(afterStatus.indexOf(10) + 1)]));
    expect(status(repo, cache).status).toBe(0);
    expect(cacheFiles(cache)).toHaveLength(2);
    expect(headerOf(path)).toEqual(['autopilot-code-cache-1', build, 'status']);
  });
});
