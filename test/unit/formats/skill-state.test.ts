/** A skill's state: the declaration in its SKILL.md, and the position its state file records; problems name the file and line. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSkillState, parseStateDeclaration, serializeSkillState } from '../../../src/formats/skill-state.js';
import { SKILL_STATE_POSITION_MAX_LENGTH } from '../../../src/limits.js';
import { ROOT } from '../../helpers/engine.js';

const DECLARED = 'state: { file: 02_document/state.json, field: position }';
const STATE = '_docs/02_document/state.json';

describe('parseSkillState', () => {
  it('reads the position in the field, a dotted path, a number', () => {
    expect(parseSkillState('{"position": " 3 — Components ", "modules_done": []}', STATE, 'position')).toEqual({ position: '3 — Components' });
    expect(parseSkillState('{"progress": {"step": 4}}', STATE, 'progress.step')).toEqual({ position: '4' });
  });

  it('names the line of a JSON syntax error', () => {
    expect(parseSkillState('{\n  "position": "3",\n  "x": [],\n}\n', STATE, 'position')).toMatchObject({
      problem: { file: STATE, line: 4, message: 'the skill state file is not valid JSON' },
    });
  });

  it.each([
    ['{"step": "3"}', 'the skill state file has no `position`'],
    ['["position"]', 'the skill state file has no `position`'],
    ['{"position": ""}', "the skill state's `position` is not a sub-step"],
    ['{"position": true}', "the skill state's `position` is not a sub-step"],
    ['{"position": "a\\nb"}', "the skill state's `position` is not a sub-step"],
    [`{"position": "${'x'.repeat(SKILL_STATE_POSITION_MAX_LENGTH + 1)}"}`, "the skill state's `position` is not a sub-step"],
  ])('refuses %s', (json, message) => {
    expect(parseSkillState(json, STATE, 'position')).toMatchObject({ problem: { file: STATE, message } });
  });

  it('reads back the position it writes, under any field', () => {
    const position = fc
      .string({ minLength: 1, maxLength: SKILL_STATE_POSITION_MAX_LENGTH, unit: fc.constantFrom('a', '3', ' ', '—', 'é', '"', '\\') })
      .filter((p) => p.trim() === p && p !== '');
    const field = fc.array(fc.stringMatching(/^[A-Za-z0-9_-]{1,8}$/), { minLength: 1, maxLength: 3 }).map((keys) => keys.join('.'));
    fc.assert(
      fc.property(position, field, (p, f) => {
        expect(parseSkillState(serializeSkillState(p, f), STATE, f)).toEqual({ position: p });
      }),
    );
  });
});

describe('parseStateDeclaration', () => {
  const FILE = 'skills/x/SKILL.md';

  it('reads the declaration, in flow or block style, with CRLF line ends', () => {
    expect(parseStateDeclaration(`---\n${DECLARED}\n---\n`, FILE)).toEqual({ file: '02_document/state.json', field: 'position' });
    const block = '\uFEFF---\r\nname: x\r\nstate:\r\n  file: 02_document/state.json\r\n  field: progress.step\r\n---\r\n# x\r\n';
    expect(parseStateDeclaration(block, FILE)).toEqual({ file: '02_document/state.json', field: 'progress.step' });
  });

  it('finds nothing declared without front matter or without `state`', () => {
    expect(parseStateDeclaration('# A skill\n\nstate: { file: a.json, field: b }\n', FILE)).toBeUndefined();
    expect(parseStateDeclaration('---\nname: x\n---\n', FILE)).toBeUndefined();
    expect(parseStateDeclaration('---\n- a list\n---\n', FILE)).toBeUndefined();
  });

  it.each([
    ['state: { file: ../secrets.json, field: position }', /`state.file` is not usable: the path leaves its folder with `\.\.`/],
    ['state: { file: 02_document/../../x.json, field: position }', /`\.\.`/],
    ['state: { file: /etc/state.json, field: position }', /the path is absolute/],
    ['state: { file: "C:/state.json", field: position }', /the path is absolute/],
    ['state: { file: "02_document\\\\state.json", field: position }', /`\\`/],
    ['state: { file: "02_document/*.json", field: position }', /names one file: it may hold `\{cycle\}` but no glob/],
    ['state: { file: "{docs}/state.json", field: position }', /`\{docs\}` is not a placeholder/],
    ['state: { file: 02_document/state.yaml, field: position }', /must be a JSON file/],
    ['state: { file: 02_document/, field: position }', /must be a JSON file/],
    ['state: { file: "", field: position }', /`state.file` must be a path under the docs folder/],
    ['state: { field: position }', /`state.file` must be a path/],
    ['state: { file: 02_document/state.json }', /`state.field` must be a key or a dotted path/],
    ['state: { file: 02_document/state.json, field: "a..b" }', /`state.field`/],
    ['state: { file: 02_document/state.json, field: 3 }', /`state.field`/],
    ['state: { file: 02_document/state.json, field: position, feild: x }', /unknown key\(s\): feild/],
    ['state: 02_document/state.json', /`state` must name the file and the field/],
    ['state: [02_document/state.json, position]', /`state` must name the file and the field/],
  ])('refuses %s', (front, why) => {
    const text = `---\nname: x\n${front}\n---\n`;
    const result = parseStateDeclaration(text, FILE);
    expect(result).toMatchObject({ problem: { file: FILE, line: 3, message: expect.stringMatching(why), expected: expect.stringContaining('state: {') } });
  });

  it('refuses front matter that is never closed, or that expands aliases without end', () => {
    expect(parseStateDeclaration('---\nstate: { file: a.json, field: b }\n', FILE)).toMatchObject({
      problem: { line: 1, message: 'the front matter is never closed' },
    });
    const laughs = [
      '---',
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'state: { file: 02_document/state.json, field: position, extra: [*c, *c, *c, *c, *c, *c, *c, *c, *c] }',
      '---',
    ].join('\n');
    expect(parseStateDeclaration(laughs, FILE)).toMatchObject({
      problem: { line: 5, message: 'the front matter could not be read', received: expect.stringContaining('alias') },
    });
  });

  it('reads the worked example in skills/document/SKILL.md', () => {
    const text = readFileSync(join(ROOT, 'skills', 'document', 'SKILL.md'), 'utf8');
    expect(parseStateDeclaration(text, 'skills/document/SKILL.md')).toEqual({ file: '02_document/state.json', field: 'position' });
    const example = /```json\n([\s\S]*?)```/.exec(text)![1]!;
    expect(JSON.parse(example)).toMatchObject({ position: '3 — Components' });
  });
});
