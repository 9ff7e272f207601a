/**
 * The command line's quick read (`quickParse`) answers only lines it reads
 * exactly as `util.parseArgs` does, and leaves every other line to it.
 */
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parserOptions, quickParse } from '../../../src/cli/parse-args.js';
import { GLOBAL_OPTIONS } from '../../../src/commands/command.js';
import { COMMANDS } from '../../../src/commands/index.js';

const WORDS = [
  'next',
  'status',
  'done',
  'substep',
  'dir',
  '3',
  'x',
  '',
  '-',
  '--',
  '-C',
  '--C',
  '--docs',
  '--session',
  '--json',
  '-h',
  '--help',
  '-V',
  '--step',
  '--take-over',
  '--commit',
  '--force',
  '--json=1',
  '--docs=x',
  '-hV',
  '-Cdir',
  '--nope',
  '-z',
];

describe('quickParse', () => {
  it('agrees with util.parseArgs on every line it answers, for every command (30,000 random lines), and answers the usual ones', () => {
    let answered = 0;
    fc.assert(
      fc.property(fc.constantFrom(...COMMANDS), fc.array(fc.constantFrom(...WORDS), { maxLength: 7 }), (command, args) => {
        const own = 'frontEnd' in command ? [] : (command.options ?? []);
        const { specs } = parserOptions([...GLOBAL_OPTIONS, ...own]);
        const quick = quickParse(args, specs);
        if (quick === undefined) return;
        answered++;
        const { values, positionals } = parseArgs({ args: [...args], options: specs, allowPositionals: true, strict: true });
        expect(quick).toEqual({ values: { ...values }, positionals });
      }),
      { numRuns: 30_000 },
    );
    expect(answered).toBeGreaterThan(3_000);
    const { specs } = parserOptions(GLOBAL_OPTIONS);
    expect(quickParse(['-C', '/repo', 'status', '--json'], specs)).toEqual({ values: { C: '/repo', json: true }, positionals: ['status'] });
    expect(quickParse(['status', '--docs=x'], specs)).toBeUndefined();
  });
});
