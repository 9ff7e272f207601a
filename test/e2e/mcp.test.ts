/**
 * `autopilot mcp`, the real built process, driven through the MCP SDK's own
 * client: the whole greenfield flow with its decision, its session boundary
 * and the retry rule. The client validates every structured result against
 * the tool's declared output schema, so a call that returns is a call that
 * matched it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { autopilot, tempRepo, write, writeArtifacts, type NextJson } from '../helpers/cli.js';
import { ROOT } from '../helpers/engine.js';
import { snakeCase } from '../../src/commands/command.js';
import { COMMANDS, type AnyCommand } from '../../src/commands/index.js';

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

async function connect(dir: string, session = 'mcp-test'): Promise<Client> {
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(ROOT, 'bin', 'autopilot.js'), '-C', dir, 'mcp'],
    env: { ...env, AUTOPILOT_SESSION: session },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'autopilot-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

interface Answer {
  json: NextJson & Record<string, unknown>;
  isError: boolean;
  text: string;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Answer> {
  const r = await client.callTool({ name, arguments: args });
  const content = r.content as { type: string; text: string }[];
  const text = content[0]!.text;
  // Said once: an answer is its structured content, beside the answer in a few lines of text (never the terminal's
  // box); a tool error is its text alone: the code and a line, then the CLI's JSON on a line of its own.
  if (r.isError) {
    expect(r.structuredContent).toBeUndefined();
    expect(text.split('\n')).toHaveLength(2);
  } else {
    expect(text.split('\n').length).toBeLessThanOrEqual(12);
    expect(text).not.toContain('═');
  }
  const json = (r.structuredContent ?? JSON.parse(text.slice(text.lastIndexOf('\n') + 1))) as Answer['json'];
  return { json, isError: r.isError === true, text };
}

describe('autopilot mcp', () => {
  it('lists a tool for every command the registry exposes, with the CLI options an agent may use, in about 320 bytes a tool', async () => {
    const client = await connect(tempRepo());
    const { tools } = await client.listTools();
    const exposed = COMMANDS.filter((c) => 'tool' in c.mcp);
    expect(tools.map((t) => t.name)).toEqual(exposed.map((c) => c.name));
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['status', 'next', 'substep', 'done', 'fail', 'skip', 'log', 'check']));
    // What only a person decides is no tool (rule 10): the agent asks, the person answers at a shell.
    expect(tools.filter((t) => COMMANDS.some((c) => c.name === t.name && 'person' in c && c.person))).toEqual([]);
    for (const command of COMMANDS) {
      if (!('tool' in command.mcp)) {
        expect(command.mcp.omitted, `${command.name} says why it is not a tool`).toMatch(/\w+ \w+ \w+/);
        continue;
      }
      const tool = tools.find((t) => t.name === command.name)!;
      expect(tool.outputSchema, tool.name).toBeDefined();
      const runnable = command as AnyCommand;
      const keys = Object.keys(tool.inputSchema.properties ?? {});
      const asks = !runnable.readOnly || runnable.name === 'status';
      const expected = [
        'run',
        ...(asks ? ['session'] : []),
        ...[...(runnable.arguments ?? []), ...(runnable.options ?? []).filter((o) => !o.notOnMcp)].map((o) => snakeCase(o.key)),
      ];
      expect(keys.sort(), command.name).toEqual(expected.sort());
      // A tool that only reads says so: Codex runs it without asking for an approval.
      expect(tool.annotations?.readOnlyHint === true, command.name).toBe(runnable.readOnly === true);
    }
    const size = Buffer.byteLength(JSON.stringify(tools));
    console.log(`MCP tool list: ${tools.length} tools, ${size} bytes`);
    // Every tool takes `run` (rule 12): 24 bytes a tool of the budget's 340.
    expect(size / tools.length).toBeLessThan(340);
    expect(size).toBeLessThan(6 * 1024);
  });

  it("walks greenfield: a decision, the session boundary, three failures and ack (the person's answers at a shell); answers equal the CLI", async () => {
    const dir = tempRepo();
    const client = await connect(dir);

    const work = async (step: number, name: string) => {
      const n = await call(client, 'next');
      expect(n.json).toMatchObject({ step, name, outcome: 'work' });
      // The text: where the work stands, the skill, what finishes the step.
      const lines = n.text.split('\n');
      expect(lines[0]).toMatch(new RegExp(`^Step ${step} of 10 · ${name} \\(greenfield\\): \\w+ · work \\((start|resume)\\)$`));
      expect(lines).toContain(`Read: ${n.json.skill!}`);
      expect(lines).toContain(`Done when: ${n.json.done_when!.join(', ')}`);
      writeArtifacts(dir, n.json.done_when!);
      return call(client, 'done', { step });
    };

    // 1 Problem: done without the files is a tool error in the CLI's shape.
    const first = await call(client, 'next');
    expect(first.json).toMatchObject({ flow: 'greenfield', step: 1, action: 'start', skill: 'skills/problem/SKILL.md' });
    const early = await call(client, 'done');
    expect(early.isError).toBe(true);
    expect(early.text).toMatch(/^refused: /);
    expect(early.json).toMatchObject({ outcome: 'refused', error: { code: 'refused' } });
    writeArtifacts(dir, first.json.done_when!);
    expect((await call(client, 'done')).json).toMatchObject({ outcome: 'advanced', step: 2 });

    // 2 Research: the decision, answered B.
    const research = await work(2, 'Research');
    expect(research.isError).toBe(false);
    expect(research.json.decision).toMatchObject({ id: 'research-round', recommendation: { option: 'B' } });
    // A client that shows only text reads the question, both options, the recommendation and who answers.
    expect(research.text.split('\n')).toEqual([
      '✓ Completed step 2 Research.',
      'Step 2 of 10 · Research (greenfield): completed · decision',
      'Question: Research is done — another round, or on to Plan?',
      '  A) Another research round, aimed at the questions the drafts left open',
      '  B) Go on to Plan with the drafts as they are',
      'Recommended: B — a second round pays only when a draft names an open question that would change the plan.',
      'Answer: ask the person: only they answer (autopilot decide <A|B>); never answer it yourself',
    ]);
    const again = await call(client, 'next');
    expect(again.text.split('\n').slice(0, 2)).toEqual([
      'Step 2 of 10 · Research (greenfield): completed · decision',
      'Question: Research is done — another round, or on to Plan?',
    ]);
    expect(autopilot(dir, 'decide', 'B', '--json').json()).toMatchObject({ outcome: 'advanced', step: 3 });

    // 3 Plan (4 passed over), 5 Decompose: the boundary, answered B.
    expect((await work(3, 'Plan')).json).toMatchObject({ step: 5 });
    const decompose = await work(5, 'Decompose');
    expect(decompose.json).toMatchObject({ outcome: 'boundary', boundary: { after: { step: 5 }, decision: { recommendation: { option: 'A' } } } });
    expect(autopilot(dir, 'decide', 'B', '--json').json()).toMatchObject({ outcome: 'advanced', step: 6 });
    expect((await work(6, 'Implement')).json).toMatchObject({ step: 7 });

    // 7 Run Tests: failed three times, then a person's ack.
    expect((await call(client, 'next')).json.step).toBe(7);
    for (const retries of [1, 2]) {
      expect((await call(client, 'fail', { reason: 'red', step: 7 })).json).toMatchObject({ retry_count: retries });
      expect((await call(client, 'next')).json).toMatchObject({ action: 'retry' });
    }
    const third = await call(client, 'fail', { reason: 'still red', step: 7 });
    expect(third.text.split('\n')[0]).toMatch(/^(✓ .*|Step 7 of 10 · Run Tests \(greenfield\): failed · failed)$/);
    expect(third.text).toContain('Step 7 of 10 · Run Tests (greenfield): failed · failed');
    expect(third).toMatchObject({ isError: false, json: { outcome: 'failed', status: 'failed', retry_count: 3 } });
    expect((await call(client, 'next')).json.outcome).toBe('failed');
    expect(autopilot(dir, 'ack', '--json').json()).toMatchObject({ status: 'not_started', retry_count: 0 });

    // Bad arguments: a tool error whose text starts with its code and carries the CLI's error shape.
    const bad = await call(client, 'fail', {});
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/^bad_input: /);
    expect(bad.json).toMatchObject({ error: { code: 'bad_input' } });
    expect(bad.json.error!.message).toContain('reason');

    // The same call through the CLI gives the same object (the lease's age aside, a clock reading).
    const viaMcp = (await call(client, 'status')).json as { lease?: { age?: string } };
    const viaCli = autopilot(dir, 'status', '--json', '--session', 'mcp-test').json<{ lease?: { age?: string } }>();
    delete viaMcp.lease?.age;
    delete viaCli.lease?.age;
    expect(viaMcp).toEqual(viaCli);
    expect((await call(client, 'log')).json).toEqual(autopilot(dir, 'log', '--json').json());
    expect((await call(client, 'check')).json).toEqual(autopilot(dir, 'check', '--json').json());

    // The status summary as a resource.
    const resource = await client.readResource({ uri: 'autopilot://status' });
    expect((resource.contents[0] as { text: string }).text).toContain('Run Tests');
  });

  it('`arguments` null, a list or a string: bad_input naming what came, for 3 of 3 tools (one that takes none); a 10.5 MB call refused with its id; absent is no arguments', async () => {
    const dir = tempRepo();
    write(dir, '_docs/00_problem/problem.md');
    const client = await connect(dir);
    for (const [name, args, received] of [
      ['status', null, 'received null'],
      ['next', [], 'received a list'],
      ['substep', 'text', 'received string'],
    ] as const) {
      const r = await client.callTool({ name, arguments: args as never });
      expect(r.isError, name).toBe(true);
      const text = (r.content as { text: string }[])[0]!.text;
      expect(text.split('\n')[0]).toBe(
        `bad_input: ${name}: arguments: expected an object of the tool's arguments (\`{}\`, or no \`arguments\`, for none), ${received}`,
      );
      expect(JSON.parse(text.split('\n')[1]!)).toMatchObject({ error: { code: 'bad_input' } });
    }
    // A call too large to read, sent by the SDK's client (its id last in the line): refused at once with that id, not left to time out.
    const started = Date.now();
    await expect(client.callTool({ name: 'substep', arguments: { text: 'x'.repeat(10_500_000) } }, undefined, { timeout: 60_000 })).rejects.toMatchObject({
      code: -32600,
      message: expect.stringMatching(/too large/),
    });
    expect(Date.now() - started).toBeLessThan(30_000);
    // Nothing was recorded by the refused calls; a call with no `arguments` runs.
    const plain = await client.callTool({ name: 'next' });
    expect(plain.structuredContent).toMatchObject({ step: 1, outcome: 'work', sub_step: '0' });
  });

  it('another session holding the repository is a tool error with code held', async () => {
    const dir = tempRepo();
    write(dir, '_docs/00_problem/problem.md');
    const mine = await connect(dir, 'one');
    expect((await call(mine, 'next')).isError).toBe(false);
    const theirs = await connect(dir, 'two');
    const held = await call(theirs, 'next');
    expect(held).toMatchObject({ isError: true, json: { error: { code: 'held' } } });
  });

  it('one server, 2 runs: next, log and status called with run a and run b act on the 2 runs (4 tools, read-only ones too)', async () => {
    const dir = tempRepo();
    for (const run of ['a', 'b']) expect(autopilot(dir, 'init', '--run', run, '--flow', run === 'a' ? 'greenfield' : 'existing-code').code).toBe(0);
    const client = await connect(dir);
    const a = await call(client, 'next', { run: 'a' });
    const b = await call(client, 'next', { run: 'b' });
    expect(a.json).toMatchObject({
      flow: 'greenfield',
      step: 1,
      done_when: ['_docs/_runs/a/00_problem/problem.md', '_docs/_runs/a/00_problem/acceptance_criteria.md'],
    });
    expect(b.json).toMatchObject({ flow: 'existing-code', step: 1 });
    expect((await call(client, 'substep', { run: 'b', text: '1 — Inventory' })).json).toMatchObject({ flow: 'existing-code', sub_step: '1 — Inventory' });
    // A tool that only reads takes the run too.
    const logA = (await call(client, 'log', { run: 'a' })).json as unknown as { events: { flow: string }[] };
    const logB = (await call(client, 'log', { run: 'b' })).json as unknown as { events: { flow: string; event: string }[] };
    expect(new Set(logA.events.map((e) => e.flow))).toEqual(new Set(['greenfield']));
    expect(logB.events.map((e) => e.event)).toContain('substep');
    expect(new Set(logB.events.map((e) => e.flow))).toEqual(new Set(['existing-code']));
    expect((await call(client, 'status', { run: 'b' })).json).toMatchObject({ flow: 'existing-code', sub_step: '1 — Inventory' });
    expect((await call(client, 'status', { run: 'a' })).json).toMatchObject({ flow: 'greenfield', sub_step: '0' });
  });
});
