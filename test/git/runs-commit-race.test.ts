/**
 * Named runs in one work tree commit on one branch (docs/runs.md): several
 * runs' `done` at the same instant, real processes, each making its step's
 * progress commit while the others move the branch under it. Each commit is
 * built again on the branch as it now is, so none is left owed and the tree
 * is clean when the commands end.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autopilot, tempRepo, writeArtifacts } from '../helpers/cli.js';
import { ROOT } from '../helpers/engine.js';
import { git, identify } from '../helpers/git.js';

const RUNS = ['r1', 'r2', 'r3', 'r4'];

/** `autopilot <args>` as a child process of its own, started now: its exit code and its JSON answer. */
function started(dir: string, args: string[]): Promise<{ code: number | null; json: { commit?: string; notices?: string[] } }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'autopilot.js'), ...args], { cwd: dir, env: { ...process.env, AUTOPILOT_SESSION: '' } });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, json: JSON.parse(out || '{}') as { commit?: string } })));
}

describe('progress commits of several runs at once', () => {
  it(
    `${RUNS.length} runs' done at the same instant in one work tree: ${RUNS.length} progress commits made, 0 left owed, a clean tree`,
    { timeout: 120_000 },
    async () => {
      const dir = tempRepo();
      git(dir, 'init', '--quiet');
      identify(dir);
      git(dir, 'commit', '--quiet', '--allow-empty', '-m', 'First commit');
      for (const run of RUNS) expect(autopilot(dir, 'init', '--run', run, '--flow', 'greenfield').code).toBe(0);
      git(dir, 'add', '-A');
      git(dir, 'commit', '--quiet', '-m', 'Start the runs');
      for (const run of RUNS) {
        const next = autopilot(dir, 'next', '--json', '--run', run, '--session', `s-${run}`);
        expect(next.code, next.stdout + next.stderr).toBe(0);
        writeArtifacts(dir, next.json<{ done_when: string[] }>().done_when);
      }
      const answers = await Promise.all(RUNS.map((run) => started(dir, ['done', '--step', '1', '--json', '--run', run, '--session', `s-${run}`])));
      const made = answers.filter((a) => a.code === 0 && a.json.commit !== undefined).length;
      const owed = answers.filter((a) => a.json.commit === undefined).map((a) => a.json.notices?.join('; '));
      const status = git(dir, 'status', '--porcelain');
      console.log(`${RUNS.length} runs' done at once: ${made} progress commits made, ${owed.length} left owed; tree ${status ? 'NOT clean' : 'clean'}`);
      expect(owed).toEqual([]);
      expect(made).toBe(RUNS.length);
      expect(status).toBe('');
    },
  );
});
