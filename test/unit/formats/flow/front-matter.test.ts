/** Hostile YAML in a flow's front matter: every case is a problem with the file and a line, never an exception. */
import { describe, expect, it } from 'vitest';
import { readFrontMatter } from '../../../../src/formats/flow/front-matter.js';
import { YAML_MAX_ALIASES, YAML_MAX_NESTING } from '../../../../src/limits.js';

const FILE = 'flows/demo.md';
const BASE = 'id: demo\ntitle: Demo\nscan_order: 1\n';
/** The front matter starts at line 1 (the `---`), so its first YAML line is line 2. */
const read = (yaml: string) => readFrontMatter(yaml, FILE, 1, 'demo');

describe('nesting', () => {
  it(`14,169 levels of \`[\` (a fuzz case yaml took 1.3 s on) are refused at the line where the ${YAML_MAX_NESTING + 1}th opens, before yaml runs`, () => {
    const started = process.cpuUsage();
    const { value, problems } = read(`${BASE}deep: ${'['.repeat(14_169)}\n`);
    const cpu = process.cpuUsage(started);
    expect(value).toBeUndefined();
    expect(problems).toEqual([expect.objectContaining({ file: FILE, line: 5, message: expect.stringContaining(`more than ${YAML_MAX_NESTING} deep`) })]);
    // A linear scan: far under the second yaml took (CPU time, so a busy machine does not blur it).
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(100);
  });

  it(`${YAML_MAX_NESTING} levels, closed again, still read as YAML`, () => {
    const { problems } = read(`${BASE}deep: ${'['.repeat(YAML_MAX_NESTING)}1${']'.repeat(YAML_MAX_NESTING)}\n`);
    expect(problems.map((p) => p.message)).toEqual(['unknown front matter key `deep`']);
  });
});

describe('YAML aliases', () => {
  it('an alias bomb is refused at its first alias, before anything expands', () => {
    const levels = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
    for (const [name, previous] of ['ba', 'cb', 'dc', 'ed', 'fe', 'gf', 'hg']) levels.push(`${name}: &${name} [${`*${previous}, `.repeat(8)}*${previous}]`);
    const { value, problems } = read(`${BASE}${levels.join('\n')}\n`);
    expect(value).toBeUndefined();
    expect(problems).toEqual([expect.objectContaining({ file: FILE, line: 6, message: expect.stringContaining('aliases cannot be expanded') })]);
  });

  it('an alias to an anchor that does not exist, or comes later, names its line', () => {
    expect(read(`${BASE}x: *a\n`).problems).toEqual([
      expect.objectContaining({ file: FILE, line: 5, message: 'the YAML alias `*a` names no anchor defined before it', received: '*a' }),
    ]);
    expect(read(`${BASE}x: *a\ny: &a 1\n`).problems[0]).toMatchObject({ line: 5 });
  });

  it(`more than ${YAML_MAX_ALIASES} aliases are refused at the first one too many`, () => {
    const aliases = Array.from({ length: YAML_MAX_ALIASES + 1 }, (_, i) => `r${i}: *a`).join('\n');
    expect(read(`${BASE}a: &a 1\n${aliases}\n`).problems).toEqual([
      expect.objectContaining({ line: 6 + YAML_MAX_ALIASES, message: `the front matter uses more than ${YAML_MAX_ALIASES} YAML aliases` }),
    ]);
  });

  it('an alias inside its own anchor (circular data) is a problem, not a crash', () => {
    const { problems } = read(`${BASE}detect: &d { any: *d }\n`);
    expect(problems).toEqual([expect.objectContaining({ line: 5, message: '`detect.any` is not a list of path patterns' })]);
    expect(read(`id: &i [*i]\ntitle: Demo\nscan_order: 1\n`).problems[0]).toMatchObject({ line: 2, message: 'the flow id must match the file name' });
  });

  it('a few plain aliases still work', () => {
    expect(read(`id: demo\ntitle: &t Demo\nscan_order: 1\ndescription: *t\n`).value).toMatchObject({ id: 'demo', title: 'Demo' });
  });
});

describe('other YAML the reader must survive', () => {
  it('nesting past the stack is a problem at its line', () => {
    const { problems } = read(`${BASE}deep: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`);
    expect(problems[0]).toMatchObject({ file: FILE, line: 5, message: expect.stringContaining('deep') });
  });

  it('long values are shortened in messages', () => {
    const { problems } = read(`id: demo\ntitle: ${'x'.repeat(10_000)}\nscan_order: [${'1, '.repeat(1_000)}1]\n`);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.received!.length).toBeLessThan(100);
  });
});

describe('block nesting (a fuzz case: a skill front matter of 21,600 compact `- ` indicators overflowed yaml’s stack)', () => {
  it(`${YAML_MAX_NESTING + 1} compact \`- \` indicators on one line are refused at that line, before yaml runs; ${YAML_MAX_NESTING} still read`, () => {
    const deep = read(`${BASE}${'- '.repeat(20_000)}x\n`);
    expect(deep.problems).toEqual([expect.objectContaining({ file: FILE, line: 5, message: expect.stringContaining(`more than ${YAML_MAX_NESTING} deep`) })]);
    const indented = read(`${BASE}list:\n${' '.repeat(2 * (YAML_MAX_NESTING + 1))}- x\n`);
    expect(indented.problems).toEqual([expect.objectContaining({ line: 6, message: expect.stringContaining('indentation') })]);
    const fine = read(`${BASE}deep:\n  ${'- '.repeat(YAML_MAX_NESTING - 2)}x\n`);
    expect(fine.problems.filter((p) => p.message.includes('nests'))).toEqual([]);
  });
});
