/**
 * A new client is one file behind `Client` and one line in `CLIENTS`
 * (issue 31, point 3). This test is that file: a client that exists only
 * here, added to the list and nowhere else, and everything that serves the
 * clients picks it up — `init` sets up its files, `check` finds one an older
 * `init` wrote, `uninstall` takes them out with its folders, a commit sweeps
 * its folders, its environment variable names the session, its MCP `_meta`
 * key and its hook are told apart, and a process named as it is the
 * conversation above a command. Before it is added, none of that happens.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCheck } from '../../../src/app/views/check.js';
import { leftoverFolders } from '../../../src/app/transaction/commit.js';
import { sessionOf, type Context } from '../../../src/app/transaction/context.js';
import { runInit } from '../../../src/app/setup/init.js';
import { runUninstall } from '../../../src/app/setup/uninstall.js';
import type { Client } from '../../../src/clients/client.js';
import { ours, oursRemoved, withMcpServer, withoutMcpServer } from '../../../src/clients/config-files.js';
import { CLIENTS, hookClient, hookFields, mcpSessionOf } from '../../../src/clients/index.js';
import { conversationProcess, isAgentCommand, processInfo } from '../../../src/io/conversation.js';
import { openRepo } from '../../../src/io/repo.js';

const MARK = "Drive this repository's autopilot workflow (Fake Agent)";
const COMMAND = `${MARK}: run \`autopilot next --json\`.\n`;

/** The whole client: its process, its two files in its own folder, its ids, its hook. */
const fakeAgent: Client = {
  id: 'fake-agent',
  name: 'Fake Agent',
  processNames: ['fake-agent'],
  files: (launch) => [
    { path: '.fake-agent/commands/autopilot.md', make: ours(COMMAND, MARK), unmake: oursRemoved(COMMAND, MARK) },
    { path: '.fake-agent/mcp.json', make: (t) => withMcpServer(t, '.fake-agent/mcp.json', launch), unmake: (t) => withoutMcpServer(t, '.fake-agent/mcp.json') },
  ],
  folders: ['.fake-agent/commands', '.fake-agent'],
  sessionEnv: ['FAKE_AGENT_CONVERSATION'],
  commandEnv: ['FAKE_AGENT_CONVERSATION'],
  mcpMeta: ['fakeConversation'],
  ranHook: (fields) => fields.raw.fake_agent === true,
  instructions: "the Fake Agent's /autopilot",
};
const FILES = ['.fake-agent/commands/autopilot.md', '.fake-agent/mcp.json'];

const list = CLIENTS as Client[];
const add = () => list.push(fakeAgent);
const remove = () => list.splice(list.indexOf(fakeAgent), 1);

const made: string[] = [];
const started: ChildProcess[] = [];
afterAll(() => {
  if (list.includes(fakeAgent)) remove();
  for (const child of started) child.kill();
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const tempDir = () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'autopilot-unit-')));
  made.push(dir);
  return dir;
};
const ctx = (dir: string): Context => ({ repo: { dir }, session: 'unit', now: () => new Date() });
const fakeProblems = async (dir: string) => (await runCheck(ctx(dir))).problems.filter((p) => p.message.startsWith("Fake Agent's file"));

/** What the session, MCP and hook code make of the fake's ids. */
function idsSeen() {
  const hook = hookClient(hookFields(JSON.stringify({ session_id: 's-1', source: 'startup', fake_agent: true })), {});
  return {
    session: sessionOf(undefined, { FAKE_AGENT_CONVERSATION: 'fake-1' }).session,
    mcp: mcpSessionOf({ fakeConversation: 'fake-2' }),
    hook: hook?.id,
  };
}

/**
 * A process named as the fake's (`fake-agent`, Node under another name) that
 * starts a child of its own, as a client's shell tool does; the child's pid.
 */
