/**
 * Seeing every run (issue 32, docs/runs.md "Seeing every run"): `runs` lists
 * the default run and the named ones with what each waits for and the exact
 * command that answers it; with named runs only and none named, `status`
 * shows that overview and every other command of the registry refuses (exit
 * 2, nothing written); `status` names the other runs; `report` draws every
 * run; `reset --run NAME` starts one run over and leaves the others byte for
 * byte; `uninstall --remove-docs` takes out every run's files. The built CLI
 * in real folders and real git repositories.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/commands/index.js';
import { autopilot, snapshot, write } from '../helpers/cli.js';
import { ROOT } from '../helpers/engine.js';
import { committedRepo, git } from '../helpers/git.js';

interface RunJson {
  run: string;
  flow?: string;
  step?: number | 'done';
  name?: string;
  status?: string;
  waits_for?: { kind: string; question: string; command: string };
  commit?: { sha: string; branch?: string };
  lease?: { session: string; host: string; heartbeat: string } | { problem: string };
  problem?: string;
}

/** The words of a printed command after `autopilot`. */
const words = (line: string) => line.replace(/^autopilot /, '').split(' ');

/** Run `run` (undefined: the default) walked through Problem to the decision after Research; its progress commits made on `main`. */
function toResearchDecision(dir: string, run?: string): void {
  const at = run ? ['--run', run] : [];
  const docs = run ? `_docs/_runs/${run}` : '_docs';
  expect(autopilot(dir, 'next', ...at).code).toBe(0);
  write(dir, `${docs}/00_problem/problem.md`);
  write(dir, `${docs}/00_problem/acceptance_criteria.md`);
  expect(autopilot(dir, 'done', ...at).code).toBe(0);
  expect(autopilot(dir, 'next', ...at).code).toBe(0);
  write(dir, `${docs}/01_solution/solution_draft_01.md`);
  expect(autopilot(dir, 'done', ...at).code).toBe(3);
}

/** Run `run` failed three times at step 1. */
function failedThrice(dir: string, run: string): void {
  for (let i = 1; i <= 3; i++) {
    expect(autopilot(dir, 'next', '--run', run).code).toBe(0);
    expect(autopilot(dir, 'fail', '--reason', `the tests are red (${i})`, '--run', run).code).not.toBe(2);
  }
}

/** A git repository with 3 runs: the default at a decision, `b` failed three times, `c` at work. */
function threeRuns(): string {
  const dir = committedRepo();
  expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
  toResearchDecision(dir);
  failedThrice(dir, 'b');
  expect(autopilot(dir, 'next', '--run', 'c').code).toBe(0);
  return dir;
}

/** A repository with named runs only: `a` and `b`, both at work, no default run. */
function namedOnly(): string {
  const dir = committedRepo();
  expect(autopilot(dir, 'init', '--flow', 'greenfield', '--run', 'a').code).toBe(0);
  for (const run of ['a', 'b']) expect(autopilot(dir, 'next', '--run', run).code).toBe(0);
  git(dir, 'add', '-A');
  git(dir, 'commit', '--quiet', '-m', 'two runs');
  return dir;
}

