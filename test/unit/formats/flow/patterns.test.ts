import { describe, expect, it } from 'vitest';
import { patternProblem } from '../../../../src/formats/flow/patterns.js';

describe('patternProblem', () => {
  it.each([
    '02_tasks/_index.md',
    '01_solution/solution_draft_*.md',
    '03_implementation/cycle-{cycle}/report.md',
    '02_document/changes/cycle-{cycle}.md',
    'notes/shot?.png',
    'notes/[ab].md',
    '02_document/',
    'a..b/c.md',
    'notes/*.{png,jpg}',
    '{a,b}/x.md',
    'cycle-{cycle}/{report,summary}.md',
  ])('accepts the done-when pattern %s', (pattern) => {
    expect(patternProblem(pattern)).toBeUndefined();
  });

  it.each(['package.json', '*.csproj', '{docs}/00_problem', '{docs}/02_document', '*.{py,go}', '*/*.{py,go}', '{src,lib}/*', '{docs}/{a,b}/*.{md,txt}'])(
    'accepts the detection pattern %s',
    (pattern) => {
      expect(patternProblem(pattern, true)).toBeUndefined();
    },
  );

  it.each([
    ['', /empty/],
    ['   ', /empty/],
    ['/etc/passwd', /absolute/],
    ['C:/work/x.md', /absolute/],
    ['c:x.md', /absolute/],
    ['02_tasks\\x.md', /`\\`/],
    ['../x.md', /leaves its folder with `\.\.`/],
    ['a/../../x.md', /`\.\.`/],
    ['a/..', /`\.\.`/],
    ['a//b.md', /empty or `\.` segment/],
    ['./a.md', /empty or `\.` segment/],
    ['**/x.md', /`\*\*`/],
    ['02_tasks/**', /`\*\*`/],
    ['a/{task}/x.md', /`\{task\}` is not a placeholder autopilot knows \(`\{cycle\}`\)/],
    ['{docs}/00_problem', /`\{docs\}` is not a placeholder/],
    ['*.{py,}', /`\{py,\}` is not a list of alternatives autopilot can use/],
    ['{,a}/x.md', /`\{,a\}` is not a list of alternatives/],
    ['{a,b/c}/x.md', /`\{a,b\/c\}` is not a list of alternatives/],
    ['{a,{b,c}}/x.md', /is not a list of alternatives/],
    ['{a,**}/x.md', /`\*\*`/],
  ])('rejects the done-when pattern %j', (pattern, why) => {
    expect(patternProblem(pattern)).toMatch(why);
  });

  it.each([
    ['x/{docs}', /`\{docs\}` may only start a pattern/],
    ['{root}/x', /`\{root\}` is not a placeholder autopilot knows \(`\{docs\}`, `\{cycle\}`\)/],
    ['{docs}/**/*.md', /`\*\*`/],
  ])('rejects the detection pattern %j', (pattern, why) => {
    expect(patternProblem(pattern, true)).toMatch(why);
  });
});
