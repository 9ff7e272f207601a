/**
 * The judges of a step's evidence (src/evidence/), pure: a file's text (and
 * its template, the acceptance criteria, the names beside it, the journaled
 * runs) in, findings out. No disk. Each finding names the file, the line and
 * the heading where there is one, and what to write.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acceptanceIdsJudge } from '../../../src/evidence/acceptance-ids.js';
import { acceptanceTrace, coverage } from '../../../src/evidence/acceptance-trace.js';
import { exitCode, reportedResult } from '../../../src/evidence/exit-code.js';
import { fresh } from '../../../src/evidence/fresh.js';
import { checksOf, judgeFile, JUDGES, needsOf } from '../../../src/evidence/index.js';
import { linesOf, sectionsOf } from '../../../src/evidence/markdown.js';
import { placeholders } from '../../../src/evidence/placeholders.js';
import { sections, SECTION_MIN_WORDS } from '../../../src/evidence/sections.js';
import { selfCheck } from '../../../src/evidence/self-check.js';
import { taskIndex } from '../../../src/evidence/task-index.js';
import type { CommandRun, JudgeInput, OutputDeclaration } from '../../../src/evidence/types.js';

const output = (o: Partial<OutputDeclaration> = {}): OutputDeclaration => ({ file: 'x.md', sections: [], checks: [], ...o });
const input = (text: string, o: Partial<JudgeInput> = {}): JudgeInput => ({ output: output(), file: 'x.md', text, skill: 'plan', ...o });

const PROBLEM = `# Problem

## Problem

People lose their place in long tasks across sessions.

## Users

Developers who run coding agents on large repositories.

## Self-check

- [x] Every section holds this project's own words
`;

describe('the Markdown scan', () => {
  it('finds `## ` sections and skips headings inside fenced code', () => {
    const text = '# T\n\n## A\n\none\n\n```\n## not a heading\n```\n\n### sub\n\ntwo\n\n## B\n';
    const found = sectionsOf(linesOf(text));
    expect(found.map((s) => [s.heading.text, s.heading.line])).toEqual([
      ['A', 3],
      ['B', 15],
    ]);
    expect(found[0]!.lines.map((l) => l.text)).toContain('two');
  });

  it('a property: every line of any text is read once, numbered from 1, and no heading is found inside a fence', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant('```'), fc.constant('## H'), fc.constant(''), fc.string({ maxLength: 12 }))), (parts) => {
        const lines = linesOf(parts.join('\n'));
        expect(lines.map((l) => l.number)).toEqual(parts.length === 0 ? [1] : parts.map((_, i) => i + 1));
        for (const s of sectionsOf(lines)) expect(lines[s.heading.line - 1]!.code).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe('sections', () => {
  const judge = (text: string, names: string[]) => sections(input(text, { output: output({ sections: names }) }));

  it('passes a file whose every required section holds real content', () => {
    expect(judge(PROBLEM, ['Problem', 'users'])).toEqual([]);
  });

  it('names a missing section, an empty one (at its line) and one holding only a sub-heading or a comment', () => {
    const text = '# P\n\n## Problem\n\n## Users\n\n### Later\n\n## Scope\n\n<!-- what is in and out -->\n';
    const found = judge(text, ['Problem', 'Users', 'Scope', 'Constraints']);
    expect(found.map((f) => [f.heading, f.line, f.message])).toEqual([
      ['Problem', 3, 'the section "Problem" has nothing under it'],
      ['Users', 5, 'the section "Users" has nothing under it'],
      ['Scope', 9, 'the section "Scope" has nothing under it'],
      ['Constraints', undefined, 'the required section "Constraints" is missing'],
    ]);
    expect(found.every((f) => f.file === 'x.md' && f.write.length > 0)).toBe(true);
  });

  it(`counts words: fewer than ${SECTION_MIN_WORDS} refuse, and a heading at another level is named as such`, () => {
    expect(judge('## Problem\n\nTBD.\n', ['Problem'])[0]!.message).toBe('the section "Problem" holds 1 word');
    expect(judge('# Problem\n\nsome real words here\n', ['Problem'])[0]).toMatchObject({ line: 1, message: expect.stringMatching(/level-1 heading/) });
  });
});

describe('placeholders', () => {
  it('refuses TODO, TBD, FIXME, XXX as words, braces and <placeholder>, each at its line and heading', () => {
    const text = '## A\n\nTODO\n\n## B\n\nwe will see (TBD)\n\n{{ who }}\n\n<insert placeholder here>\n\nFIXME and XXX\n';
    const found = placeholders(input(text));
    expect(found.map((f) => [f.line, f.heading])).toEqual([
      [3, 'A'],
      [7, 'B'],
      [9, 'B'],
      [11, 'B'],
      [13, 'B'],
    ]);
  });

  it('reads no fenced code nor inline code, and lowercase "todo" is a word like another', () => {
    expect(placeholders(input('## A\n\nthe todo list app, see `TODO` in code\n\n```\n// TODO: later\n{{ x }}\n```\n'))).toEqual([]);
  });

  it('allows 3 [NEEDS CLARIFICATION] in the problem skill, none elsewhere, and what the output declares', () => {
    const text = (n: number) => Array.from({ length: n }, (_, i) => `- q${i} [NEEDS CLARIFICATION: which?]`).join('\n');
    expect(placeholders(input(text(3), { skill: 'problem' }))).toEqual([]);
    expect(placeholders(input(text(4), { skill: 'problem' }))[0]).toMatchObject({
      line: 4,
      message: expect.stringMatching(/^4 `\[NEEDS CLARIFICATION\]` markers/),
    });
    expect(placeholders(input(text(1), { skill: 'implement' }))[0]!.message).toMatch(/this step allows none/);
    expect(placeholders(input(text(2), { skill: 'plan', output: output({ maxClarifications: 2 }) }))).toEqual([]);
  });

  it("refuses a paragraph copied unchanged from the template, not the template's checklist nor a short line", () => {
    const template =
      '## Problem\n\nDescribe the problem in the words of the people who have it.\n\nNone.\n\n## Self-check\n\n- [ ] Every section holds real words here\n';
    const text =
      '## Problem\n\nDescribe the problem in the words of the people who have it.\n\nNone.\n\n## Self-check\n\n- [x] Every section holds real words here\n';
    const found = placeholders(input(text, { template }));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ line: 3, heading: 'Problem', message: expect.stringMatching(/template's, unchanged/) });
  });

  it('a property: a text made only of letters and spaces, none of the four marker words among them, has no placeholder', () => {
    const line = fc.stringMatching(/^[a-z ]{0,30}$/).filter((l) => !/\b(todo|tbd|fixme|xxx)\b/.test(l));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 20 }), (lines) => {
        expect(placeholders(input(lines.join('\n')))).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});

describe('self-check', () => {
  it('passes every item ticked, and refuses an unticked item at its line, a missing section, an empty list, a template item left out', () => {
    expect(selfCheck(input(PROBLEM))).toEqual([]);
    expect(selfCheck(input('## Self-check\n\n- [x] one\n- [ ] two\n'))).toEqual([
      { check: 'self-check', file: 'x.md', heading: 'Self-check', line: 4, message: 'the Self-check item "two" is not ticked', write: expect.any(String) },
    ]);
    expect(selfCheck(input('## Problem\n\ntext\n'))[0]!.message).toBe('the file has no `## Self-check` section');
    expect(selfCheck(input('## Self-check\n\nall fine\n'))[0]!.message).toMatch(/lists no/);
    const template = '## Self-check\n\n- [ ] one\n- [ ] **two**\n';
    expect(selfCheck(input('## Self-check\n\n- [x] one\n', { template })).map((f) => f.message)).toEqual([
      'the Self-check item "**two**" of the template is missing',
    ]);
    expect(selfCheck(input('## Self-check\n\n- [X] one\n- [x] two\n', { template }))).toEqual([]);
  });
});

describe('acceptance-ids', () => {
  it('passes AC-01, AC-02 …, and refuses a criterion numbered `1.` or used twice, naming its line', () => {
    expect(
      acceptanceIdsJudge(input('## Acceptance Criteria\n\n- AC-01: one holds\n- **AC-02** two holds\n  - a detail, indented\n\n## Self-check\n\n- [x] ids\n')),
    ).toEqual([]);
    const found = acceptanceIdsJudge(input('## Acceptance Criteria\n\n1. it works\n- AC-01: a\n- AC-01: b\n'));
    expect(found.map((f) => [f.line, f.message])).toEqual([
      [3, 'the criterion "it works" has no id'],
      [5, 'AC-01 is used again (first at line 4)'],
    ]);
    expect(acceptanceIdsJudge(input('## Acceptance Criteria\n\nIt works.\n'))[0]!.message).toMatch(/no acceptance criterion with an id/);
  });

  it('reads only the Acceptance criteria section when the file has one: 2 bullets under Scope and 1 under Tasks are not criteria', () => {
    const index = [
      '# Cycle 2: export',
      '## Scope',
      '- the CSV export',
      '- not the PDF one',
      '## ACCEPTANCE CRITERIA:',
      '- AC-01: a CSV downloads',
      '### Edge cases',
      '- AC-02: an empty table gives a header row',
      '## Tasks',
      '- T1 write the exporter',
    ].join('\n');
    expect(acceptanceIdsJudge(input(index))).toEqual([]);
    const bad = acceptanceIdsJudge(input(index.replace('- AC-02: an empty', '- an empty')));
    expect(bad.map((f) => [f.line, f.heading])).toEqual([[8, 'Edge cases']]);
    expect(acceptanceIdsJudge(input('## Scope\n\n- a\n\n## Acceptance criteria\n\nNone yet.\n'))[0]!.message).toMatch(/no acceptance criterion with an id/);
  });

  it('reads the whole file when it has no Acceptance criteria heading (the criteria file itself)', () => {
    expect(acceptanceIdsJudge(input('# Criteria\n\n- AC-01: a\n\n## More\n\n- b\n')).map((f) => f.line)).toEqual([7]);
  });
});

describe('acceptance-trace', () => {
  const criteria = '- AC-01: a\n- AC-02: b\n- AC-07: c\n';
  it('names the criteria the file does not cover; nothing to trace without criteria', () => {
    expect(acceptanceTrace(input('covers AC-01, AC-02 and AC-07', { acceptance: criteria }))).toEqual([]);
    expect(acceptanceTrace(input('covers AC-01', { acceptance: criteria }))[0]!.message).toBe('2 of 3 acceptance criteria are not named: AC-02, AC-07');
    expect(acceptanceTrace(input('nothing'))).toEqual([]);
    expect(coverage(criteria, 'AC-07 AC-01')).toEqual({ ids: ['AC-01', 'AC-02', 'AC-07'], covered: ['AC-01', 'AC-07'], missing: ['AC-02'], unknown: [] });
  });
});

describe('exit-code', () => {
  const report = (exit: string, totals = '12 passed, 0 failed', command = 'npm test') =>
    `# Test report\n\n## Result\n\nCommand: \`${command}\`\nExit code: ${exit}\nTotals: ${totals}\n`;
  const run = (o: Partial<CommandRun> = {}): CommandRun => ({ command: 'npm test', exitCode: 0, totals: { passed: 12, failed: 0 }, seq: 9, ...o });
  const NPM_TEST = { command: 'npm test', changed: [] };
  /** A report judged with the project's tests `npm test`, pinned and unchanged, unless said otherwise. */
  const judge = (text: string, o: Partial<JudgeInput> = {}) => exitCode(input(text, { verify: NPM_TEST, ...o }));

  it('passes a report that is the journaled green run of the project’s tests', () => {
    expect(judge(report('0'), { runs: [run()] })).toEqual([]);
    expect(reportedResult(report('0'))).toMatchObject({ command: { value: 'npm test', line: 5 }, exitCode: { value: 0, line: 6 } });
  });

  it('refuses a report with no Result, no run of the project’s tests in the attempt, or a run of another command', () => {
    expect(judge('# r\n', { runs: [run()] })[0]!.message).toBe('the report has no `## Result` section');
    expect(judge(report('0'), { runs: [] })[0]!.message).toBe(
      "autopilot saw no run of the project's tests (`npm test`) in this attempt of the step, so the result is only what the report says",
    );
    expect(judge(report('0', undefined, 'true'), { runs: [run({ command: 'true', totals: undefined })] })[0]!.message).toMatch(
      /saw no run of the project's tests \(`npm test`\) in this attempt of the step \(it ran `true`, which is not\)/,
    );
  });

  it('names both commands where the report’s is not the project’s tests, though those ran', () => {
    expect(judge(report('0', undefined, 'npx vitest run'), { runs: [run()] }).map((f) => f.message)).toEqual([
      "the report says the command was `npx vitest run`; the project's tests are `npm test`, and that is the run autopilot saw (journal event 9)",
    ]);
  });

  it('cannot be typed a zero: the journaled run decides the exit code and the totals', () => {
    const found = judge(report('0'), { runs: [run({ exitCode: 1, totals: { passed: 12, failed: 7 } })] });
    expect(found.map((f) => [f.line, f.acceptable ?? false])).toEqual([
      [6, false],
      [7, false],
      [6, true],
    ]);
    expect(found[0]!.message).toBe('the report says exit code 0; the run autopilot saw (journal event 9) exited 1');
  });

  it('refuses a failed run the report admits, unless a person accepted it; the last run of the command counts', () => {
    const failed = run({ exitCode: 1, totals: { passed: 12, failed: 7 } });
    const honest = report('1', '12 passed, 7 failed');
    expect(judge(honest, { runs: [failed] })).toEqual([expect.objectContaining({ acceptable: true, message: expect.stringMatching(/did not pass/) })]);
    expect(judge(honest, { runs: [failed], acceptFailures: true })).toEqual([]);
    expect(judge(report('0'), { runs: [failed, run({ seq: 12 })] })).toEqual([]);
  });

  it('a run of no test, and one whose totals autopilot could not read: refused, a person may accept each (2 acceptable)', () => {
    const none = judge(report('0', '0 passed, 0 failed'), { runs: [run({ totals: { passed: 0, failed: 0 } })] });
    expect(none).toEqual([expect.objectContaining({ acceptable: true, message: '`npm test` ran no test (journal event 9: 0 passed, 0 failed)' })]);
    const unread = judge(report('0'), { runs: [run({ totals: undefined })] });
    expect(unread).toEqual([
      expect.objectContaining({ acceptable: true, message: expect.stringContaining('autopilot read no totals in the output of `npm test`') }),
    ]);
    expect(judge(report('0'), { runs: [run({ totals: undefined })], acceptFailures: true })).toEqual([]);
  });

  it('refuses a run after which code changed, naming the files (at most 5, then a count)', () => {
    const changedAfter = ['src/a.js', 'src/b.js', 'src/c.js', 'src/d.js', 'src/e.js', 'src/f.js', 'src/g.js'];
    const [found] = judge(report('0'), { runs: [run({ changedAfter })] });
    expect(found!.message).toBe(
      '`src/a.js`, `src/b.js`, `src/c.js`, `src/d.js`, `src/e.js` and 2 more changed after the run autopilot saw (journal event 9) began: its result is not of the code as it stands',
    );
    expect(found!.acceptable).toBeUndefined();
    expect(judge(report('0'), { runs: [run({ changedAfter: [] })] })).toEqual([]);
  });

  it('with no test command known, asks for the person; with what it runs changed since pinned, asks for their repin; with none said by a person, takes the report’s words', () => {
    expect(judge(report('0'), { runs: [run()], verify: { command: undefined, changed: [] } })[0]!.message).toMatch(
      /^autopilot knows no test command for this project/,
    );
    expect(judge(report('0'), { runs: [run()], verify: { command: 'npm test', changed: ['package.json scripts.test changed'] } })[0]!.message).toBe(
      "what `npm test` runs changed since the run pinned it (package.json scripts.test changed), so a run of it is not the project's tests as pinned",
    );
    expect(judge(report('0'), { runs: [], verify: { command: null, reason: 'docs only', changed: [] } })).toEqual([]);
  });
});

