/**
 * `autopilot mcp` fed raw lines: a 10.5 MB call, a line that is not JSON, JSON
 * that is not JSON-RPC. Each is answered with a JSON-RPC error and the server
 * keeps serving (the SDK's own transport closed the server, exit 0, on the
 * first and stopped answering on a message just over 10 MB).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autopilot, tempRepo } from '../helpers/cli.js';
import { ROOT } from '../helpers/engine.js';

interface Reply {
  id: string | number | null;
  result?: { isError?: boolean; structuredContent?: Record<string, unknown> };
  error?: { code: number; message: string };
}

describe('autopilot mcp, fed what no client should send', () => {
  it('answers 6 of 6 bad lines with a JSON-RPC error (too large -32600 with its id first, last or in the middle, not JSON -32700, not JSON-RPC -32600), then serves the next call', async () => {
    const dir = tempRepo();
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'autopilot.js'), '-C', dir, 'mcp'], {
      env: { ...process.env, AUTOPILOT_SESSION: 'mcp-raw' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const replies: Reply[] = [];
    let buffer = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      buffer += d;
      for (let i = buffer.indexOf('\n'); i !== -1; i = buffer.indexOf('\n')) {
        replies.push(JSON.parse(buffer.slice(0, i)) as Reply);
        buffer = buffer.slice(i + 1);
      }
    });
    let exited: number | null | undefined;
    child.on('exit', (code) => (exited = code));
    const waitFor = async (id: string | number | null, count = 1) => {
      const deadline = Date.now() + 20_000;
      while (replies.filter((r) => r.id === id).length < count) {
        if (Date.now() > deadline) throw new Error(`no reply ${String(id)}: ${JSON.stringify(replies).slice(0, 400)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return replies.filter((r) => r.id === id).at(-1)!;
    };
    const send = (message: unknown) => child.stdin.write(JSON.stringify(message) + '\n');

    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await waitFor(1);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });

    // 10.5 MB of sub-step, written in pieces as a pipe delivers it.
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'substep', arguments: { text: 'x'.repeat(10_500_000) } } });
    for (let i = 0; i < huge.length; i += 1 << 20) child.stdin.write(huge.slice(i, i + (1 << 20)));
    child.stdin.write('\n');
    const tooLarge = await waitFor(7);
    expect(tooLarge.error).toMatchObject({ code: -32600, message: expect.stringMatching(/too large: \d+ bytes/) });

    // The SDK's key order: the id last, behind 10.5 MB of arguments that spell `"id":` themselves; a string id too.
    for (const [id, at] of [
      [11, 'last'],
      ['call-12', 'last'],
      [13, 'middle'],
    ] as const) {
      const args = { text: `{"id": 99, "x": "${'y'.repeat(10_500_000)}"}` };
      const message =
        at === 'last'
          ? { method: 'tools/call', params: { name: 'substep', arguments: args }, jsonrpc: '2.0', id }
          : { method: 'tools/call', id, params: { name: 'substep', arguments: args }, jsonrpc: '2.0' };
      const line = JSON.stringify(message);
      for (let i = 0; i < line.length; i += 65_536) child.stdin.write(line.slice(i, i + 65_536));
      child.stdin.write('\n');
      expect((await waitFor(id)).error, `id ${id} (${at})`).toMatchObject({ code: -32600, message: expect.stringMatching(/too large/) });
    }
    expect(replies.filter((r) => r.id === 99 || r.id === null)).toEqual([]);

    child.stdin.write('{"jsonrpc":"2.0","id":8,"method":\n');
    const notJson = await waitFor(null);
    expect(notJson.error).toMatchObject({ code: -32700, message: expect.stringMatching(/^Parse error/) });

    send({ hello: 'world', id: 'odd' });
    expect((await waitFor('odd')).error).toMatchObject({ code: -32600 });

    send({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'status', arguments: {} } });
    const status = await waitFor(9);
    expect(status.result?.structuredContent).toMatchObject({ flow: 'greenfield', step: 1 });
    expect(exited, 'still serving').toBeUndefined();

    // Nothing of the refused call was recorded.
    expect(autopilot(dir, 'status', '--json').json<{ sub_step: string }>().sub_step).toBe('0');
    child.stdin.end();
    await new Promise((resolve) => child.on('close', resolve));
  });
});
