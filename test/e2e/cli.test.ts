/** What a user relies on from the command line, beyond the walks: the example, hand edits, bad input, JSON, no stray writes. */
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/engine.js';
import { autopilot, exampleCopy, journal, read, snapshot, tempRepo, write, writeArtifacts, type NextJson } from '../helpers/cli.js';

const POINTER = '_docs/_autopilot_state.md';

describe('the bundled example', () => {
  it('status names step 3, Plan, resuming at sub-step 4, and writes nothing', () => {
    const before = snapshot(join(ROOT, '_docs-example'));
    const status = autopilot(join(ROOT, '_docs-example'), 'status', '--json');
    expect(status.code).toBe(0);
    expect(status.json()).toMatchObject({
      flow: 'greenfield',
      step: 3,
      name: 'Plan',
      status: 'in_progress',
      sub_step: '4 — Architecture review and risks',
      retry_count: 0,
      source: 'state',
      drift: [],
      done_when: ['_docs/01_solution/solution.md', '_docs/02_document/architecture.md'],
    });
    expect(snapshot(join(ROOT, '_docs-example'))).toEqual(before);
  });

  it('next resumes Plan with its skill and the files that will prove it', () => {
    const dir = exampleCopy();
    const next = autopilot(dir, 'next', '--json');
    expect(next.code).toBe(0);
    expect(next.json()).toMatchObject({
      step: 3,
      action: 'resume',
      resume: '4 — Architecture review and risks',
      done_when: ['_docs/01_solution/solution.md', '_docs/02_document/architecture.md'],
    });
    expect(existsSync(next.json<NextJson>().skill!)).toBe(true);
  });

  it('keeps text output short: next under 1 KB, status under 2 KB', () => {
    const dir = exampleCopy();
    expect(Buffer.byteLength(autopilot(dir, 'status').stdout)).toBeLessThan(2048);
    expect(Buffer.byteLength(autopilot(dir, 'next').stdout)).toBeLessThan(1024);
  });
});

describe('the pointer', () => {
  it("reads the contract's template written by hand", () => {
    const dir = tempRepo();
    write(dir, 'package.json', '{}');
    writeArtifacts(dir, ['_docs/02_document/architecture.md', '_docs/02_document/components.md']);
    write(
      dir,
      POINTER,
      '# Autopilot State\n\n## Current Step\nflow: existing-code\nstep: 2\nname: Test Spec\nstatus: failed\nsub_step: 1b — Test Case Generation\nretry_count: 3\n',
    );
    expect(autopilot(dir, 'status', '--json').json()).toMatchObject({
      flow: 'existing-code',
      step: 2,
      status: 'failed',
      sub_step: '1b — Test Case Generation',
      retry_count: 3,
      source: 'state',
      drift: [],
    });
    const next = autopilot(dir, 'next');
    expect(next.code).toBe(3);
    expect(next.stdout).toContain('autopilot ack');
  });

  it('refuses a malformed pointer with exit 2, file and line, and leaves it untouched', () => {
    const dir = tempRepo();
    const text = '# Autopilot State\n\n## Current Step\nflow: greenfield\nstep: 2\nname: Research\nstatus: halfway\nsub_step: 0\nretry_count: 0\n';
    write(dir, POINTER, text);
    const before = snapshot(dir);
    for (const command of ['status', 'next', 'done', 'substep']) {
      const run = autopilot(dir, command, ...(command === 'substep' ? ['2'] : []));
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('_docs/_autopilot_state.md:7: the status is not one autopilot knows');
      expect(run.stderr).toContain('checkout HEAD -- _docs/_autopilot_state.md');
    }
    const json = autopilot(dir, 'next', '--json');
    expect(json.json<{ error: Record<string, unknown> }>().error).toMatchObject({
      code: 'bad_input',
      file: '_docs/_autopilot_state.md',
      line: 7,
      received: 'halfway',
    });
    expect(snapshot(dir)).toEqual(before);
    expect(read(dir, POINTER)).toBe(text);
  });

  it('names the line of an unknown flow or a step the flow does not have', () => {
    const dir = tempRepo();
    write(dir, POINTER, '## Current Step\nflow: brownfield\nstep: 2\nname: X\nstatus: not_started\nsub_step: 0\nretry_count: 0\n');
    expect(autopilot(dir, 'status').stderr).toContain('_autopilot_state.md:2: the pointer names the flow `brownfield`');
    write(dir, POINTER, '## Current Step\nflow: greenfield\nstep: 12\nname: X\nstatus: not_started\nsub_step: 0\nretry_count: 0\n');
    expect(autopilot(dir, 'status').stderr).toContain('_autopilot_state.md:3: greenfield has no step 12');
    const check = autopilot(dir, 'check', '--json');
    expect(check.code).toBe(2);
    expect(check.json()).toMatchObject({ pointer: 'invalid', problems: [{ file: '_docs/_autopilot_state.md', line: 3 }] });
  });

  it("keeps a person's extra sections when it rewrites the pointer, and never leaves a temporary file", () => {
    const dir = tempRepo();
    write(
      dir,
      POINTER,
      '# Autopilot State\n\n## Current Step\nflow: greenfield\nstep: 1\nname: Problem\nstatus: not_started\nsub_step: 0\nretry_count: 0\n\n## Notes\nAsk Dana about the UI.\n',
    );
    expect(autopilot(dir, 'next').code).toBe(0);
    expect(read(dir, POINTER)).toContain('status: in_progress');
    expect(read(dir, POINTER)).toContain('## Notes\nAsk Dana about the UI.');
    expect(readdirSync(join(dir, '_docs')).sort()).toEqual(['_autopilot', '_autopilot_state.md']);
  });
});

