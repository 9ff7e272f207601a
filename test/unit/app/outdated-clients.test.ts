/**
 * `check` iterates the clients (`src/clients/`) as `init` does: a file an
 * older `init` set up, which this version's would change, is a problem that
 * says to run `init` again; a file a project does not have, or one that never
 * mentions autopilot, is none.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCheck } from '../../../src/app/views/check.js';
import type { Context } from '../../../src/app/transaction/context.js';
import { runInit } from '../../../src/app/setup/init.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const repo = () => {
  const dir = mkdtempSync(join(tmpdir(), 'autopilot-unit-'));
  made.push(dir);
  return dir;
};
const ctx = (dir: string): Context => ({ repo: { dir }, session: 'unit', now: () => new Date() });
const write = (dir: string, rel: string, text: string) => {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), text);
};
const clientProblems = async (dir: string) => (await runCheck(ctx(dir))).problems.filter((p) => p.message.includes('autopilot init'));

describe('check, over the clients init sets up', () => {
  it('finds none after init, and 2 files an older init left (an /autopilot text, the Codex rules) until init runs again', async () => {
    const dir = repo();
    await runInit(ctx(dir), 'greenfield');
    expect(await clientProblems(dir)).toEqual([]);
    const old = readFileSync(join(dir, '.cursor/commands/autopilot.md'), 'utf8').replace(/\| what happened[\s\S]*?\n\n/, '- 4: stop.\n\n');
    write(dir, '.cursor/commands/autopilot.md', old);
    write(dir, '.codex/rules/autopilot.rules', '# autopilot: an older policy\n');
    const found = await clientProblems(dir);
    expect(found.map((p) => p.file).sort()).toEqual(['.codex/rules/autopilot.rules', '.cursor/commands/autopilot.md']);
    expect(found[0]!.expected).toContain('run `autopilot init` again');
    await runInit(ctx(dir), undefined);
    expect(await clientProblems(dir)).toEqual([]);
  });

  it("finds none in a project that never ran init, or whose own files never mention autopilot (AGENTS.md, CLAUDE.md, a person's /autopilot)", async () => {
    const dir = repo();
    write(dir, 'AGENTS.md', '# Agents\n\nRun the tests before you commit.\n');
    write(dir, 'CLAUDE.md', 'Be brief.\n');
    write(dir, '.claude/commands/autopilot.md', 'My own /autopilot, thank you.\n');
    expect(await clientProblems(dir)).toEqual([]);
  });
});