describe('task-index', () => {
  const HEADER = '| Task | Name | Points | Batch | Depends on | Test strategy |\n|---|---|---|---|---|---|\n';
  const siblings = ['01_skeleton.md', '02_config.md', '03_parse.md'];
  it('passes a table whose every task has its file, its points, its batch, earlier dependencies and a test strategy', () => {
    const text = `## Tasks\n\n${HEADER}| 01 | Skeleton | 2 | 1 | — | unit: the CLI starts |\n| [02](02_config.md) | Config | 3 | 1 | - | unit |\n| 03 | Parse | 5 | 2 | 01, 02 | property tests |\n`;
    expect(taskIndex(input(text, { siblings }))).toEqual([]);
  });

  it('refuses the issue’s row `| T1 | nothing | 3 | T9 |`: no Batch column', () => {
    expect(taskIndex(input('| Task | Name | Points | Depends on |\n|---|---|---|---|\n| T1 | nothing | 3 | T9 |\n', { siblings: [] }))[0]).toMatchObject({
      line: 1,
      message: 'the task table lacks the column(s) Batch, Test strategy',
    });
  });

  it('names each bad row: no file, points off the scale, a missing or later dependency, no test strategy', () => {
    const text = `${HEADER}| 01 | Skeleton | 4 | 1 | T9 | — |\n| 02 | Config | 3 | 1 | 03 | unit |\n| 03 | Parse | 5 | 1 | | unit |\n| 04 | Lost | 1 | 2 | | unit |\n`;
    const found = taskIndex(input(text, { siblings }));
    expect(found.map((f) => [f.line, f.message])).toEqual([
      [3, 'task 01 has points "4", not on the scale'],
      [3, 'task 01 has no test strategy'],
      [3, 'task 01 depends on T9, which is not in the table'],
      [4, 'task 02 (batch 1) depends on 03 (batch 1): a dependency comes in an earlier batch'],
      [6, 'task 04 has no task file beside the index'],
    ]);
  });
});

