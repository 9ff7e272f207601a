/**
 * A repository is untrusted input: each file below used to crash the CLI
 * (exit 1) or keep it busy for seconds. Each is now refused with exit 2,
 * naming the file (and the line, where there is one), in well under a second.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLOW_MAX_BYTES, MARKDOWN_LIMITS, SKILL_MAX_BYTES } from '../../src/limits.js';
import { ROOT } from '../helpers/engine.js';
import { autopilot, snapshot, tempRepo, write, type Run } from '../helpers/cli.js';

const FLOW = '.autopilot/flows/hostile.md';
const GREENFIELD = readFileSync(join(ROOT, 'flows', 'greenfield.md'), 'utf8').replace('id: greenfield', 'id: hostile');
const CACHE = '_docs/_autopilot/cache/flows.json';

/** The line of a body `\n<text>` added after the flow: the flow's own lines, then a blank one. */
const BODY = GREENFIELD.split('\n').length + 1;

/** The built-in greenfield flow as the repository's `hostile` flow, with `front` added to its front matter and `body` after it. */
function hostileFlow(front = '', body = ''): string {
  return GREENFIELD.replace('---\n', `---\n${front}`) + body;
}

/**
 * Runs the CLI and times it. A run over one second is run once more before
 * the time counts, so a moment of contention on a busy machine is not taken
 * for a slow parser; a parser that takes seconds fails both runs.
 */
function timed(dir: string, ...args: string[]): Run & { ms: number } {
  const once = () => {
    const start = performance.now();
    const run = autopilot(dir, ...args);
    return { ...run, ms: performance.now() - start };
  };
  const first = once();
  return first.ms < 1_000 ? first : once();
}

function expectRefused(run: Run & { ms: number }, where: string | RegExp): void {
  expect(run.code, run.stderr).toBe(2);
  expect(run.stderr + run.stdout).toMatch(where);
  expect(run.stderr).not.toContain('internal error');
  expect(run.ms).toBeLessThan(1_000);
}

describe('a flow file the parser used to choke on', () => {
  const cases: [string, string, RegExp][] = [
    [
      'a YAML alias bomb in the front matter',
      hostileFlow(
        [
          'a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]',
          'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
          'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
          'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
          'e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]',
          'f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]',
          'g: [*f, *f, *f, *f, *f, *f, *f, *f, *f]',
          '',
        ].join('\n'),
      ),
      /\.autopilot\/flows\/hostile\.md:3: the front matter's YAML aliases cannot be expanded/,
    ],
    ['an alias to no anchor', hostileFlow('x: *a\n'), /\.autopilot\/flows\/hostile\.md:2: the YAML alias `\*a` names no anchor defined before it/],
    [
      '10,000 nested block quotes',
      hostileFlow('', `\n${'> '.repeat(10_000)}deep\n`),
      new RegExp(`\\.autopilot/flows/hostile\\.md:${BODY}: block quotes nested 10000 deep`),
    ],
    [
      '10,000 `*` around a word',
      hostileFlow('', `\n${'*'.repeat(10_000)}word${'*'.repeat(10_000)}\n`),
      new RegExp(`\\.autopilot/flows/hostile\\.md:${BODY}: a run of 10000 emphasis markers`),
    ],
    [
      'a list nested 40 levels (within the size limit)',
      hostileFlow('', `\n${Array.from({ length: 40 }, (_, i) => `${'  '.repeat(i)}- item`).join('\n')}\n`),
      new RegExp(`\\.autopilot/flows/hostile\\.md:${BODY + MARKDOWN_LIMITS.indentColumns / 2}: the line is indented or nested \\d+ columns deep`),
    ],
    [
      'a list nested 600 levels (360 KB: over the size limit, never read)',
      hostileFlow('', `\n${Array.from({ length: 600 }, (_, i) => `${'  '.repeat(i)}- item`).join('\n')}\n`),
      /\.autopilot\/flows\/hostile\.md: the flow file is 358\.\d KB, over the limit of 32 KB/,
    ],
  ];

  for (const [name, text, where] of cases) {
    it(`${name}: exit 2 from status, next and check, naming the file and line, in under a second`, () => {
      const dir = tempRepo();
      write(dir, FLOW, text);
      for (const command of ['status', 'next', 'check']) expectRefused(timed(dir, command), where);
    });
  }

  it('a flow over the size limit: refused before it is read, naming the file, the limit and the size', () => {
    const dir = tempRepo();
    const text = hostileFlow('', `\n${'A line of prose that makes the file larger.\n'.repeat(FLOW_MAX_BYTES / 40)}`);
    write(dir, FLOW, text);
    const run = timed(dir, 'status', '--json');
    expectRefused(run, /hostile\.md: the flow file is 3\d\.\d KB, over the limit of 32 KB/);
    expect(run.json()).toMatchObject({ error: { file: FLOW, received: `${Buffer.byteLength(text)} bytes` } });
  });

  it('a broken flow is parsed once: next keeps the problems in the flow cache, and status replays them from it', () => {
    const dir = tempRepo();
    write(dir, FLOW, hostileFlow('x: *a\n'));
    expectRefused(timed(dir, 'next'), /hostile\.md:2: the YAML alias/);
    const cache = JSON.parse(readFileSync(join(dir, CACHE), 'utf8')) as { format: number; entries: Record<string, { problems: { message: string }[] }> };
    const [key, entry] = Object.entries(cache.entries)[0]!;
    expect(key).toMatch(/^hostile:[0-9a-f]{40}$/);
    expect(entry.problems[0]!.message).toContain('names no anchor');
    // Proof that status reads the cache instead of parsing: it repeats what the cache says.
    entry.problems[0]!.message = 'as the cache remembers it';
    writeFileSync(join(dir, CACHE), JSON.stringify(cache));
    expect(autopilot(dir, 'status').stderr).toContain('hostile.md:2: as the cache remembers it');
  });

  it('a damaged cache entry is not trusted: the flow is parsed again', () => {
    const dir = tempRepo();
    write(dir, FLOW, hostileFlow());
    expect(autopilot(dir, 'next').code).toBe(0);
    const cache = JSON.parse(readFileSync(join(dir, CACHE), 'utf8')) as { entries: Record<string, { flow: { steps: unknown } }> };
    Object.values(cache.entries)[0]!.flow.steps = 'not steps';
    writeFileSync(join(dir, CACHE), JSON.stringify(cache));
    const check = autopilot(dir, 'check', '--json');
    expect(check.code).toBe(0);
    expect(check.json()).toMatchObject({ ok: true, flows: expect.arrayContaining(['hostile']) });
  });
});