async function fakeAgentProcess(): Promise<{ agent: number; child: number }> {
  const link = join(tempDir(), 'fake-agent');
  symlinkSync(process.execPath, link);
  const agent = spawn(
    link,
    [
      '-e',
      "const c = require('node:child_process').spawn('sleep', ['60'], { stdio: 'ignore' }); console.log(c.pid); process.on('SIGTERM', () => { c.kill(); process.exit(0); });",
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  started.push(agent);
  const child = await new Promise<number>((resolve, reject) => {
    agent.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    agent.once('exit', () => reject(new Error('the fake agent exited')));
  });
  return { agent: agent.pid!, child };
}

describe('a fake client, added to the list in this test and nowhere else', () => {
  it('before it is added: 0 of its 2 files set up, its 3 ids not read; after: 2 files, 3 ids', async () => {
    const before = tempDir();
    const r0 = await runInit(ctx(before), undefined);
    expect(r0.files.filter((f) => FILES.includes(f.path))).toEqual([]);
    expect(idsSeen()).toEqual({ session: 'local', mcp: undefined, hook: undefined });

    add();
    try {
      const dir = tempDir();
      const r = await runInit(ctx(dir), undefined);
      expect(r.created.filter((f) => FILES.includes(f)).sort()).toEqual([...FILES].sort());
      expect(readFileSync(join(dir, FILES[0]!), 'utf8')).toBe(COMMAND);
      expect(JSON.parse(readFileSync(join(dir, FILES[1]!), 'utf8'))).toMatchObject({ mcpServers: { autopilot: { command: expect.any(String) } } });
      expect(idsSeen()).toEqual({ session: 'fake-1', mcp: 'fake-2', hook: 'fake-agent' });
    } finally {
      remove();
    }
  });

  it('check finds its 1 file an older init wrote; uninstall removes its 2 files and 2 folders; a commit sweeps its 2 folders', async () => {
    add();
    try {
      const dir = tempDir();
      await runInit(ctx(dir), undefined);
      expect(await fakeProblems(dir)).toEqual([]);
      writeFileSync(join(dir, FILES[0]!), `${MARK}: an older text.\n`);
      expect((await fakeProblems(dir)).map((p) => p.file)).toEqual([FILES[0]]);

      const folders = new Set(leftoverFolders(openRepo({ dir })));
      expect(fakeAgent.folders.filter((f) => folders.has(join(dir, f)))).toHaveLength(2);

      writeFileSync(join(dir, FILES[0]!), COMMAND);
      const r = await runUninstall(ctx(dir));
      expect(r.files.filter((f) => FILES.includes(f.path)).map((f) => f.action)).toEqual(['removed', 'removed']);
      expect(existsSync(join(dir, '.fake-agent'))).toBe(false);
    } finally {
      remove();
    }
  });

  it('uninstall without it leaves its folder as it is (the control)', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, '.fake-agent', 'commands'), { recursive: true });
    await runInit(ctx(dir), undefined);
    await runUninstall(ctx(dir));
    expect(existsSync(join(dir, '.fake-agent', 'commands'))).toBe(true);
  });

  it.skipIf(process.platform !== 'linux' && process.platform !== 'darwin')(
    'a command below a process named as it belongs to that conversation: found once added, not before',
    async () => {
      const { agent, child } = await fakeAgentProcess();
      const info = processInfo(agent);
      expect(info && info !== 'gone' ? isAgentCommand(info.argv) : 'no process').toBe(false);
      // Its environment variable says a client ran the command: with no client found above, nothing stands in.
      const env = { FAKE_AGENT_CONVERSATION: 'fake-1' };
      expect(conversationProcess('cli', env, child)?.pid).not.toBe(agent);
      add();
      try {
        expect(info && info !== 'gone' && isAgentCommand(info.argv)).toBe(true);
        expect(conversationProcess('cli', env, child)?.pid).toBe(agent);
      } finally {
        remove();
      }
    },
  );
});
