/**
 * What tells a conversation's process has ended (docs/sessions.md): a pid no
 * process has, a reused pid, a zombie; and who cannot tell at all, a command
 * a client ran in a sandbox of its own PID namespace.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { conversationGone, processInfo, seesOtherProcesses } from '../../../src/io/conversation.js';

const state = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
};

describe.skipIf(process.platform !== 'linux')('a process that has ended', () => {
  it('a zombie is gone: a client killed with its parent stays one until pid 1 reaps it', async () => {
    // `sleep 0` ends at once; its parent, exec'd into `sleep 5`, never reaps it.
    const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 5'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = await new Promise<number>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim()))));
      for (let i = 0; i < 100 && state(pid) !== 'Z'; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(state(pid)).toBe('Z');
      expect(processInfo(pid)).toBe('gone');
      expect(conversationGone({ pid, start: '1' })).toBe(true);
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('a running process is not gone; the same pid with another start time is', () => {
    const me = processInfo(process.pid);
    if (me === undefined || me === 'gone') throw new Error('this process cannot be read');
    expect(conversationGone({ pid: me.pid, start: me.start })).toBe(false);
    expect(conversationGone({ pid: me.pid, start: `${me.start}0` })).toBe(true);
  });
});

describe('who can tell', () => {
  it('not a command a client ran that sees no client above it (a sandbox of its own PID namespace); everyone else', () => {
    const ref = { pid: 42, start: '7' };
    expect(seesOtherProcesses('cli', undefined, { CODEX_THREAD_ID: 'thread' })).toBe(false);
    expect(seesOtherProcesses('cli', ref, { CODEX_THREAD_ID: 'thread' })).toBe(true);
    expect(seesOtherProcesses('cli', undefined, {})).toBe(true);
    expect(seesOtherProcesses('server', undefined, { CODEX_THREAD_ID: 'thread' })).toBe(true);
  });
});