describe('a skill file over the size limit', () => {
  const SKILL = '.autopilot/skills/problem/SKILL.md';

  it('check names it with the limit and the size; next refuses to hand it over and writes nothing', () => {
    const dir = tempRepo();
    write(dir, SKILL, '# Problem\n'.padEnd(SKILL_MAX_BYTES + 1, 'x'));
    expectRefused(timed(dir, 'check'), /\.autopilot\/skills\/problem\/SKILL\.md: the skill file is 256 KB, over the limit of 256 KB/);
    const before = snapshot(dir);
    expectRefused(timed(dir, 'next'), /\.autopilot\/skills\/problem\/SKILL\.md: the skill file is 256 KB, over the limit of 256 KB/);
    expect(snapshot(dir)).toEqual(before);
  });

  it('a folder where SKILL.md should be is refused the same way', () => {
    const dir = tempRepo();
    mkdirSync(join(dir, SKILL), { recursive: true });
    expectRefused(timed(dir, 'next'), /\.autopilot\/skills\/problem\/SKILL\.md: the skill file is not a regular file/);
  });
});

describe('a flow file whose name is not a flow id', () => {
  it('My_Flow.md: check names it, init --flow refuses it, and nothing else runs until it is renamed', () => {
    const dir = tempRepo();
    write(dir, '.autopilot/flows/My_Flow.md', GREENFIELD.replace('id: hostile', 'id: My_Flow'));
    const check = timed(dir, 'check', '--json');
    expectRefused(check, /My_Flow\.md/);
    expect(check.json()).toMatchObject({
      problems: [{ file: '.autopilot/flows/My_Flow.md', message: expect.stringContaining('not a flow id'), expected: expect.stringContaining('bug-fix.md') }],
    });
    expectRefused(timed(dir, 'init', '--flow', 'My_Flow'), /\.autopilot\/flows\/My_Flow\.md: the file name is not a flow id/);
    expect(existsSync(join(dir, '_docs/_autopilot_state.md'))).toBe(false);
    expectRefused(timed(dir, 'status'), /My_Flow\.md: the file name is not a flow id/);
  });

  it('init --flow with an id the pointer could not hold is refused, by the same rule', () => {
    const dir = tempRepo();
    expectRefused(timed(dir, 'init', '--flow', 'My_Flow'), /--flow My_Flow is not a flow id/);
    expectRefused(timed(dir, 'init', '--flow', 'x'.repeat(65)), /is not a flow id: it is 65 characters long/);
  });
});
