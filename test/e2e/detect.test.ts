/** The first call in a repository with no pointer: which flow the real CLI starts, from the files alone. */
import { describe, expect, it } from 'vitest';
import { autopilot, tempRepo, write, type NextJson } from '../helpers/cli.js';

describe('choosing the flow of a new repository', () => {
  it('a package.json alone is not code: greenfield', () => {
    const dir = tempRepo();
    write(dir, 'package.json', '{"name":"fresh","devDependencies":{"md-autopilot":"^0.1.0"}}\n');
    write(dir, 'package-lock.json', '{"lockfileVersion":3}\n');
    expect(autopilot(dir, 'status', '--json').json<NextJson>()).toMatchObject({ flow: 'greenfield', step: 1, source: 'folder' });
    const next = autopilot(dir, 'next', '--json');
    expect(next.code, next.stderr).toBe(0);
    expect(next.json<NextJson>()).toMatchObject({ flow: 'greenfield', step: 1, name: 'Problem' });
  });

  it('a package.json with node_modules/ full of *.js (what `npm install -D` leaves) is still greenfield', () => {
    const dir = tempRepo();
    write(dir, 'package.json', '{"name":"fresh","devDependencies":{"md-autopilot":"^0.1.0"}}\n');
    write(dir, 'node_modules/md-autopilot/index.js', 'export {};\n');
    write(dir, 'node_modules/commander/index.js', 'module.exports = {};\n');
    write(dir, 'vendor/lib.py', 'x = 1\n');
    expect(autopilot(dir, 'status', '--json').json<NextJson>()).toMatchObject({ flow: 'greenfield', step: 1 });
  });

  it('a package.json and src/index.js: existing-code', () => {
    const dir = tempRepo();
    write(dir, 'package.json', '{"name":"legacy"}\n');
    write(dir, 'src/index.js', 'export const answer = 42;\n');
    expect(autopilot(dir, 'status', '--json').json<NextJson>()).toMatchObject({ flow: 'existing-code', step: 1, source: 'folder' });
    const next = autopilot(dir, 'next', '--json');
    expect(next.code, next.stderr).toBe(0);
    expect(next.json<NextJson>()).toMatchObject({ flow: 'existing-code', step: 1, name: 'Document' });
  });
});
