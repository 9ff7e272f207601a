/**
 * What `init` sets up for agents (docs/sessions.md), in process: the
 * permission rules that make Claude Code and Codex ask the person, the MCP
 * server found from any folder, the hooks, the line that points Claude Code at
 * AGENTS.md; idempotent, keeping what a person wrote. And the two rules a
 * command applies for agents: a refused command writes nothing, and
 * whitespace is not evidence.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'smol-toml';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeCommand } from '../../../src/clients/instructions.js';
import { AGENT_WRITE_TOOLS, OPTION_COMMANDS, PERSON_COMMANDS, PERSON_OPTIONS } from '../../../src/clients/client.js';
import { askRules } from '../../../src/clients/claude-code.js';
import type { Context } from '../../../src/app/transaction/context.js';
import { runInit } from '../../../src/app/setup/init.js';
import { leftoverFolders } from '../../../src/app/transaction/commit.js';
import { openRepo } from '../../../src/io/repo.js';
import { runStep } from '../../../src/app/step/run-step.js';
import { COMMANDS } from '../../../src/commands/index.js';
import { ROOT } from '../../helpers/engine.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A repository where autopilot is installed as a user installs it: node_modules/.bin/autopilot. */
function installed(): string {
  const dir = mkdtempSync(join(tmpdir(), 'autopilot-unit-'));
  made.push(dir);
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(ROOT, join(dir, 'node_modules', 'md-autopilot'));
  symlinkSync('../md-autopilot/bin/autopilot.js', join(dir, 'node_modules', '.bin', 'autopilot'));
  return dir;
}

const ctx = (dir: string, session = 'unit'): Context => ({ repo: { dir }, session, now: () => new Date() });
const read = (dir: string, rel: string) => readFileSync(join(dir, rel), 'utf8');
const write = (dir: string, rel: string, text: string) => {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), text);
};

