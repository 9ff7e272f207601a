/** The launch a hint names, and the root said when it is not where a command started: real folders, PATH given. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hintLaunch, rootElsewhere } from '../../../src/app/views/where.js';
import { ROOT } from '../../helpers/engine.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folder(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'autopilot-where-')));
  made.push(dir);
  return dir;
}

/** A folder for PATH holding `autopilot`: a link to this copy, or another program of that name. */
function pathWith(autopilot: 'this copy' | 'another program'): string {
  const bin = folder();
  if (autopilot === 'this copy') symlinkSync(join(ROOT, 'bin', 'autopilot.js'), join(bin, 'autopilot'));
  else writeFileSync(join(bin, 'autopilot'), '#!/bin/sh\necho another\n', { mode: 0o755 });
  return bin;
}

/** A project (a git work tree) with autopilot installed, and a folder below it. */
function installedProject(): { project: string; below: string } {
  const project = folder();
  mkdirSync(join(project, '.git'));
  mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(join(ROOT, 'bin', 'autopilot.js'), join(project, 'node_modules', '.bin', 'autopilot'));
  const below = join(project, 'src');
  mkdirSync(below);
  return { project, below };
}

describe('hintLaunch', () => {
  it('names 5 launches: autopilot on PATH, the installed binary at the root, npx below it, this copy by its path, relative where it can', () => {
    const env = (PATH: string) => ({ PATH, GIT_CEILING_DIRECTORIES: tmpdir() });
    const { project, below } = installedProject();
    expect(hintLaunch({}, project, env(pathWith('this copy')))).toBe('autopilot');
    expect(hintLaunch({}, project, env(pathWith('another program')))).toBe('node_modules/.bin/autopilot');
    expect(hintLaunch({}, below, env(''))).toBe('npx --no -- autopilot');
    // npx puts the project's node_modules/.bin on PATH for the command it runs: a person's shell does not have it.
    expect(hintLaunch({}, below, env(join(project, 'node_modules', '.bin')))).toBe('npx --no -- autopilot');
    const bare = folder();
    expect(hintLaunch({}, bare, env(''))).toBe(`node ${join(ROOT, 'bin', 'autopilot.js')}`);
    expect(hintLaunch({ dir: bare }, ROOT, env(''))).toBe('node bin/autopilot.js');
  });
});

describe('rootElsewhere', () => {
  it('names the root found above (2 marks), and nothing at the root, for a folder that is not there, or outside any run', () => {
    const env = { GIT_CEILING_DIRECTORIES: tmpdir() };
    const { project, below } = installedProject();
    expect(rootElsewhere({}, below, env)).toEqual({ root: project, mark: '.git' });
    expect(rootElsewhere({ dir: 'src' }, project, env)).toEqual({ root: project, mark: '.git' });
    expect(rootElsewhere({}, project, env)).toBeUndefined();
    expect(rootElsewhere({ dir: 'nowhere' }, project, env)).toBeUndefined();
    const lone = folder();
    mkdirSync(join(lone, 'a'));
    expect(rootElsewhere({}, join(lone, 'a'), env)).toBeUndefined();
  });
});
