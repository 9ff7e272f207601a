/**
 * What a progress commit costs (issue 30, point 13), for the bench: the same
 * greenfield repository twice, one with progress commits on (the default) and
 * one with `commit: false`, both with `verify: none`, made through the real
 * CLI and real git. Each is kept at two moments a sample copies: step 1 begun
 * and its files written, ready for `done`; and step 1 done (and, with commits
 * on, committed), ready for the `next` that starts step 2.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BenchFailure } from './harness.js';
import { filledTemplate } from '../test/helpers/templates.js';

export interface CommitFixtures {
  /** Step 1 begun, its two files written: a copy answers `done`. */
  readyForDone: string;
  /** Step 1 done (committed, with commits on): a copy answers the `next` that starts step 2. */
  readyForNext: string;
}

/** The two moments of one repository, under `dir`; `commit` false writes `commit: false` in its settings. */
export function commitProject(cli: string, dir: string, commit: boolean): CommitFixtures {
  const readyForDone = join(dir, 'ready-for-done');
  const readyForNext = join(dir, 'ready-for-next');
  mkdirSync(readyForDone, { recursive: true });
  const sh = (cwd: string, command: string, args: string[]) => {
    const r = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, AUTOPILOT_SESSION: 'bench' } });
    if (r.status !== 0) throw new BenchFailure(`commit: ${command} ${args.join(' ')} exited ${r.status}: ${r.stderr}${r.stdout}`);
  };
  const put = (rel: string, text: string) => {
    mkdirSync(dirname(join(readyForDone, rel)), { recursive: true });
    writeFileSync(join(readyForDone, rel), text);
  };
  sh(readyForDone, 'git', ['init', '-q']);
  sh(readyForDone, 'git', ['config', 'user.name', 'Bench']);
  sh(readyForDone, 'git', ['config', 'user.email', 'bench@example.invalid']);
  sh(readyForDone, 'git', ['config', 'commit.gpgSign', 'false']);
  put('README.md', '# A project\n');
  put('.autopilot/config.yml', `${commit ? '' : 'commit: false\n'}verify: none\n`);
  sh(readyForDone, process.execPath, [cli, 'init', '--flow', 'greenfield']);
  sh(readyForDone, 'git', ['add', '-A']);
  sh(readyForDone, 'git', ['commit', '-q', '-m', 'Set up autopilot']);
  sh(readyForDone, process.execPath, [cli, 'next']);
  for (const file of ['problem.md', 'acceptance_criteria.md']) put(`_docs/00_problem/${file}`, filledTemplate('problem', `templates/${file}`, file));
  cpSync(readyForDone, readyForNext, { recursive: true });
  sh(readyForNext, process.execPath, [cli, 'done']);
  return { readyForDone, readyForNext };
}