describe('drift between pointer and folder', () => {
  const ahead = (dir: string) => {
    writeArtifacts(dir, ['_docs/00_problem/problem.md', '_docs/00_problem/acceptance_criteria.md', '_docs/01_solution/solution_draft_01.md']);
    write(dir, POINTER, '## Current Step\nflow: greenfield\nstep: 6\nname: Implement\nstatus: in_progress\nsub_step: 0\nretry_count: 0\n');
  };

  it('status reports it and writes nothing', () => {
    const dir = tempRepo();
    ahead(dir);
    const before = snapshot(dir);
    const status = autopilot(dir, 'status', '--json').json<NextJson>();
    expect(status).toMatchObject({ step: 3, source: 'folder' });
    expect(status.drift[0]!.message).toContain('step 3 (Plan) has missing `01_solution/solution.md`');
    expect(snapshot(dir)).toEqual(before);
  });

  it('done refuses to mark a step the pointer no longer shows, and writes nothing; next repairs the pointer and journals the repair', () => {
    const dir = tempRepo();
    ahead(dir);
    const before = read(dir, POINTER);
    const done = autopilot(dir, 'done', '--json');
    expect(done.code).toBe(2);
    expect(done.json<NextJson>().error!.message).toContain('nothing was recorded');
    // A refused command takes no lease and writes nothing, not even the repair it found on the way.
    expect(read(dir, POINTER)).toBe(before);
    expect(existsSync(join(dir, '_docs/_autopilot/journal.jsonl'))).toBe(false);
    expect(autopilot(dir, 'next', '--json').json<NextJson>()).toMatchObject({ step: 3 });
    expect(read(dir, POINTER)).toContain('step: 3\nname: Plan');
    expect(journal(dir)).toContainEqual(expect.objectContaining({ event: 'position_repaired', step: 3, source: 'folder' }));
    expect(autopilot(dir, 'next', '--json').json<NextJson>()).toMatchObject({ step: 3, drift: [] });
  });
});

describe('bad input and JSON', () => {
  it('prints exactly one JSON object on stdout for every command, errors included', () => {
    const dir = tempRepo();
    const runs = [
      autopilot(dir, 'status', '--json'),
      autopilot(dir, 'next', '--json'),
      autopilot(dir, 'substep', '2 — Restrictions', '--json'),
      autopilot(dir, 'done', '--json'),
      autopilot(dir, 'fail', '--reason', 'x', '--json'),
      autopilot(dir, 'skip', '--reason', 'x', '--json'),
      autopilot(dir, 'decide', 'A', '--json'),
      autopilot(dir, 'ack', '--json'),
      autopilot(dir, 'log', '--json'),
      autopilot(dir, 'check', '--json'),
      autopilot(dir, 'init', '--json'),
      autopilot(dir, 'frobnicate', '--json'),
      autopilot(dir, 'fail', '--json'),
    ];
    for (const run of runs) {
      expect(() => JSON.parse(run.stdout), run.stdout).not.toThrow();
      expect(run.stdout.trim().split('\n')).toHaveLength(1);
    }
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 2, 0, 2, 2, 2, 0, 0, 0, 2, 2]);
  });

  it('refuses paths outside the repository and folders that do not exist', () => {
    const dir = tempRepo();
    const outside = autopilot(dir, '--docs', '../elsewhere', 'status');
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('outside the repository');
    expect(autopilot(dir, '--docs', '/tmp', 'status').code).toBe(2);
    expect(autopilot(join(dir, 'no-such-folder'), 'status').code).toBe(2);
    expect(existsSync(join(dir, '..', 'elsewhere'))).toBe(false);
  });

  it('does not write through a symlink that leads out of the repository', () => {
    const dir = tempRepo();
    const outside = tempRepo();
    const target = join(outside, 'pointer.md');
    const text = '## Current Step\nflow: greenfield\nstep: 1\nname: Problem\nstatus: not_started\nsub_step: 0\nretry_count: 0\n';
    writeFileSync(target, text);
    mkdirSync(join(dir, '_docs'));
    symlinkSync(target, join(dir, POINTER));
    const next = autopilot(dir, 'next');
    expect(next.code).toBe(2);
    expect(next.stderr).toContain('this path is a symlink');
    expect(readFileSync(target, 'utf8')).toBe(text);
  });

  it('uses another docs folder when asked', () => {
    const dir = tempRepo();
    const next = autopilot(dir, '--docs', 'docs/autopilot', 'next', '--json');
    expect(next.json<NextJson>().done_when![0]).toBe('docs/autopilot/00_problem/problem.md');
    expect(existsSync(join(dir, 'docs/autopilot/_autopilot_state.md'))).toBe(true);
  });

  it('exits 2 on bad usage', () => {
    const dir = tempRepo();
    expect(autopilot(dir, 'nxt').code).toBe(2);
    expect(autopilot(dir, 'decide').code).toBe(2);
    expect(autopilot(dir, 'log', '--limit', 'many').code).toBe(2);
    expect(autopilot(dir, 'done', '--force').code).toBe(2);
  });

  it('lets a person force a step done, and the journal keeps the reason as its evidence', () => {
    const dir = tempRepo();
    expect(autopilot(dir, 'done', '--force', '--reason', 'agreed on a call', '--json').json()).toMatchObject({ step: 2, outcome: 'advanced' });
    expect(journal(dir)).toContainEqual(expect.objectContaining({ event: 'step_completed', step: 1, forced: true, reason: 'agreed on a call' }));
    expect(autopilot(dir, 'status', '--json').json()).toMatchObject({ step: 2, drift: [] });
  });
});

