/**
 * What ships is what was tested: the package is packed (`npm pack`, its
 * `files` list: bin, dist, flows, skills), installed from the tarball into a
 * fresh repository (dependencies from the npm registry or its cache), and
 * driven there with `npx autopilot` as a user would.
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
    const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    const paths = info!.files.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['bin/autopilot.js', 'dist/cli.js', 'dist/flows.json', 'flows/greenfield.md', 'package.json']));
    expect(paths.some((p) => p.startsWith('skills/') && p.endsWith('/SKILL.md'))).toBe(true);
    expect(paths.some((p) => p.startsWith('src/') || p.startsWith('test/'))).toBe(false);

    const repo = join(tmp, 'repo');
    mkdirSync(repo);
    writeFileSync(join(repo, 'package.json'), '{ "name": "fresh", "private": true }\n');
    const installed = sh(npm, ['install', '--no-audit', '--no-fund', '--save-dev', join(packs, info!.filename)], repo);
    expect(installed.code, installed.out).toBe(0);
    expect(existsSync(join(repo, 'node_modules', NAME, 'bin', 'autopilot.js'))).toBe(true);

    // `--no`: never fetch a package called autopilot from the registry (an unrelated one has that name).
    const npx = (...args: string[]) => sh('npx', ['--no', 'autopilot', ...args], repo);
    const init = npx('init');
    expect(init.code, init.out).toBe(0);
    const next = npx('next', '--json');
    expect(next.code, next.out).toBe(0);
    expect(JSON.parse(next.stdout)).toMatchObject({ flow: 'greenfield', step: 1, status: 'in_progress' });
    expect(readFileSync(join(repo, '_docs', '_autopilot_state.md'), 'utf8')).toMatch(/flow: greenfield\nstep: 1\n/);
    const skill = (JSON.parse(next.stdout) as { skill: string }).skill;
    expect(existsSync(join(repo, skill)) || existsSync(skill)).toBe(true);
    const report = npx('report', '--html');
    expect(report.code, report.out).toBe(0);
    expect(existsSync(join(repo, '_docs', '_autopilot_report.html'))).toBe(true);
  }, 120_000);
});