describe('autopilot runs', () => {
  it('3 runs (default at a decision, b failed, c at work): 3 entries in JSON and text, 2 waiting, each with the exact command; both commands run as printed and accepted, then 0 wait', () => {
    const dir = threeRuns();
    const before = snapshot(dir);
    const r = autopilot(dir, 'runs', '--json');
    expect(r.code, r.stderr).toBe(0);
    const runs = r.json<{ runs: RunJson[] }>().runs;
    expect(runs.map((x) => x.run)).toEqual(['default', 'b', 'c']);
    expect(runs[0]).toMatchObject({ flow: 'greenfield', step: 2, name: 'Research', status: 'completed' });
    expect(runs[0]!.waits_for).toEqual({ kind: 'decision', question: 'Research is done — another round, or on to Plan?', command: 'autopilot decide B' });
    expect(runs[0]!.commit?.branch, 'the default run committed its steps on main').toBe('main');
    expect(runs[0]!.commit?.sha).toBe(git(dir, 'log', '-1', '--format=%H', '--', '_docs/_autopilot_state.md').trim());
    expect(runs[1]).toMatchObject({ run: 'b', step: 1, name: 'Problem', status: 'failed', waits_for: { kind: 'failed', command: 'autopilot ack --run b' } });
    expect(runs[2]).toMatchObject({ run: 'c', step: 1, name: 'Problem', status: 'in_progress', lease: { session: 'local' } });
    expect(runs[2]!.waits_for).toBeUndefined();
    expect(snapshot(dir), 'runs writes nothing').toEqual(before);

    const text = autopilot(dir, 'runs').stdout;
    expect(text.split('\n').filter((l) => /^ {2}\S/.test(l))).toHaveLength(3);
    expect(text).toMatch(/^ {2}default +greenfield · step 2 · Research · completed · waits for a decision answer: `autopilot decide B`/m);
    expect(text).toMatch(/^ {2}b +greenfield · step 1 · Problem · failed · waits for a person to look at the failure: `autopilot ack --run b`/m);
    expect(text).toMatch(/last commit [0-9a-f]{8} on main/);

    // Each command as printed, run as a person would: accepted, and nothing waits any more.
    for (const run of runs.filter((x) => x.waits_for)) {
      const answered = autopilot(dir, ...words(run.waits_for!.command));
      expect(answered.code, `${run.waits_for!.command}: ${answered.stderr}`).toBe(0);
    }
    const after = autopilot(dir, 'runs', '--json').json<{ runs: RunJson[] }>().runs;
    expect(after.filter((x) => x.waits_for)).toEqual([]);
  });

  it('an empty repository: 0 runs, says so and names init', () => {
    const dir = committedRepo();
    const r = autopilot(dir, 'runs');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('No run in this repository yet: `autopilot init` starts one');
    expect(autopilot(dir, 'runs', '--json').json()).toEqual({ runs: [] });
  });

  it('a run whose pointer is broken is listed with its problem; the 2 others are listed all the same', () => {
    const dir = namedOnly();
    write(dir, '_docs/_runs/c/_autopilot_state.md', '# Autopilot State\n\n## Current Step\nflow: nowhere\nstep: x\n');
    const r = autopilot(dir, 'runs', '--json');
    expect(r.code, r.stderr).toBe(0);
    const runs = r.json<{ runs: RunJson[] }>().runs;
    expect(runs.map((x) => x.run)).toEqual(['a', 'b', 'c']);
    expect(runs.filter((x) => x.status === 'in_progress')).toHaveLength(2);
    // The pointer's own problem, with its file and line, and no position made up for it.
    expect(runs[2]).toEqual({ run: 'c', problem: expect.stringMatching(/^_docs\/_runs\/c\/_autopilot_state\.md:\d+: /) });
    expect(autopilot(dir, 'runs').stdout).toMatch(/^ {2}c {2}cannot be read: _docs\/_runs\/c\/_autopilot_state\.md:\d+: /m);
  });
});