describe('init for agents', () => {
  it('asks the person before an agent runs what only a person decides: rules for the command line, no MCP tool of theirs, from the registry', async () => {
    const dir = installed();
    await runInit(ctx(dir), undefined);
    const settings = JSON.parse(read(dir, '.claude/settings.json')) as { permissions: { ask: string[] }; hooks?: unknown };
    expect(settings.permissions.ask).toEqual(askRules());
    expect(settings.hooks).toBeUndefined();
    // The registry's person marks and the rules agree.
    const person = COMMANDS.filter((c) => 'person' in c && c.person).map((c) => c.name);
    expect([...PERSON_COMMANDS].sort()).toEqual(person.sort());
    const flags = COMMANDS.flatMap((c) => ('options' in c ? (c.options ?? []) : []).filter((o) => o.person).map((o) => o.flags));
    expect([...new Set(flags)].sort()).toEqual([...PERSON_OPTIONS].sort());
    // Every command that takes a person's option is one the rules name before it.
    const taking = COMMANDS.filter((c) => 'options' in c && (c.options ?? []).some((o) => o.person)).map((c) => c.name);
    for (const name of taking) expect(OPTION_COMMANDS, name).toContain(name);
    // No person's command is an MCP tool, so no rule names one.
    expect(settings.permissions.ask.filter((rule) => rule.startsWith('mcp__'))).toEqual([]);

    const codex = parse(read(dir, '.codex/config.toml')) as { mcp_servers: { autopilot: { command: string; args: string[]; tools: Record<string, unknown> } } };
    expect(codex.mcp_servers.autopilot.command).toBe('sh');
    expect(codex.mcp_servers.autopilot.args[1]).toMatch(/node_modules\/\.bin\/autopilot" mcp$/);
    const tools = codex.mcp_servers.autopilot.tools as Record<string, { approval_mode: string }>;
    // The agent's own tools that write run without an approval; the registry and the list agree; none is a person's.
    const writers = COMMANDS.filter((c) => 'run' in c && 'tool' in c.mcp && !c.person && !c.readOnly).map((c) => c.name);
    expect(Object.keys(tools).sort()).toEqual(writers.sort());
    expect(Object.values(tools).every((t) => t.approval_mode === 'approve')).toBe(true);
    expect([...AGENT_WRITE_TOOLS].sort()).toEqual(writers.sort());
    const rules = read(dir, '.codex/rules/autopilot.rules');
    const bin = '["node_modules/.bin/autopilot", "./node_modules/.bin/autopilot", "autopilot"]';
    for (const name of PERSON_COMMANDS) expect(rules).toContain(`prefix_rule(pattern=[${bin}, "${name}"], decision="prompt")`);
    // A person's option right after a command's name (the command line accepts it nowhere else: test/unit/clients/person-rules.test.ts).
    for (const option of PERSON_OPTIONS) expect(rules).toContain(`prefix_rule(pattern=[${bin}, COMMANDS, "${option}"], decision="prompt")`);
    expect(rules).not.toMatch(/BEFORE/);
    expect(read(dir, 'CLAUDE.md')).toMatch(/@AGENTS\.md/);
    expect(read(dir, '.claude/commands/autopilot.md')).toBe(claudeCommand());
  });

  it('with --hooks: SessionStart and SessionEnd for Claude Code (from the folder it started in) and Codex (from any folder)', async () => {
    const dir = installed();
    await runInit(ctx(dir), undefined, { hooks: true });
    type Hooks = { hooks: Record<string, { hooks: { command: string; timeout: number }[] }[]> };
    const claude = JSON.parse(read(dir, '.claude/settings.json')) as Hooks;
    expect(claude.hooks.SessionStart![0]!.hooks[0]!.command).toBe('"$CLAUDE_PROJECT_DIR"/node_modules/.bin/autopilot hook session-start');
    expect(claude.hooks.SessionEnd![0]!.hooks[0]!.command).toBe('"$CLAUDE_PROJECT_DIR"/node_modules/.bin/autopilot hook session-end');
    const codex = JSON.parse(read(dir, '.codex/hooks.json')) as Hooks;
    expect(codex.hooks.SessionStart![0]!.hooks[0]!.command).toMatch(/^d=\$PWD; while .*exec "\$d\/node_modules\/\.bin\/autopilot" hook session-start$/);
    // Codex cuts a SessionEnd hook to 3 s and warns in every run about a longer timeout; Claude Code's hooks keep 10 s.
    expect([codex.hooks.SessionStart![0]!.hooks[0]!.timeout, codex.hooks.SessionEnd![0]!.hooks[0]!.timeout]).toEqual([10, 3]);
  });

  it('writes only into folders the next command sweeps for what a kill left (every file of init --hooks, with a flow)', async () => {
    const dir = installed();
    const r = await runInit(ctx(dir), 'greenfield', { hooks: true });
    const folders = new Set(leftoverFolders(openRepo({ dir })));
    expect(r.created.length).toBeGreaterThan(10);
    for (const file of r.created) expect(folders.has(dirname(join(realpathSync(dir), file))), file).toBe(true);
  });

  it('runs twice to the same files; replaces its own older hook spelling and text; keeps what a person wrote', async () => {
    const dir = installed();
    write(
      dir,
      '.claude/settings.json',
      JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'node_modules/.bin/autopilot hook session-start' }] }] } }),
    );
    write(dir, '.cursor/commands/autopilot.md', "Drive this repository's autopilot workflow. Run `npx --no autopilot next --json`.\n");
    write(dir, '.claude/commands/autopilot.md', 'My own /autopilot, thank you.\n');
    write(dir, '.codex/config.toml', 'model = "o4"\n\n[mcp_servers.autopilot]\ncommand = "my-autopilot"\n');
    await runInit(ctx(dir), undefined, { hooks: true });
    const settings = JSON.parse(read(dir, '.claude/settings.json')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    expect(settings.hooks.SessionStart).toHaveLength(1);
    expect(settings.hooks.SessionStart![0]!.hooks[0]!.command).toContain('$CLAUDE_PROJECT_DIR');
    expect(read(dir, '.cursor/commands/autopilot.md')).not.toContain('npx');
    expect(read(dir, '.claude/commands/autopilot.md')).toBe('My own /autopilot, thank you.\n');
    expect(read(dir, '.codex/config.toml')).toBe('model = "o4"\n\n[mcp_servers.autopilot]\ncommand = "my-autopilot"\n');

    const files = ['.claude/settings.json', '.codex/hooks.json', '.codex/rules/autopilot.rules', 'CLAUDE.md', 'AGENTS.md', '.mcp.json'];
    const before = files.map((f) => read(dir, f));
    const again = await runInit(ctx(dir), undefined, { hooks: true });
    expect(again.created.filter((f) => files.includes(f))).toEqual([]);
    expect(files.map((f) => read(dir, f))).toEqual(before);
  });

  it('no text it installs runs npx, or tells the agent to run what only a person decides', async () => {
    const dir = installed();
    await runInit(ctx(dir), undefined);
    for (const file of ['.claude/commands/autopilot.md', '.cursor/commands/autopilot.md', 'AGENTS.md']) {
      const text = read(dir, file);
      expect(text, file).not.toMatch(/npx/);
      expect(text, file).not.toMatch(/`(decide|ack|restore|repin)\b|--force|--take-over/);
      expect(Buffer.byteLength(text), file).toBeLessThan(2048);
    }
  });
});

describe('for agents, a command', () => {
  it('refused by the rules takes no lease and writes nothing (a decide with no decision waiting)', async () => {
    const dir = installed();
    write(dir, '_docs/00_problem/problem.md', '# The problem\n');
    const r = await runStep(ctx(dir), { event: { type: 'decide', option: 'A' } });
    expect(r.exit).toBe(2);
    expect(existsSync(join(dir, '_docs/_autopilot/journal.jsonl'))).toBe(false);
    expect(existsSync(join(dir, '_docs/_autopilot/lease.json'))).toBe(false);
    expect(existsSync(join(dir, '_docs/_autopilot_state.md'))).toBe(false);
  });

  it('is not proved done by a file of whitespace', async () => {
    const dir = installed();
    await runStep(ctx(dir), { event: { type: 'next' } });
    write(dir, '_docs/00_problem/problem.md', ' \n\t\n\n');
    for (const f of ['restrictions.md', 'acceptance_criteria.md']) write(dir, `_docs/00_problem/${f}`, '# content\n');
    const done = await runStep(ctx(dir), { event: { type: 'done' } });
    expect(done.exit).toBe(2);
    expect(JSON.stringify(done.view.outcome)).toContain('problem.md` exists but is empty or only whitespace');
  });
});