describe('fresh', () => {
  it('refuses an attempt whose files are all as they were when it began; a new or changed file passes', () => {
    const files = { 'a.md': '1', 'b.md': '2' };
    expect(fresh({ files, baseline: files, attempt: 2, step: 'step 2 (Research)' })[0]!.message).toMatch(
      /^none of the files of step 2 \(Research\) is new or changed in this attempt \(attempt 2/,
    );
    expect(fresh({ files: { ...files, 'b.md': '3' }, baseline: files, step: 's' })).toEqual([]);
    expect(fresh({ files: { ...files, 'c.md': '4' }, baseline: files, step: 's' })).toEqual([]);
    expect(fresh({ files, step: 's' })).toEqual([]);
  });

  it("refuses an earlier round's draft edited, and a new draft that copies one", () => {
    const round = { 'd1.md': 'aaa' };
    expect(fresh({ files: { 'd1.md': 'bbb', 'd2.md': 'ccc' }, round, step: 's' }).map((f) => f.file)).toEqual(['d1.md']);
    expect(fresh({ files: { 'd1.md': 'aaa', 'd2.md': 'aaa' }, round, step: 's' })[0]!.message).toBe("d2.md is a copy of the earlier round's d1.md");
    expect(fresh({ files: { 'd1.md': 'aaa', 'd2.md': 'ccc' }, round, step: 's' })).toEqual([]);
  });

  it('a property: a baseline equal to the files always refuses, one that differs in any file never does', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.stringMatching(/^[a-z]{1,5}\.md$/), fc.stringMatching(/^[0-9a-f]{4}$/), { minKeys: 1 }), fc.nat(), (files, pick) => {
        expect(fresh({ files, baseline: files, step: 's' })).toHaveLength(1);
        const names = Object.keys(files);
        const changed = { ...files, [names[pick % names.length]!]: 'changed' };
        expect(fresh({ files: changed, baseline: files, step: 's' })).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});

describe('the index of judges', () => {
  it('maps each name to its judge; `sections` and `filler` come first when sections are listed; needs are gathered', () => {
    expect(Object.keys(JUDGES).sort()).toEqual([
      'acceptance-ids',
      'acceptance-trace',
      'exit-code',
      'filler',
      'placeholders',
      'sections',
      'self-check',
      'task-index',
    ]);
    expect(checksOf(output({ sections: ['A'], checks: ['self-check'] }))).toEqual(['sections', 'filler', 'self-check']);
    expect(checksOf(output({ checks: ['placeholders'] }))).toEqual(['placeholders']);
    expect(needsOf([output({ checks: ['acceptance-trace', 'task-index'] })])).toEqual({ acceptance: true, siblings: true, taskFiles: true });
    expect(judgeFile(input(PROBLEM, { output: output({ sections: ['Problem', 'Users'], checks: ['placeholders', 'self-check'] }) }))).toEqual([]);
  });
});

describe('a command as a report and a run spell it', () => {
  it('is the same command however the shell quotes it', async () => {
    const { commandKey, shellWords } = await import('../../../src/evidence/exit-code.js');
    const { commandLine } = await import('../../../src/app/step/exec.js');
    const words = ['node', '-e', "console.log('12 passed, 0 failed')"];
    expect(shellWords(`node -e "console.log('12 passed, 0 failed')"`)).toEqual(words);
    expect(commandKey(commandLine(words))).toBe(commandKey(`node -e "console.log('12 passed, 0 failed')"`));
    expect(commandKey('`$ npm  test`')).toBe(commandKey('npm test'));
    expect(shellWords('echo "open')).toBeUndefined();
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 8 }), { minLength: 2, maxLength: 5 }), (ws) => {
        expect(shellWords(commandLine(ws))).toEqual(ws);
      }),
      { numRuns: 300 },
    );
  });
});