describe('no run named where the repository holds named runs only', () => {
  /** A line that runs `command` with the arguments and options it requires. */
  const lineOf = (command: (typeof COMMANDS)[number]): string[] => {
    if ('frontEnd' in command) return [command.name];
    const args = (command.arguments ?? []).filter((a) => !a.optional).map((a) => a.choices?.[0] ?? 'x');
    const options = (command.options ?? []).filter((o) => o.required).flatMap((o) => [o.flags.split(' ')[0]!.replace(/,$/, ''), 'x']);
    return [command.name, ...args, ...options];
  };
  const anyRun = COMMANDS.filter((c) => 'anyRun' in c && c.anyRun).map((c) => c.name);

  it(`every command of the registry: status shows the overview, the ${COMMANDS.length - 7} that act on one run exit 2 naming both runs' lines, 0 bytes written`, () => {
    expect(anyRun.sort(), 'the commands that need no run named').toEqual(['hook', 'init', 'report', 'runs', 'status', 'uninstall']);
    const dir = namedOnly();
    const before = snapshot(dir);
    const refused: string[] = [];
    for (const command of COMMANDS) {
      if ('frontEnd' in command || anyRun.includes(command.name)) continue;
      const r = autopilot(dir, ...lineOf(command));
      expect(r.code, `${command.name}: ${r.stdout}${r.stderr}`).toBe(2);
      expect(r.stderr).toContain('this repository holds named runs only (a, b)');
      expect(r.stderr).toContain(`\`autopilot ${command.name} --run a\``);
      expect(r.stderr).toContain(`\`autopilot ${command.name} --run b\``);
      const json = autopilot(dir, ...lineOf(command), '--json');
      expect(json.code).toBe(2);
      expect(json.json<{ error: { code: string } }>().error.code).toBe('bad_input');
      expect(snapshot(dir), `${command.name} wrote nothing`).toEqual(before);
      refused.push(command.name);
    }
    expect(refused).toHaveLength(COMMANDS.length - 7);

    const status = autopilot(dir, 'status');
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^ {2}a +greenfield · step 1 · Problem · in_progress/m);
    expect(status.stdout).toMatch(/^ {2}b +greenfield · step 1 · Problem · in_progress/m);
    expect(status.stdout).toContain('`autopilot status --run a`');
    const json = autopilot(dir, 'status', '--json').json<Record<string, unknown>>();
    expect(Object.keys(json), 'the overview: runs, and no position keys').toEqual(['runs']);
    expect((json.runs as RunJson[]).map((r) => r.run)).toEqual(['a', 'b']);
    expect(snapshot(dir), 'status wrote nothing').toEqual(before);
  });

  it('over MCP (the SDK client checking each answer against its schema): the runs tool lists 2 runs; status and next with no run are 2 tool errors naming both runs, 0 bytes written; next with run a answers', async () => {
    const dir = namedOnly();
    const before = snapshot(dir);
    const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
    const transport = new StdioClientTransport({ command: process.execPath, args: [join(ROOT, 'bin', 'autopilot.js'), '-C', dir, 'mcp'], env, stderr: 'pipe' });
    const client = new Client({ name: 'autopilot-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const runs = await client.callTool({ name: 'runs', arguments: {} });
      expect((runs.structuredContent as { runs: RunJson[] }).runs.map((r) => r.run)).toEqual(['a', 'b']);
      for (const name of ['status', 'next']) {
        const r = await client.callTool({ name, arguments: {} });
        expect(r.isError, name).toBe(true);
        expect((r.content as { text: string }[])[0]!.text).toMatch(/^bad_input: no run named: this repository holds named runs only \(a, b\)/);
      }
      expect(snapshot(dir)).toEqual(before);
      const next = await client.callTool({ name: 'next', arguments: { run: 'a' } });
      expect(next.isError, JSON.stringify(next.content)).toBeFalsy();
      expect(next.structuredContent).toMatchObject({ step: 1, name: 'Problem' });
    } finally {
      await client.close();
    }
  });

  it('with a default run, no run named is the default run as before: next works, and status --json keeps its keys and adds 2 runs', () => {
    const dir = committedRepo();
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    expect(autopilot(dir, 'next').code).toBe(0);
    expect(autopilot(dir, 'next', '--run', 'b').code).toBe(0);
    const json = autopilot(dir, 'status', '--json').json<{ step: number; status: string; runs: RunJson[] }>();
    expect(json).toMatchObject({ step: 1, status: 'in_progress' });
    expect(json.runs.map((r) => r.run)).toEqual(['default', 'b']);
    expect(json.runs[1]!.commit, 'status asks no git').toBeUndefined();
    expect(autopilot(dir, 'status').stdout).toContain('Other run b: step 1 · Problem · in_progress');
    expect(autopilot(dir, 'status', '--run', 'b').stdout).toContain('Other run default: step 1 · Problem · in_progress');
  });

  it('with one run only, status --json has no runs key', () => {
    const dir = committedRepo();
    expect(autopilot(dir, 'next').code).toBe(0);
    expect(autopilot(dir, 'status', '--json').json()).not.toHaveProperty('runs');
  });
});

