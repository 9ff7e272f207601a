import { describe, expect, it } from 'vitest';
import { codeNotice, isCode, judgeCodeChange, touchesOf, untouched } from '../../../src/engine/batch-code.js';

const TASK = [
  '# 01 Parse config',
  '',
  '## Touches',
  '',
  '- `src/config.js`: the reader, e.g. of settings and/or flows.',
  '- src/config.test.js, its tests; lib/ and `src/walk` (1.5 points), README.md.',
  '<!-- `hidden.js` -->',
  '',
  '## Test strategy',
  '',
  'other.js',
].join('\n');

describe('the paths a task file names under Touches', () => {
  it('reads 5 paths from backticks and bare words, and no prose (e.g., and/or, 1.5), comment or other section', () => {
    expect(touchesOf(TASK)).toEqual(['src/config.js', 'src/config.test.js', 'lib/', 'src/walk', 'README.md']);
  });

  it('reads none from a task file with no Touches section, or one that names components only', () => {
    expect(touchesOf('# 01\n\n## Goal\n\nsrc/a.js\n')).toEqual([]);
    expect(touchesOf('# 01\n\n## Touches\n\nThe settings reader and its tests.\n')).toEqual([]);
  });

  it('counts a folder touched when a file under it changed', () => {
    expect(untouched([{ task: '01', paths: ['src/a.js', 'lib/', 'src/walk'] }], ['lib/x.js', 'src/walk/step.js'])).toEqual([
      { task: '01', paths: ['src/a.js'] },
    ]);
  });
});

describe('a batch changes the code', () => {
  const touches = [
    { task: '01', paths: ['src/config.js'] },
    { task: '02', paths: [] },
  ];

  it('refuses a batch with 0 files changed outside the docs folder, naming the Touches files of 1 task', () => {
    const [finding, ...rest] = judgeCodeChange({ docs: '_docs', seen: true, changed: [], touches }, 1, ['01', '02'], '03_implementation/batch_01.md');
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({ check: 'code-change', file: '03_implementation/batch_01.md' });
    expect(finding!.message).toContain('nothing outside _docs/ changed since batch 1 began');
    expect(finding!.write).toContain('01 names src/config.js under Touches, unchanged');
  });

  it('passes a batch with a file changed; says the Touches files left unchanged', () => {
    const code = { docs: '_docs', seen: true as const, changed: ['src/other.js'], touches };
    expect(judgeCodeChange(code, 1, ['01', '02'], 'r.md')).toEqual([]);
    expect(codeNotice(code, 1)).toBe('batch 1 is done, but 01 names src/config.js under Touches, and it did not change');
    expect(codeNotice({ ...code, changed: ['src/config.js'] }, 1)).toBeUndefined();
  });

  it('does not refuse where it could not see the work tree, and says why', () => {
    const code = { docs: '_docs', seen: false as const, why: 'not a git repository', touches };
    expect(judgeCodeChange(code, 2, ['03'], 'r.md')).toEqual([]);
    expect(codeNotice(code, 2)).toContain('not a git repository: the check that batch 2 changed code could not see the work tree');
  });

  it('counts nothing under the docs folder or .autopilot/ as code', () => {
    expect(['_docs/a.md', '.autopilot/config.yml', 'src/a.js', '_docsx/a.md'].filter((p) => isCode(p, '_docs'))).toEqual(['src/a.js', '_docsx/a.md']);
  });
});