describe("a repository's own flows", () => {
  const own = `---\nid: greenfield\ntitle: Our short greenfield\nscan_order: 2\n---\n\n## Step Reference Table\n\n| Step | Name | Runs | Skill | Sub-steps | Done when | Then |\n|---|---|---|---|---|---|---|\n| 1 | Brief | always | \`problem\` | 1 Write it | \`brief.md\` | next |\n| 2 | Build | always | \`implement\` | 1 Build it | \`build.md\` | end |\n`;

  it('replace the built-in flow of the same name, and are parsed once then cached', () => {
    const dir = tempRepo();
    write(dir, '.autopilot/flows/greenfield.md', own);
    expect(autopilot(dir, 'next', '--json').json()).toMatchObject({ flow: 'greenfield', step: 1, name: 'Brief', steps: 2 });
    expect(existsSync(join(dir, '_docs/_autopilot/cache/flows.json'))).toBe(true);
    write(dir, '_docs/brief.md');
    expect(autopilot(dir, 'done', '--json').json()).toMatchObject({ step: 2, name: 'Build' });
  });

  it('a broken one is refused with its file and line, and check lists every problem', () => {
    const dir = tempRepo();
    write(dir, '.autopilot/flows/greenfield.md', own.replace('| end |', '| stop |').replace('| 1 | Brief |', '| 1 | |'));
    const status = autopilot(dir, 'status');
    expect(status.code).toBe(2);
    expect(status.stderr).toContain('.autopilot/flows/greenfield.md:11: the step has no name');
    const check = autopilot(dir, 'check', '--json');
    expect(check.code).toBe(2);
    const problems = check.json<{ problems: { line: number; message: string }[] }>().problems;
    expect(problems.map((p) => p.line)).toEqual([11, 12]);
  });
});

describe('init', () => {
  it('sets a repository up once, keeps what is there, and can start a flow', () => {
    const dir = tempRepo();
    writeFileSync(join(dir, '.gitignore'), 'node_modules/\n');
    const first = autopilot(dir, 'init', '--json').json<{ created: string[]; changed: string[] }>();
    expect(first.changed).toEqual(['.gitignore']);
    expect(first.created).toEqual(
      expect.arrayContaining([
        '.gitattributes',
        '.claude/commands/autopilot.md',
        '.cursor/commands/autopilot.md',
        'AGENTS.md',
        'CLAUDE.md',
        '.claude/settings.json',
        '.codex/config.toml',
        '.codex/rules/autopilot.rules',
      ]),
    );
    expect(read(dir, '.gitignore')).toBe(
      'node_modules/\n\n# autopilot: files local to one machine\n/_docs/_autopilot/cache/\n/_docs/_autopilot/lease*\n/_docs/_autopilot/lock*\n/_docs/_autopilot/checkpoints/\n/_docs/*.autopilot-tmp-*\n',
    );
    expect(read(dir, '.gitattributes')).toContain('/_docs/_autopilot/journal.jsonl merge=union');
    expect(read(dir, '.claude/commands/autopilot.md')).toContain('autopilot.js <command> --json --session ${CLAUDE_SESSION_ID}');
    expect(read(dir, '.claude/commands/autopilot.md')).not.toContain('npx');
    const before = snapshot(dir);
    expect(autopilot(dir, 'init', '--json').json<{ created: string[] }>().created).toEqual([]);
    expect(snapshot(dir)).toEqual(before);

    const started = autopilot(dir, 'init', '--flow', 'existing-code', '--json');
    expect(started.json()).toMatchObject({ pointer: { flow: 'existing-code', step: 1 } });
    expect(readFileSync(join(dir, POINTER), 'utf8')).toContain('flow: existing-code\nstep: 1\nname: Document\nstatus: not_started');
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(2);
    expect(autopilot(dir, 'init', '--flow', 'nope').code).toBe(2);
  });
});
