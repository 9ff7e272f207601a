import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.js';
import { openRepo } from '../../../src/io/repo.js';
import { runOf } from '../../../src/app/transaction/context.js';
import { checkRunName } from '../../../src/formats/run-name.js';
import { listRuns } from '../../../src/io/run.js';

const good = ['a', 'login-page', 'v2.1', 'feature_x', '0day', 'a'.repeat(64)];
const bad = ['default', '', 'A', 'Login', '-a', '.a', '_a', 'a/b', 'a b', '..', 'é', 'a'.repeat(65), 'a\\b', 'a:b'];

describe('run names (CONTRACT rule 12)', () => {
  it(`${good.length} good names kept, ${bad.length} bad names refused with exit 2`, () => {
    for (const name of good) expect(checkRunName(name, '--run')).toBe(name);
    let refused = 0;
    for (const name of bad) {
      try {
        checkRunName(name, '--run');
      } catch (error) {
        expect(error).toBeInstanceOf(InputError);
        refused++;
      }
    }
    expect(refused).toBe(bad.length);
  });

  it('--run before $AUTOPILOT_RUN; neither names the default run (undefined)', () => {
    expect(runOf('a', { AUTOPILOT_RUN: 'b' })).toBe('a');
    expect(runOf(undefined, { AUTOPILOT_RUN: 'b' })).toBe('b');
    expect(runOf(' ', { AUTOPILOT_RUN: '' })).toBeUndefined();
    expect(() => runOf(undefined, { AUTOPILOT_RUN: 'Bad' })).toThrow(/AUTOPILOT_RUN/);
  });
});

describe('a run’s folder and the listing', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a named run lives in <docs>/_runs/<name>/; listRuns finds the default and 2 named runs, not a stray folder', () => {
    dir = mkdtempSync(join(tmpdir(), 'ap-runs-'));
    mkdirSync(join(dir, '.autopilot'));
    const repo = openRepo({ run: 'login' }, dir);
    expect(repo.run).toBe('login');
    expect(repo.docsName).toBe('_docs/_runs/login');
    expect(repo.pointerFile).toBe(join(repo.repoDocs, '_runs', 'login', '_autopilot_state.md'));
    expect(openRepo({}, dir).pointerFile).toBe(join(repo.repoDocs, '_autopilot_state.md'));
    const pointer = (docs: string) => (mkdirSync(docs, { recursive: true }), writeFileSync(join(docs, '_autopilot_state.md'), '# Autopilot State\n'));
    pointer(repo.repoDocs);
    pointer(join(repo.repoDocs, '_runs', 'zeta'));
    pointer(join(repo.repoDocs, '_runs', 'login'));
    pointer(join(repo.repoDocs, '_runs', 'Not-A-Name'));
    mkdirSync(join(repo.repoDocs, '_runs', 'empty'));
    expect(listRuns(repo.repoDocs)).toEqual(['default', 'login', 'zeta']);
  });
});

describe('openRepo and the names listRuns gives', () => {
  it('`default` opens the default run (as listRuns names it); a name a person gives is checked before: --run default is exit 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ap-runs-'));
    try {
      mkdirSync(join(dir, '.autopilot'));
      expect(openRepo({ run: 'default' }, dir).pointerFile).toBe(openRepo({}, dir).pointerFile);
      expect(() => runOf('default', {})).toThrow(InputError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
