/**
 * The CLI runs from V8's code cache (bin/autopilot.js): the cache lives in
 * Node's compile-cache folder, never in the repository, and a cache that is
 * broken, from another build or unwritable changes nothing but the time.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

const status = (repo: string, cache: string) =>
  spawnSync(process.execPath, [BIN, '-C', repo, 'status', '--json'], {
    encoding: 'utf8',
    env: { ...process.env, AUTOPILOT_SESSION: '', NODE_COMPILE_CACHE: cache, NODE_DISABLE_COMPILE_CACHE: '' },
  });

const cacheFiles = (cache: string) => readdirSync(join(cache, 'autopilot')).filter((name) => name.endsWith('.v8'));

describe('the code cache', () => {
  it('is written in the compile-cache folder, not the repository; a broken one, a foreign one and one that cannot be written give the same answer', () => {
    const repo = exampleCopy();
    const cache = cacheFolder();
    const before = snapshot(repo);
    const first = status(repo, cache);
    expect(first.status, first.stderr).toBe(0);
    const [file] = cacheFiles(cache);
    expect(file).toMatch(/^cli-v\d+\.\d+\.\d+-[a-z0-9]+-\d+-\d+\.v8$/);
    expect(snapshot(repo)).toEqual(before);
    const good = readFileSync(join(cache, 'autopilot', file!));
    expect(good.length).toBeGreaterThan(1000);

    // Broken: garbage of the same name; V8 rejects it, the call answers alike and writes a good one again.
    writeFileSync(join(cache, 'autopilot', file!), 'not a code cache');
    const broken = status(repo, cache);
    expect(broken.status, broken.stderr).toBe(0);
    expect(broken.stdout).toBe(first.stdout);
    expect(broken.stderr).toBe('');
    expect(readFileSync(join(cache, 'autopilot', file!)).length).toBeGreaterThan(1000);

    // Foreign: another build's cache under this name (a cache of a different script).
    const other = spawnSync(process.execPath, ['-e', "process.stdout.write(new (require('node:vm').Script)('1+1').createCachedData())"]);
    writeFileSync(join(cache, 'autopilot', file!), other.stdout);
    const foreign = status(repo, cache);
    expect([foreign.status, foreign.stdout, foreign.stderr]).toEqual([0, first.stdout, '']);

    // Unwritable: the cache path is a file (no folder can be made there, not even by root); the call compiles and answers.
    const blocked = join(cacheFolder(), 'a-file');
    writeFileSync(blocked, 'in the way');
    const unwritable = status(repo, blocked);
    expect([unwritable.status, unwritable.stdout, unwritable.stderr]).toEqual([0, first.stdout, '']);
    expect(readFileSync(blocked, 'utf8')).toBe('in the way');
    expect(snapshot(repo)).toEqual(before);
  });
});
