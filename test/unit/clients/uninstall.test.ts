/**
 * `uninstall` takes out exactly what `init` put in (issue 25, point 2): for
 * every file init sets up, with and without the hooks, and for each launch,
 * `unmake(make(text))` gives the person's text back byte for byte, a file
 * init created is removed, and a person's own file is left alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repositoryFiles } from '../../../src/app/setup/init.js';
import type { SetupFile } from '../../../src/clients/client.js';
import { CLIENTS } from '../../../src/clients/index.js';
import { everyLaunch } from '../../../src/clients/launch.js';
import { openRepo } from '../../../src/io/repo.js';

const dir = mkdtempSync(join(tmpdir(), 'autopilot-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const json = (value: object) => `${JSON.stringify(value, null, 2)}\n`;
/** A person's own text, by the kind of file. */
const PERSON: Record<string, string[]> = {
  '.gitignore': ['node_modules/\ndist/\n', 'dist/', '# build\nout/\n\n# editors\n.idea/\n'],
  '.autopilot/config.yml': ['lease:\n  stale_after_minutes: 5\n'],
  '.gitattributes': ['*.png binary\n'],
  'CLAUDE.md': ['# My project\n\nBe brief.\n', 'Be brief.'],
  'AGENTS.md': ['# Agents\n\nRun `npm test` first.\n', '# Team rules\n\n- small commits\n'],
  '.mcp.json': [json({ mcpServers: { other: { command: 'other' } } }), json({ extra: true })],
  '.cursor/mcp.json': [json({ mcpServers: { other: { command: 'other', args: ['-x'] } } })],
  '.claude/settings.json': [
    json({ permissions: { allow: ['Bash(ls)'] } }),
    json({ permissions: { ask: ['Bash(rm*)'] }, hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'echo hi' }] }] } }),
  ],
  '.codex/hooks.json': [json({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo bye' }] }] } })],
  '.codex/config.toml': ['model = "o4"\n', '# mine\n[mcp_servers.other]\ncommand = "other"\n'],
};
/** Files wholly autopilot's: a person's own file of that name is kept by init, and left by uninstall. */
const OWN = ['.claude/commands/autopilot.md', '.cursor/commands/autopilot.md', '.codex/rules/autopilot.rules'];

const repo = openRepo({ dir });
const sets: { name: string; files: SetupFile[] }[] = everyLaunch('/opt/autopilot/bin/autopilot.js').flatMap((launch) =>
  [false, true].map((hooks) => ({
    name: `${launch.bin}${hooks ? ', hooks' : ''}`,
    files: [...repositoryFiles(repo, { nodeModules: true }), ...CLIENTS.flatMap((c) => c.files(launch, { hooks }))],
  })),
);

describe('uninstall inverts init, file by file', () => {
  it('covers the 12 files init sets up, 13 with the hooks, for both launches', () => {
    expect(sets.map((s) => s.files.length)).toEqual([12, 13, 12, 13]);
    for (const s of sets) for (const f of s.files) expect(Object.keys(PERSON).concat(OWN), f.path).toContain(f.path);
  });

  it('a file init created is removed: 50 files, 4 sets', async () => {
    let n = 0;
    for (const s of sets)
      for (const f of s.files) {
        const made = await f.make(undefined);
        expect(made, f.path).toBeDefined();
        expect(await f.unmake(made!), `${s.name}: ${f.path}`).toEqual({ kind: 'remove' });
        n++;
      }
    expect(n).toBe(50);
  });

  it("a person's file init added to comes back byte for byte (a last line without its line end gets one)", async () => {
    for (const s of sets)
      for (const f of s.files)
        for (const text of PERSON[f.path] ?? []) {
          const made = await f.make(text);
          expect(made, `${f.path} ${JSON.stringify(text)}`).toBeDefined();
          expect(await f.unmake(made!), `${s.name}: ${f.path} ${JSON.stringify(text)}`).toEqual({
            kind: 'edit',
            text: text.endsWith('\n') ? text : `${text}\n`,
          });
          // Nothing of autopilot's in the person's own text: nothing to take out.
          expect(await f.unmake(text), `${f.path} as the person wrote it`).toEqual({ kind: 'none' });
        }
  });

  it("a person's own /autopilot: kept by init, left by uninstall; a file of ours a person changed (3 of them): left and said", async () => {
    for (const s of sets)
      for (const f of s.files.filter((file) => OWN.includes(file.path))) {
        // The rules file is autopilot's by its name: init writes it whatever was there.
        if (f.path !== '.codex/rules/autopilot.rules') expect(await f.make('My own.\n')).toBeUndefined();
        expect(await f.unmake('My own.\n')).toEqual({ kind: 'none' });
        const ours = (await f.make(undefined))!;
        expect(await f.unmake(`${ours}\nmore of mine\n`)).toEqual({ kind: 'changed', why: 'changed since autopilot wrote it' });
      }
  });
});

describe("what an older init wrote (person's commands as MCP tools, the exec policy's BEFORE words)", () => {
  it('is taken out whole by uninstall, and replaced by init: 3 files × 2 launches, rules of 1, 10 and 14 steps', async () => {
    const { OLD_CLAUDE_ASK, OLD_CODEX_TOOLS, oldCodexRules } = await import('../../../src/clients/legacy.js');
    const { stringify } = await import('smol-toml');
    let n = 0;
    for (const launch of everyLaunch('/opt/autopilot/bin/autopilot.js')) {
      const files = CLIENTS.flatMap((c) => c.files(launch, { hooks: false }));
      const file = (path: string) => files.find((f) => f.path === path)!;
      const settings = file('.claude/settings.json');
      const oldSettings = json({
        permissions: { ask: [...(JSON.parse((await settings.make(undefined))!) as { permissions: { ask: string[] } }).permissions.ask, ...OLD_CLAUDE_ASK] },
      });
      expect(await settings.unmake(oldSettings)).toEqual({ kind: 'remove' });
      // init again drops the rules for tools that are no more.
      expect(await settings.make(oldSettings)).toBe(await settings.make(undefined));
      const table = stringify({ mcp_servers: { autopilot: { command: launch.mcp.command, args: launch.mcp.args, tools: OLD_CODEX_TOOLS } } });
      const oldConfig = `model = "o4"\n\n# autopilot: its MCP server; the agent's tools run, the ones only a person decides ask first\n${table}\n`;
      expect(await file('.codex/config.toml').unmake(oldConfig)).toEqual({ kind: 'edit', text: 'model = "o4"\n' });
      // init again puts this version's table in its place: the person's tools set to ask are gone.
      expect(await file('.codex/config.toml').make(oldConfig)).toBe(await file('.codex/config.toml').make('model = "o4"\n'));
      for (const steps of [1, 10, 14]) {
        const rules = file('.codex/rules/autopilot.rules');
        expect(await rules.unmake(oldCodexRules(launch, steps))).toEqual({ kind: 'remove' });
        expect(await rules.make(oldCodexRules(launch, steps))).toBe(await rules.make(undefined));
      }
      n += 3;
    }
    expect(n).toBe(6);
  });
});
