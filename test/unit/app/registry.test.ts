/**
 * The registry in process, in real temporary repositories: every command run
 * as the front ends run it (arguments read by its specs, `run`, `view`), and
 * every answer held to its schema in `render/answers.ts` — the contract an
 * agent reads. Fast: no process is spawned, so this is where the command
 * layer's behaviour is tried first.
 */
import { describe, expect, it } from 'vitest';
import type { Context } from '../../../src/app/transaction/context.js';
import { readArguments, type Answer } from '../../../src/commands/command.js';
import { COMMANDS, type AnyCommand } from '../../../src/commands/index.js';
import { errorJson } from '../../../src/errors.js';
import { ANSWERS, errorAnswer } from '../../../src/render/answers.js';
// `write` without a text writes a file a skill declares as the skill says (its template filled).
import { tempRepo as repo, write } from '../../helpers/cli.js';

const commandNamed = (name: string) => COMMANDS.find((c) => c.name === name) as AnyCommand;

/** Runs a command as a front end does, and checks its answer (or its error) against the contract's schema. */
async function run(dir: string, name: string, raw: Record<string, unknown> = {}, session = 'unit'): Promise<Answer & { json: Record<string, unknown> }> {
  const command = commandNamed(name);
  const ctx: Context = { repo: { dir }, session, now: () => new Date() };
  let answer: Answer;
  try {
    answer = command.view(await command.run(ctx, readArguments(command, raw)));
  } catch (error) {
    const json = errorJson(error);
    expect(() => errorAnswer.parse(json), `${name}: the error matches the contract`).not.toThrow();
    throw error;
  }
  const schema =
    command.mcp.answer !== undefined
      ? ANSWERS[command.mcp.answer]
      : name === 'init'
        ? ANSWERS.init
        : name === 'hook'
          ? ANSWERS.hook
          : name === 'exec'
            ? ANSWERS.exec
            : undefined;
  if (schema) {
    const parsed = schema.safeParse(answer.json);
    expect(parsed.success ? [] : parsed.error.issues, `${name}: the answer matches render/answers.ts`).toEqual([]);
  }
  return answer as Answer & { json: Record<string, unknown> };
}

const workOn = (dir: string, answer: { json: Record<string, unknown> }) => {
  for (const pattern of answer.json.done_when as string[]) write(dir, pattern.replace(/\*/g, '01'));
};

