/** The help and the slips a new user meets, through the built command line: a short usage, suggestions, one error style, nothing written. */
import { describe, expect, it } from 'vitest';
import { autopilot, autopilotWith, snapshot, tempRepo } from '../helpers/cli.js';

describe('autopilot alone', () => {
  it('prints a short usage and `autopilot init` in a folder with no run, `autopilot status` in one with a run; exit 0, nothing written', () => {
    const dir = tempRepo();
    const bare = autopilot(dir);
    expect(bare).toMatchObject({ code: 0, stderr: '' });
    expect(bare.stdout).toContain(`Next: autopilot -C ${dir} init`);
    expect(bare.stdout.split('\n').length).toBeLessThan(10);
    expect(snapshot(dir)).toEqual({});
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    expect(autopilot(dir).stdout).toContain(`Next: autopilot -C ${dir} status`);
    expect(autopilot(dir, '--json').json()).toEqual({
      usage: 'autopilot [options] <command>',
      next: `autopilot -C ${dir} status`,
      why: 'where the work stands',
    });
  });

  it('prints the whole help, with its 5 exit codes, on `autopilot help` and `--help` (exit 0)', () => {
    for (const args of [['help'], ['--help']]) {
      const help = autopilotWith({}, undefined, ...args);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^Exit codes:\n {2}0 {2}done\n {2}1 .*\n(?: {5}.*\n)* {2}2 [\s\S]* {2}3 [\s\S]* {2}4 /m);
    }
  });
});

describe('slips', () => {
  it('answers each of 5 slips (statsu, nxt, status --josn, skip --reasn, init --hook) with exit 2, the nearest word, and nothing written', () => {
    const dir = tempRepo();
    const cases: [string[], string][] = [
      [['statsu'], '`statsu` is not a command; did you mean `status`?'],
      [['nxt'], '`nxt` is not a command; did you mean `next`?'],
      [['status', '--josn'], '`--josn` is not an option of `autopilot status`; did you mean `--json`?'],
      [['skip', '--reasn', 'x'], '`--reasn` is not an option of `autopilot skip`; did you mean `--reason`?'],
      [['init', '--hook'], '`--hook` is not an option of `autopilot init`; did you mean `--hooks`?'],
    ];
    for (const [args, said] of cases) {
      const run = autopilot(dir, ...args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.split('\n')[0]).toBe(said);
      expect(run.stderr).toMatch(/^ {2}expected: .*\n {2}received: /m);
    }
    expect(snapshot(dir)).toEqual({});
  });

  it('says a missing --reason (skip, fail) as the engine says bad input, in text and in --json', () => {
    const dir = tempRepo();
    autopilot(dir, 'init', '--flow', 'greenfield');
    const before = snapshot(dir);
    const text = autopilot(dir, 'fail');
    expect(text.code).toBe(2);
    expect(text.stderr).toBe(
      '`autopilot fail` needs --reason <text>: what went wrong\n  expected: `autopilot fail --reason "the suite is red"`\n  received: no --reason\n',
    );
    const json = autopilot(dir, 'skip', '--json');
    expect(json.code).toBe(2);
    expect(json.json()).toEqual({
      error: {
        code: 'bad_input',
        message:
          '`autopilot skip` needs --reason <text>: why it is skipped\n  expected: `autopilot skip --reason "no network surface"`\n  received: no --reason',
        expected: '`autopilot skip --reason "no network surface"`',
        received: 'no --reason',
      },
    });
    expect(snapshot(dir)).toEqual(before);
  });

  it("`help init` says --hooks adds SessionStart and SessionEnd, to Claude Code's settings and to .codex/hooks.json", () => {
    const help = autopilotWith({}, undefined, 'help', 'init').stdout.replace(/\s+/g, ' ');
    expect(help).toContain('SessionStart and SessionEnd hooks: Claude Code (.claude/settings.json) and Codex (.codex/hooks.json)');
    expect(help).toContain('autopilot init --hooks');
  });
});
