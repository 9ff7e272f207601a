/**
 * The plain reader of the settings file (`formats/plain-yaml.ts`): on every
 * text it accepts, it reads what the YAML parser reads; what it cannot be
 * sure of it leaves to the parser. What init writes is always accepted, so
 * `status` after `init` does not load YAML.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseYaml } from '../../../src/app/transaction/parse-yaml.js';
import { readPlainYaml } from '../../../src/formats/plain-yaml.js';
import { verifyLine } from '../../../src/formats/settings.js';
import { COMMIT_OFF_LINES } from '../../../src/app/setup/init.js';

const yamlOf = (text: string): unknown => {
  try {
    return parseYaml(text) ?? {};
  } catch {
    return 'not YAML';
  }
};

const VALUES = [
  'npm test',
  'go test ./...',
  'python -m pytest -q',
  'make test',
  'echo "a b" && exit 0',
  'echo {a} [b], c',
  'a#b',
  'a #comment',
  '"quoted \\"x\\" \\u00e9"',
  "'single ''q'''",
  '"open',
  '10',
  '1.5',
  '-3',
  '0x1F',
  '0o17',
  '1e3',
  '.5',
  '+1',
  '.inf',
  'true',
  'False',
  'null',
  '~',
  'yes',
  'off',
  '-x',
  '- x',
  '[a]',
  '{a: 1}',
  '&x y',
  '*x',
  '! tag',
  '|',
  '>',
  '@x',
  '`x`',
  'a: b',
  'a:b',
  '',
  '%x',
  '? x',
];

const value = fc.oneof(fc.constantFrom(...VALUES), fc.string({ maxLength: 12 }), fc.stringMatching(/^[a-z0-9 .#:'"-]{0,10}$/));
const key = fc.constantFrom('lease', 'commit', 'verify', 'remote', 'stale_after_minutes', 'a-b', 'x1');
const line = fc.oneof(
  fc.tuple(key, value).map(([k, v]) => `${k}: ${v}`),
  fc.tuple(key, value).map(([k, v]) => `  ${k}: ${v}`),
  fc.tuple(key, value).map(([k, v]) => `    ${k}: ${v}`),
  key.map((k) => `${k}:`),
  fc.constantFrom('', '# a comment', '  # indented comment', '---', '\tx: 1', 'lease: # opens', '- item'),
);

describe('readPlainYaml', () => {
  it('a property: wherever it reads a text, the YAML parser reads the same (2000 texts)', () => {
    let read = 0;
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), (lines) => {
        const text = `${lines.join('\n')}\n`;
        const plain = readPlainYaml(text);
        if (plain === undefined) return;
        read++;
        expect(plain, text).toEqual(yamlOf(text));
      }),
      { numRuns: 2000 },
    );
    expect(read).toBeGreaterThan(200);
  });

  it('reads what init writes, and every verify line it writes reads back as the command (10 of 10)', () => {
    const commands = ['npm test', 'pnpm test', 'go test ./...', 'cargo test', 'make test', 'pytest', 'python -m pytest -q', 'true', '10', 'echo "x: y" # z'];
    for (const command of commands) {
      const text = `lease:\n  stale_after_minutes: 10\n\n${COMMIT_OFF_LINES.join('\n')}\n\n# The project's tests\n${verifyLine(command)}\n`;
      expect(readPlainYaml(text), text).toEqual({ lease: { stale_after_minutes: 10 }, verify: command });
      expect(yamlOf(text)).toEqual({ lease: { stale_after_minutes: 10 }, verify: command });
    }
  });

  it('leaves to the YAML parser what it cannot be sure of: lists, anchors, tabs, a key twice, deeper nesting', () => {
    for (const text of ['- a\n', 'a: &x 1\n', 'a:\n\tb: 1\n', 'a: 1\na: 2\n', 'a:\n  b:\n    c: 1\n', 'a: [1, 2]\n', 'a: 0x1F\n', 'a: |\n  x\n'])
      expect(readPlainYaml(text), text).toBeUndefined();
  });
});