describe('every command, in process, answers in the shape the contract gives it', () => {
  it('walks greenfield past its decision and boundary, with every other command on the way', async () => {
    const dir = repo();
    expect((await run(dir, 'init')).json.created).toContain('AGENTS.md');
    const first = await run(dir, 'next');
    expect(first.json).toMatchObject({ step: 1, outcome: 'work', action: 'start' });
    const refused = await run(dir, 'done');
    expect(refused).toMatchObject({ exit: 2, json: { outcome: 'refused', error: { code: 'refused' } } });
    workOn(dir, first);
    expect((await run(dir, 'done', { step: '1' })).json).toMatchObject({ outcome: 'advanced', step: 2 });

    workOn(dir, await run(dir, 'next'));
    await run(dir, 'substep', { text: ['2', '—', 'Sources'] });
    const decision = await run(dir, 'done');
    expect(decision).toMatchObject({ exit: 3, json: { outcome: 'decision' } });
    // The question waits where a person looks: status shows it, with the command that answers it.
    expect((await run(dir, 'status')).json).toMatchObject({
      status: 'completed',
      pending: { kind: 'decision', step: 2, options: [{ option: 'A', command: 'autopilot decide A' }, { option: 'B' }], command: 'autopilot decide B' },
    });
    expect((await run(dir, 'decide', { option: 'b' })).json).toMatchObject({ outcome: 'advanced', step: 3 });

    workOn(dir, await run(dir, 'next'));
    expect((await run(dir, 'done')).json.step).toBe(5);
    workOn(dir, await run(dir, 'next'));
    const boundary = await run(dir, 'done');
    expect(boundary).toMatchObject({ exit: 3, json: { outcome: 'boundary', boundary: { after: { step: 5 } } } });

    const status = await run(dir, 'status');
    expect(status.json).toMatchObject({ step: 6, boundary_pending: { after: 5 }, pending: { kind: 'boundary', step: 6, command: 'autopilot decide A' } });
    expect((await run(dir, 'decide', { option: 'B' })).json.outcome).toBe('advanced');

    const shot = await run(dir, 'checkpoint', { note: 'before implement' });
    const list = await run(dir, 'checkpoints');
    expect((list.json.checkpoints as { id: string }[]).map((c) => c.id)).toContain(shot.json.id);
    expect((await run(dir, 'restore', { id: shot.json.id })).json).toMatchObject({ restored: shot.json.id, step: 6 });
    expect((await run(dir, 'breadcrumb')).json.markdown).toMatch(/step 6 of 10/);
    expect((await run(dir, 'report')).json.file).toBe('_docs/_autopilot_report.md');
    expect((await run(dir, 'repin')).json).toMatchObject({ repinned: false, changes: [] });
    expect((await run(dir, 'log', { limit: '3' })).json.events).toHaveLength(3);
    expect((await run(dir, 'check')).json).toMatchObject({ ok: true });
  });

  it('a failed step: three failures, the stop, and a person’s ack', async () => {
    const dir = repo();
    write(dir, '_docs/00_problem/problem.md');
    await run(dir, 'next');
    for (const attempt of [1, 2]) {
      expect((await run(dir, 'fail', { reason: `red ${attempt}` })).json).toMatchObject({ outcome: 'recorded', retry_count: attempt });
      await run(dir, 'next');
    }
    const failed = await run(dir, 'fail', { reason: 'red 3' });
    expect(failed).toMatchObject({ exit: 3, json: { outcome: 'failed', status: 'failed', reason: 'red 3' } });
    expect((await run(dir, 'status')).json).toMatchObject({ pending: { kind: 'failed', step: 1, options: [], reason: 'red 3', command: 'autopilot ack' } });
    expect((await run(dir, 'ack')).json).toMatchObject({ outcome: 'recorded', retry_count: 0 });
  });

  it('bad input is an error in the one JSON shape, naming what was expected', async () => {
    const dir = repo();
    await expect(run(dir, 'log', { limit: 'ten' })).rejects.toThrow(/--limit ten is not a count/);
    await expect(run(dir, 'done', { step: '0' })).rejects.toThrow(/--step 0 is not a step number/);
    await expect(run(dir, 'hook', { event: 'session-middle' })).rejects.toThrow(/no hook session-middle/);
    await expect(run(dir, 'restore', { id: 'nope' })).rejects.toThrow(/not a checkpoint id/);
  });
});

describe('the registry', () => {
  it('says, for every option an agent may use on the command line, whether the MCP tool has it, and why not', () => {
    for (const command of COMMANDS) {
      if (!('run' in command)) continue;
      for (const option of command.options ?? []) {
        if (option.person) expect(option.notOnMcp, `${command.name} ${option.flags} is a person's: not on MCP, and why`).toMatch(/person/);
      }
      if ('omitted' in command.mcp) expect(command.mcp.omitted.length, command.name).toBeGreaterThan(10);
    }
  });

  it('names the step commands and the commands only a person decides', () => {
    const names = (pick: (c: AnyCommand) => unknown) => COMMANDS.filter((c) => 'run' in c && pick(c as AnyCommand)).map((c) => c.name);
    expect(names((c) => c.step)).toEqual(['next', 'substep', 'done', 'fail', 'skip', 'decide', 'ack']);
    expect(names((c) => c.person)).toEqual(['decide', 'ack', 'adopt', 'repin', 'restore', 'reset']);
    expect(names((c) => c.options?.some((o) => o.person))).toEqual(['next', 'substep', 'done', 'fail', 'skip', 'decide', 'ack', 'lease']);
  });
});
