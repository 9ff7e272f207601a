/** The help a person learns from: examples that run, required options marked, exit codes from one source, 80 columns. */
import { describe, expect, it } from 'vitest';
import { exitCodesText, parseCommandLine, usageText } from '../../../src/cli/parse-args.js';
import { editDistance, suggest } from '../../../src/cli/suggest.js';
import { GLOBAL_OPTIONS } from '../../../src/commands/command.js';
import { COMMANDS } from '../../../src/commands/index.js';
import { ERROR_CODES, ERROR_EXIT, EXIT } from '../../../src/errors.js';

/** A help example as the shell would split it: words, "quoted words" as one, up to `&&`. */
const words = (line: string) => [...line.split(' && ')[0]!.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!).slice(1);

const help = (...args: string[]) => {
  const parsed = parseCommandLine(args, COMMANDS, '1.2.3');
  if (parsed.kind !== 'help') throw new Error(`not help: ${parsed.kind}`);
  return parsed.text;
};

describe('help', () => {
  it(`gives each of the ${COMMANDS.length} commands 2 or 3 examples, each a line the command line reads as that command`, () => {
    for (const command of COMMANDS) {
      expect(command.examples.length, command.name).toBeGreaterThanOrEqual(2);
      expect(command.examples.length, command.name).toBeLessThanOrEqual(3);
      for (const example of command.examples) {
        const parsed = parseCommandLine(words(example.line), COMMANDS, '1.2.3');
        expect(parsed, example.line).toMatchObject({ kind: 'run', command: { name: command.name } });
        expect(help('help', command.name)).toContain(`  ${example.line}\n`);
      }
    }
  });

  it('marks the required options (skip and fail: --reason) in the usage line and the option rows', () => {
    for (const name of ['skip', 'fail']) {
      const text = help('help', name);
      expect(text).toMatch(new RegExp(`^Usage: autopilot ${name} --reason <text> \\[options\\]$`, 'm'));
      expect(text).toMatch(/^ {2}--reason <text> +required: /m);
    }
    expect(help('help', 'done')).not.toMatch(/required/);
  });

  it('lists the global options once, in the program help, and each of the 5 exit codes with every error code that gives it', () => {
    const program = help('--help');
    for (const option of GLOBAL_OPTIONS) expect(program).toContain(`  ${option.flags} `);
    for (const command of COMMANDS) {
      const text = help('help', command.name);
      for (const option of GLOBAL_OPTIONS) expect(text, command.name).not.toMatch(new RegExp(`^ {2}${option.flags.replace(/[-<>]/g, '\\$&')} `, 'm'));
      expect(text).toContain('`autopilot help` says what they do, and lists the exit codes');
    }
    const codes = exitCodesText();
    expect(program).toContain(codes);
    for (const exit of Object.values(EXIT)) expect(codes).toMatch(new RegExp(`^ {2}${exit} {2}\\S`, 'm'));
    for (const code of ERROR_CODES) {
      const row = codes.split(/\n(?= {2}\d)/).find((r) => r.startsWith(`  ${ERROR_EXIT[code]}  `))!;
      expect(row.replace(/\s+/g, ' '), code).toContain(code);
    }
  });

  it(`keeps every line of the program help and the ${COMMANDS.length} commands' help within 80 columns`, () => {
    for (const text of [help('--help'), ...COMMANDS.map((c) => help('help', c.name)), usageText('1.2.3', { line: 'autopilot init', why: 'set it up' })]) {
      for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    }
  });

  it('says --hooks adds both hooks, for Claude Code and for Codex', () => {
    expect(help('help', 'init').replace(/\s+/g, ' ')).toContain(
      '--hooks also add the SessionStart and SessionEnd hooks: Claude Code (.claude/settings.json) and Codex (.codex/hooks.json)',
    );
  });

  it('reads a line with no command as a short usage (exit 0), and `help <command>`, `<command> --help` and `--help` as help', () => {
    expect(parseCommandLine([], COMMANDS, '1')).toEqual({ kind: 'usage', globals: {} });
    expect(parseCommandLine(['-C', '../app', '--json'], COMMANDS, '1')).toEqual({ kind: 'usage', globals: { C: '../app', json: true } });
    expect(help('skip', '--help')).toBe(help('help', 'skip'));
    expect(help('help')).toBe(help('-h'));
  });
});

describe('bad usage, in the engine’s words', () => {
  const problem = (...args: string[]) => {
    const parsed = parseCommandLine(args, COMMANDS, '1');
    if (parsed.kind !== 'error') throw new Error(`not an error: ${parsed.kind}`);
    return parsed.problem;
  };

  it('a missing required option names what it is for, an example that gives it, and what was received', () => {
    expect(problem('skip')).toEqual({
      message: '`autopilot skip` needs --reason <text>: why it is skipped',
      expected: '`autopilot skip --reason "no network surface"`',
      received: 'no --reason',
    });
    expect(problem('fail', '--step', '2')).toMatchObject({ expected: '`autopilot fail --reason "the suite is red"`', received: 'no --reason' });
    expect(problem('decide')).toMatchObject({ message: '`autopilot decide` needs the argument <option>: the option letter, A to D', received: 'no option' });
  });

  it('suggests the nearest for each of 6 slips: statsu, nxt, help statsu, --josn, --reasn, init --hook', () => {
    expect(problem('statsu').message).toBe('`statsu` is not a command; did you mean `status`?');
    expect(problem('nxt').message).toBe('`nxt` is not a command; did you mean `next`?');
    expect(problem('help', 'statsu').message).toBe('`statsu` is not a command; did you mean `status`?');
    expect(problem('status', '--josn')).toEqual({
      message: '`--josn` is not an option of `autopilot status`; did you mean `--json`?',
      expected: 'an option from `autopilot help status`',
      received: '--josn',
    });
    expect(problem('skip', '--reasn', 'x').message).toBe('`--reasn` is not an option of `autopilot skip`; did you mean `--reason`?');
    expect(problem('init', '--hook').message).toBe('`--hook` is not an option of `autopilot init`; did you mean `--hooks`?');
    expect(problem('frobnicate').message).toBe('`frobnicate` is not a command');
  });
});

describe('suggest', () => {
  it('counts a swap of two neighbouring letters as one edit, and finds nothing for a word far from all', () => {
    expect(editDistance('statsu', 'status')).toBe(1);
    expect(editDistance('josn', 'json')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(suggest('chekc', ['check', 'checkpoint', 'checkpoints'])).toEqual(['check']);
    expect(suggest('--tak-over', ['--take-over', '--step'])).toEqual(['--take-over']);
    expect(suggest('xyz', ['status', 'next', 'done'])).toEqual([]);
    expect(suggest('dne', ['done', 'dune'])).toEqual(['done', 'dune']);
  });
});
