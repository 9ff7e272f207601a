/**
 * What ships is what was tested: the package is packed (`npm pack`, its
 * `files` list: bin, dist, flows, skills), installed from the tarball into a
 * fresh repository (dependencies from the npm registry or its cache), set up
 * with `init --hooks`, and driven there with the exact commands the texts and
 * configs `init` installed give the agents: the /autopilot text's command and
 * its inlined status, the MCP server from a subfolder, the hooks.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempRepo } from '../helpers/cli.js';
import { ROOT } from '../helpers/engine.js';

const NAME = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string }).name;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function sh(cmd: string, args: string[], cwd: string) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, AUTOPILOT_SESSION: '', npm_config_update_notifier: 'false' } });
  return { code: r.status ?? -1, out: `${r.stdout}\n${r.stderr}`, stdout: r.stdout };
}

describe('the published package', () => {
  it('installs from its tarball into a fresh repository and runs there', () => {
    const tmp = tempRepo();
    const packs = join(tmp, 'packs');
    mkdirSync(packs);
    // dist/ is current (the global setup built it); --ignore-scripts packs it as it is.
    const packed = sh(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', packs], ROOT);
    expect(packed.code, packed.out).toBe(0);
    const [info] = JSON.parse(packed.stdout) as { filename: string; size: number; files: { path: string }[] }[];
    const paths = info!.files.map((f) => f.path);
    // Small: the bundles the CLI runs, no source maps, no bench or fuzz runner, no repository-only code.
    console.log(`package: ${info!.files.length} files, ${(info!.size / 1024).toFixed(0)} KB packed`);
    expect(info!.size).toBeLessThanOrEqual(330 * 1024);
    expect(paths.filter((p) => p.endsWith('.map') || /^dist\/(app|bench|fuzz|prebuild-flows)\.js$/.test(p) || p.startsWith('dist/dev-chunks/'))).toEqual([]);
    expect(paths).toEqual(
      expect.arrayContaining(['bin/autopilot.js', 'bin/package.json', 'dist/cli.cjs', 'dist/flows.json', 'flows/greenfield.md', 'package.json']),
    );
    expect(paths.some((p) => p.startsWith('skills/') && p.endsWith('/SKILL.md'))).toBe(true);
    expect(paths.some((p) => p.startsWith('src/') || p.startsWith('test/'))).toBe(false);

    const repo = join(tmp, 'repo');
    mkdirSync(repo);
    writeFileSync(join(repo, 'package.json'), '{ "name": "fresh", "private": true }\n');
    const installed = sh(npm, ['install', '--no-audit', '--no-fund', '--save-dev', join(packs, info!.filename)], repo);
    expect(installed.code, installed.out).toBe(0);
    expect(installed.out).not.toMatch(/warn/i);
    expect(existsSync(join(repo, 'node_modules', NAME, 'bin', 'autopilot.js'))).toBe(true);
    // One package installed: every dependency is bundled into dist/.
    const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
    expect(Object.keys(lock.packages).filter((p) => p !== '')).toEqual([`node_modules/${NAME}`]);

    const bin = join('node_modules', '.bin', 'autopilot');
    const init = sh(bin, ['init', '--hooks'], repo);
    expect(init.code, init.out).toBe(0);

    // The /autopilot text: the command it tells the agent to run, as a shell runs it (Claude Code substitutes the id).
    const command = readFileSync(join(repo, '.claude', 'commands', 'autopilot.md'), 'utf8').replaceAll('${CLAUDE_SESSION_ID}', 'conversation-1');
    expect(command).not.toMatch(/npx/);
    const inline = /^!`(.*)`$/m.exec(command)![1]!;
    const status = sh('bash', ['-c', inline], repo);
    expect(status.code, status.out).toBe(0);
    expect(status.stdout).toContain('Autopilot · Greenfield');
    const run = /`(node_modules\/\.bin\/autopilot) <command> --json --session conversation-1`/.exec(command)![1]!;
    const next = sh('bash', ['-c', `${run} next --json --session conversation-1`], repo);
    expect(next.code, next.out).toBe(0);
    expect(JSON.parse(next.stdout)).toMatchObject({ flow: 'greenfield', step: 1, status: 'in_progress' });
    expect(readFileSync(join(repo, '_docs', '_autopilot_state.md'), 'utf8')).toMatch(/flow: greenfield\nstep: 1\n/);
    const skill = (JSON.parse(next.stdout) as { skill: string }).skill;
    expect(existsSync(join(repo, skill)) || existsSync(skill)).toBe(true);
    const report = sh('bash', ['-c', `${run} report --html --session conversation-1`], repo);
    expect(report.code, report.out).toBe(0);
    expect(existsSync(join(repo, '_docs', '_autopilot_report.html'))).toBe(true);

    // The MCP server as the clients start it, from a subfolder of the project.
    const server = (JSON.parse(readFileSync(join(repo, '.mcp.json'), 'utf8')) as { mcpServers: { autopilot: { command: string; args: string[] } } }).mcpServers
      .autopilot;
    mkdirSync(join(repo, 'notes', 'deep'), { recursive: true });
    const listed = spawnSync(server.command, server.args, {
      cwd: join(repo, 'notes', 'deep'),
      input: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n',
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(listed.stdout, listed.stderr).toContain('"name":"next"');

    // The hooks, as Claude Code runs them (from the folder it started in, which it names).
    type Hooks = { hooks: Record<string, { hooks: { command: string }[] }[]> };
    const hooks = (JSON.parse(readFileSync(join(repo, '.claude', 'settings.json'), 'utf8')) as Hooks).hooks;
    const start = spawnSync('sh', ['-c', hooks.SessionStart![0]!.hooks[0]!.command], {
      cwd: repo,
      input: JSON.stringify({ session_id: 'conversation-2', source: 'startup' }),
      encoding: 'utf8',
      env: { ...process.env, AUTOPILOT_SESSION: '', CLAUDE_PROJECT_DIR: repo },
    });
    expect(start.status, start.stderr).toBe(0);
    expect(start.stdout).toContain('Another session holds this repository (conversation-1');
    const end = spawnSync('sh', ['-c', hooks.SessionEnd![0]!.hooks[0]!.command], {
      cwd: repo,
      input: JSON.stringify({ session_id: 'conversation-1', reason: 'other' }),
      encoding: 'utf8',
      env: { ...process.env, AUTOPILOT_SESSION: '', CLAUDE_PROJECT_DIR: repo },
    });
    expect(end.status, end.stderr).toBe(0);
    expect(existsSync(join(repo, '_docs', '_autopilot', 'lease.json'))).toBe(false);
  }, 120_000);
});