describe('report, reset and uninstall with several runs', () => {
  it('report with 2 runs: 2 sections, each with its diagram, the default first, in Markdown and HTML', () => {
    const dir = committedRepo();
    toResearchDecision(dir);
    expect(autopilot(dir, 'next', '--run', 'feat').code).toBe(0);
    const r = autopilot(dir, 'report', '--html', '--json');
    expect(r.code, r.stderr).toBe(0);
    const md = snapshot(dir)['_docs/_autopilot_report.md']!;
    expect(md).toContain('# Autopilot report: 2 runs');
    expect(md.match(/```mermaid/g)).toHaveLength(2);
    expect(md.indexOf('## Run default')).toBeLessThan(md.indexOf('## Run feat'));
    expect(md).toContain('A person answers: `autopilot decide B`');
    const html = snapshot(dir)['_docs/_autopilot_report.html']!;
    expect(html.match(/<svg/g)).toHaveLength(2);
    expect(html.match(/<h1>/g)).toHaveLength(1);
    expect(html.indexOf('<h2>Run default')).toBeLessThan(html.indexOf('<h2>Run feat'));
  });

  it('reset --run c starts c over; the 2 other runs and their step files stay byte for byte', () => {
    const dir = threeRuns();
    const others = (all: Record<string, string>) => Object.fromEntries(Object.entries(all).filter(([path]) => !path.startsWith('_docs/_runs/c/')));
    const before = others(snapshot(dir));
    const r = autopilot(dir, 'reset', '--run', 'c');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('_docs/_runs/c/_autopilot_state.before-reset-');
    const after = snapshot(dir);
    expect(Object.keys(after).filter((p) => p.startsWith('_docs/_runs/c/') && p.includes('before-reset'))).toHaveLength(2);
    const gitFolder = (all: Record<string, string>) => Object.fromEntries(Object.entries(all).filter(([path]) => !path.startsWith('.git/')));
    expect(gitFolder(others(after))).toEqual(gitFolder(before));
    const runs = autopilot(dir, 'runs', '--json').json<{ runs: RunJson[] }>().runs;
    expect(runs.map((x) => `${x.run}:${x.status}`)).toEqual(['default:completed', 'b:failed', 'c:not_started']);
  });

  it('uninstall --remove-docs with 2 runs: both pointers and journals removed, a person note in each run kept, _runs emptied of autopilot files', () => {
    const dir = committedRepo();
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    expect(autopilot(dir, 'next').code).toBe(0);
    expect(autopilot(dir, 'next', '--run', 'b').code).toBe(0);
    // Run b's lease lives in the common git folder (docs/runs.md): it goes with the run.
    expect(existsSync(join(dir, '.git', 'autopilot', 'runs', 'b', 'lease.json'))).toBe(true);
    write(dir, '_docs/notes.md', 'mine\n');
    write(dir, '_docs/_runs/b/notes.md', 'mine too\n');
    const r = autopilot(dir, 'uninstall', '--remove-docs', '--json');
    expect(r.code, r.stderr).toBe(0);
    const docs = r.json<{ docs: { removed: string[]; kept: string[] } }>().docs;
    expect(docs.removed).toEqual(
      expect.arrayContaining([
        '_docs/_autopilot_state.md',
        '_docs/_autopilot/journal.jsonl',
        '_docs/_runs/b/_autopilot_state.md',
        '_docs/_runs/b/_autopilot/journal.jsonl',
      ]),
    );
    expect(docs.kept.sort()).toEqual(['_docs/_runs/b/notes.md', '_docs/notes.md']);
    const left = Object.keys(snapshot(dir)).filter((p) => p.startsWith('_docs/'));
    expect(left.sort()).toEqual(['_docs/_runs/b/notes.md', '_docs/notes.md']);
    expect(existsSync(join(dir, '.git', 'autopilot', 'runs', 'b'))).toBe(false);
  });
});
