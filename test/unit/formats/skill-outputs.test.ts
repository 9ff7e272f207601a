/**
 * A skill's outputs declaration (its SKILL.md front matter's `outputs:`):
 * read into declarations, or refused with the SKILL.md's file and line.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseOutputsDeclaration } from '../../../src/formats/skill-outputs.js';

const FILE = '.autopilot/skills/problem/SKILL.md';
const skill = (front: string) => `---\nname: problem\ndescription: the problem\n${front}---\n# Problem\n`;

describe('the outputs a SKILL.md declares', () => {
  it('reads each output: file, template, sections, checks, max_clarifications', () => {
    const text = skill(
      [
        'outputs:',
        '  - file: 00_problem/problem.md',
        '    template: templates/problem.md',
        '    sections: [Problem, Users]',
        '    checks: [placeholders, self-check]',
        '    max_clarifications: 2',
        '  - file: 02_tasks/{cycle}/_index.md',
        '    checks:',
        '      - task-index',
        '',
      ].join('\n'),
    );
    expect(parseOutputsDeclaration(text, FILE)).toEqual({
      outputs: [
        {
          file: '00_problem/problem.md',
          template: 'templates/problem.md',
          sections: ['Problem', 'Users'],
          checks: ['placeholders', 'self-check'],
          maxClarifications: 2,
        },
        { file: '02_tasks/{cycle}/_index.md', sections: [], checks: ['task-index'] },
      ],
    });
  });

  it('14,169 nested `[` in the front matter are refused at their line (4) in one pass, before yaml reads them', () => {
    const started = process.cpuUsage();
    const read = parseOutputsDeclaration(skill(`outputs: ${'['.repeat(14_169)}\n`), FILE);
    const cpu = process.cpuUsage(started);
    expect(read).toEqual({ problem: expect.objectContaining({ file: FILE, line: 4, message: expect.stringContaining('more than 64 deep') }) });
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(100);
  });

  it('is nothing for a skill without front matter or without `outputs:`', () => {
    expect(parseOutputsDeclaration('# Problem\n', FILE)).toBeUndefined();
    expect(parseOutputsDeclaration(skill(''), FILE)).toBeUndefined();
  });

  it.each([
    ['not a list', 'outputs: 00_problem/problem.md\n', 4, /must be a list/],
    ['an item not a map', 'outputs:\n  - 00_problem/problem.md\n', 5, /must be a map/],
    ['no file', 'outputs:\n  - sections: [A]\n', 5, /needs `file`/],
    ['a file leaving the docs folder', 'outputs:\n  - file: ../secret.md\n', 5, /leaves its folder/],
    ['`**`', 'outputs:\n  - file: 01/**/x.md\n', 5, /\*\*/],
    ['an unknown key', 'outputs:\n  - file: a.md\n    section: [A]\n', 6, /unknown key `section`/],
    ['an unknown check', 'outputs:\n  - file: a.md\n    checks: [placeholder]\n', 6, /check `placeholder` is not one autopilot knows/],
    ['sections not a list of names', 'outputs:\n  - file: a.md\n    sections: Problem\n', 6, /`sections` must be a list of names/],
    ['a template out of the skill', 'outputs:\n  - file: a.md\n    template: ../other/t.md\n', 6, /inside the skill's folder/],
    ['max_clarifications negative', 'outputs:\n  - file: a.md\n    max_clarifications: -1\n', 6, /whole number/],
    ['YAML that does not parse', 'outputs:\n  - file: [a.md\n', 5, /not valid YAML/],
  ])('refuses %s, naming the SKILL.md and the line', (_what, front, line, message) => {
    const parsed = parseOutputsDeclaration(skill(front), FILE);
    expect(parsed && 'problem' in parsed ? parsed.problem : parsed).toMatchObject({ file: FILE, line, message: expect.stringMatching(message) });
  });

  it('a property: whatever the front matter holds, the reader answers (declarations, nothing, or a problem with the file and a line) and never throws', () => {
    const piece = fc.oneof(
      fc.constantFrom(
        'outputs:',
        '  - file: a.md',
        '    sections: [A, B]',
        '    checks: [placeholders]',
        '  -',
        '    template: t.md',
        '&a x',
        '*a',
        '[',
        '{',
        ': :',
        '- - -',
      ),
      fc.string({ maxLength: 16 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }), (lines) => {
        const parsed = parseOutputsDeclaration(skill(lines.join('\n') + '\n'), FILE);
        if (parsed && 'problem' in parsed) expect(parsed.problem).toMatchObject({ file: FILE, line: expect.any(Number) });
        else if (parsed) for (const o of parsed.outputs) expect(typeof o.file).toBe('string');
      }),
      { numRuns: 500 },
    );
  });
});
