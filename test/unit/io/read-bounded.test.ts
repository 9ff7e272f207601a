import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkFile, readBounded } from '../../../src/io/read-bounded.js';
import { formatBytes } from '../../../src/limits.js';

const base = mkdtempSync(join(tmpdir(), 'autopilot-read-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const put = (name: string, text: string) => {
  writeFileSync(join(base, name), text);
  return join(base, name);
};

describe('readBounded', () => {
  it('reads a regular file within the limit, as UTF-8', () => {
    expect(readBounded(put('ok.md', 'é\n'), 'ok.md', 'flow file', 3)).toEqual({ text: 'é\n', bytes: Buffer.from('é\n') });
  });

  it('refuses a file over the limit before reading it, naming the file, the limit and the size', () => {
    expect(readBounded(put('big.md', 'x'.repeat(2049)), 'big.md', 'flow file', 2048)).toEqual({
      problem: { file: 'big.md', message: 'the flow file is 2 KB, over the limit of 2 KB', expected: 'a flow file of at most 2 KB', received: '2049 bytes' },
    });
  });

  it('refuses a folder, and what is missing, as problems', () => {
    mkdirSync(join(base, 'folder.md'));
    expect(readBounded(join(base, 'folder.md'), 'folder.md', 'flow file', 10)).toMatchObject({
      problem: { message: 'the flow file is not a regular file', received: 'a folder' },
    });
    expect(readBounded(join(base, 'missing.md'), 'missing.md', 'flow file', 10)).toMatchObject({ problem: { received: 'ENOENT' } });
  });

  it.skipIf(process.platform === 'win32')('refuses a named pipe without waiting for a writer', () => {
    const fifo = join(base, 'pipe.md');
    if (spawnSync('mkfifo', [fifo]).status !== 0) return;
    expect(readBounded(fifo, 'pipe.md', 'flow file', 10)).toMatchObject({ problem: { received: 'a named pipe' } });
    expect(checkFile(fifo, 'pipe.md', 'skill file', 10)).toMatchObject({ received: 'a named pipe' });
  });
});

describe('checkFile', () => {
  it('judges with one stat: within the limit, over it', () => {
    expect(checkFile(put('skill.md', 'x'.repeat(10)), 'skill.md', 'skill file', 10)).toBeUndefined();
    expect(checkFile(put('huge.md', 'x'.repeat(11)), 'huge.md', 'skill file', 10)).toMatchObject({
      message: 'the skill file is 11 bytes, over the limit of 10 bytes',
    });
  });
});

it('formatBytes: bytes, KB, MB', () => {
  expect([formatBytes(10), formatBytes(32 * 1024), formatBytes(366_914), formatBytes(5 * 1024 * 1024)]).toEqual(['10 bytes', '32 KB', '358.3 KB', '5 MB']);
});
