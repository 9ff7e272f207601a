import { describe, expect, it } from 'vitest';
import {
  FILE,
  FRONT,
  RECOMMENDATION,
  ROWS,
  TWO_OPTIONS,
  decisions,
  flowText,
  lineContaining,
  onlyProblemOf,
  problemsOf,
  row,
  validFlow,
} from './flow-fixtures.js';

const withRow = (index: number, replacement: string) => ROWS.map((r, i) => (i === index ? replacement : r));

describe('the fixture flow', () => {
  it('is valid, so each test below breaks exactly one thing', () => {
    const flow = validFlow(flowText());
    expect(flow.steps.map((s) => s.name)).toEqual(['Brief', 'Build', 'Ship']);
    expect(
      validFlow(
        flowText(
          withRow(1, row(2, 'Build', 'always', '`build`', '`01_build/report.md`', 'decision `go-on`')),
          decisions(`${TWO_OPTIONS}\n\n${RECOMMENDATION}`),
        ),
      ).decisions['go-on'],
    ).toBeDefined();
  });
});

describe('front matter problems', () => {
  it('a flow without front matter: line 1, with an example of the block', () => {
    const text = flowText().replace(/^---[\s\S]*?---\n/, '');
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({ line: 1, message: 'the flow has no front matter', received: '' });
    expect(problem.expected).toContain('id: demo');
    expect(problem.expected).toContain('scan_order: 1');
  });

  it('a YAML syntax error: the file line of the bad line inside the front matter', () => {
    const front = ['---', 'id: demo', 'title: Demo flow', 'scan_order: 3', 'id: again', '---'].join('\n');
    const text = flowText(ROWS, '', front);
    const problem = onlyProblemOf(text);
    expect(problem.line).toBe(lineContaining(text, 'id: again'));
    expect(problem.message).toMatch(/^the front matter is not valid YAML: /);
    expect(problem.expected).toContain('`id: greenfield`');
  });

  it('a tab-indented key: the line of that key', () => {
    const front = ['---', 'id: demo', 'title: Demo flow', 'scan_order: 3', '\tdescription: tabbed', '---'].join('\n');
    const text = flowText(ROWS, '', front);
    expect(onlyProblemOf(text).line).toBe(lineContaining(text, 'description: tabbed'));
  });

  it('an id that does not match the file name: the id line', () => {
    const text = flowText(ROWS, '', frontWith('id: demo', 'id: other'));
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({ line: 2, message: 'the flow id must match the file name', expected: '`id: demo` in demo.md', received: 'id: other' });
  });

  it('a missing id: the line of the front matter, received "no id"', () => {
    const text = flowText(ROWS, '', frontWith('id: demo\n', ''));
    expect(onlyProblemOf(text)).toMatchObject({ line: 1, message: 'the flow id must match the file name', received: 'no id' });
  });

  it('a missing title: the front matter’s first line, with an example title', () => {
    const text = flowText(ROWS, '', frontWith('title: Demo flow\n', ''));
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({ line: 1, message: 'the flow has no title', received: 'nothing' });
    expect(problem.expected).toMatch(/title: \w/);
  });

  it('an empty title: the title line', () => {
    const text = flowText(ROWS, '', frontWith('title: Demo flow', 'title: "  "'));
    expect(onlyProblemOf(text)).toMatchObject({ line: 3, message: 'the flow has no title' });
  });

  it.each([
    ['first', 'first'],
    ['1.5', '1.5'],
    ['"1"', '1'],
  ])('scan_order: %s is not a whole number: the scan_order line', (value, received) => {
    const text = flowText(ROWS, '', frontWith('scan_order: 3', `scan_order: ${value}`));
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({ line: 4, received });
    expect(problem.message).toMatch(/^scan_order must be a whole number/);
    expect(problem.expected).toBe('`scan_order: 1`');
  });

  it('an unknown key: its line, listing the known keys', () => {
    const text = flowText(ROWS, '', frontWith('scan_order: 3', 'scan_order: 3\nowner: me'));
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({ line: 5, message: 'unknown front matter key `owner`', received: 'owner' });
    expect(problem.expected).toBe('one of id, title, scan_order, detect, description, checkpoint_before');
  });

  it('a detection pattern with `**`: the detect line, naming the pattern', () => {
    const text = flowText(ROWS, '', frontWith('scan_order: 3', 'scan_order: 3\ndetect:\n  any: ["src/**/*.ts"]'));
    const problem = onlyProblemOf(text);
    expect(problem.line).toBe(lineContaining(text, 'detect:'));
    expect(problem.message).toContain('`src/**/*.ts`');
    expect(problem.message).toContain('`**`');
    expect(problem.received).toBe('src/**/*.ts');
    expect(problem.expected).toContain('package.json');
  });

  it('a detection list under another name, or not a list', () => {
    const other = flowText(ROWS, '', frontWith('scan_order: 3', 'scan_order: 3\ndetect:\n  some: [package.json]'));
    expect(onlyProblemOf(other)).toMatchObject({ line: 5, message: '`detect.some` is not a list of path patterns' });
    const scalar = flowText(ROWS, '', frontWith('scan_order: 3', 'scan_order: 3\ndetect: package.json'));
    expect(onlyProblemOf(scalar)).toMatchObject({ line: 5, message: '`detect` must be a mapping with `any` and/or `none` lists', received: '"package.json"' });
  });

  it('accepts `{docs}` at the start of a detection pattern only', () => {
    const ok = flowText(ROWS, '', frontWith('scan_order: 3', 'scan_order: 3\ndetect:\n  none: ["{docs}/00_problem"]'));
    expect(validFlow(ok).detect).toEqual({ any: [], none: ['{docs}/00_problem'] });
    const inside = flowText(ROWS, '', frontWith('scan_order: 3', 'scan_order: 3\ndetect:\n  none: ["x/{docs}"]'));
    expect(onlyProblemOf(inside).message).toContain('`{docs}` may only start a pattern');
  });
});

describe('checkpoint_before: the steps a checkpoint is taken before', () => {
  const marking = (yaml: string) => flowText(ROWS, '', frontWith('scan_order: 3', `scan_order: 3\n${yaml}`));

  it('a list of step names, each kept with its line; a flow without the key carries none', () => {
    const text = marking('checkpoint_before:\n  - Ship\n  - Build');
    expect(validFlow(text).checkpointBefore).toEqual([
      { step: 'Ship', line: lineContaining(text, '- Ship') },
      { step: 'Build', line: lineContaining(text, '- Build') },
    ]);
    const inline = marking('checkpoint_before: [Ship]');
    expect(validFlow(inline).checkpointBefore).toEqual([{ step: 'Ship', line: lineContaining(inline, 'checkpoint_before') }]);
    expect(validFlow(flowText())).not.toHaveProperty('checkpointBefore');
    expect(validFlow(marking('checkpoint_before: []'))).not.toHaveProperty('checkpointBefore');
  });

  it('a name that is no step of the flow: the line of that name, listing the names there are', () => {
    const text = marking('checkpoint_before:\n  - Ship\n  - Nope');
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({
      file: FILE,
      line: lineContaining(text, '- Nope'),
      message: '`checkpoint_before` names `Nope`, no step of demo',
      expected: 'a step name: Brief, Build, Ship',
      received: 'Nope',
    });
  });

  it('names are matched exactly, case included', () => {
    expect(onlyProblemOf(marking('checkpoint_before: [ship]')).message).toBe('`checkpoint_before` names `ship`, no step of demo');
  });

  it('a step number is refused at its line: names survive renumbering', () => {
    const text = marking('checkpoint_before:\n  - 3');
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({ line: lineContaining(text, '- 3'), received: '3' });
    expect(problem.message).toBe('`checkpoint_before` lists steps by name; 3 is not a name');
    expect(problem.expected).toContain('`checkpoint_before: [Deploy]`');
  });

  it('not a list, or an empty name: the key’s line', () => {
    const scalar = marking('checkpoint_before: Ship');
    expect(onlyProblemOf(scalar)).toMatchObject({
      line: lineContaining(scalar, 'checkpoint_before'),
      message: '`checkpoint_before` is not a list of step names',
      received: '"Ship"',
    });
    const empty = marking('checkpoint_before: ["  "]');
    expect(onlyProblemOf(empty)).toMatchObject({
      line: lineContaining(empty, 'checkpoint_before'),
      message: '`checkpoint_before` lists steps by name; " " is not a name',
    });
  });
});

/** The fixture's front matter with one piece of text replaced. */
function frontWith(find: string, replace: string): string {
  expect(FRONT).toContain(find);
  return FRONT.replace(find, replace);
}

describe('step table problems', () => {
  it('no `## Step Reference Table`: line 1, with the table header to write', () => {
    const text = flowText().replace('## Step Reference Table', '## Steps');
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({ line: 1, message: 'the flow has no `## Step Reference Table`', received: 'no such heading' });
    expect(problem.expected).toContain('| Step | Name | Runs | Skill | Sub-steps | Done when | Then |');
  });

  it('a heading without a table: the heading line', () => {
    const text = `${flowText([]).replace(/\| Step[\s\S]*$/, 'The steps are listed below.\n')}\n## Appendix\n\n| a | b |\n|---|---|\n| 1 | 2 |\n`;
    const problem = onlyProblemOf(text);
    expect(problem.line).toBe(lineContaining(text, '## Step Reference Table'));
    expect(problem.message).toBe('`## Step Reference Table` is not followed by a table');
    expect(problem.expected).toContain('| Step | Name | Runs | Skill | Sub-steps | Done when | Then |');
  });

  it('a table without a Then column: the header line, naming the column', () => {
    const text = flowText()
      .replace(/ Then \|\n\|---\|---\|---\|---\|---\|---\|---\|/, '\n|---|---|---|---|---|---|')
      .replace(/ (next|end) \|$/gm, '');
    const problem = onlyProblemOf(text);
    expect(problem.line).toBe(lineContaining(text, '| Step | Name |'));
    expect(problem.message).toBe('the step table lacks column(s): then');
    expect(problem.expected).toBe('| Step | Name | Runs | Skill | Sub-steps | Done when | Then |');
    expect(problem.received).toBe('| Step | Name | Runs | Skill | Sub-steps | Done when |');
  });

  it('a table with a header and no rows: the header line', () => {
    const text = flowText([]);
    expect(onlyProblemOf(text)).toMatchObject({ line: lineContaining(text, '| Step | Name |'), message: 'the step table has no steps' });
  });

  it('a row numbered wrongly: that row, with the number it should have', () => {
    const bad = row(3, 'Build', 'always', '`build`', '`01_build/report.md`', 'next');
    const text = flowText(withRow(1, bad));
    const problem = onlyProblemOf(text);
    expect(problem.line).toBe(lineContaining(text, '| 3 | Build |'));
    expect(problem.message).toBe('step 2 is numbered wrongly');
    expect(problem.expected).toContain('this row is `2`');
    expect(problem.received).toBe('3');
  });

  it('an empty name: that row', () => {
    const text = flowText(withRow(1, row(2, '', 'always', '`build`', '`01_build/report.md`', 'next')));
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({ line: lineContaining(text, '| 2 |'), message: 'the step has no name', received: '(empty)' });
    expect(problem.expected).toContain('`Research`');
  });

  it('a skill that is not a skill name: that row', () => {
    const text = flowText(withRow(1, row(2, 'Build', 'always', 'Plan Skill', '`01_build/report.md`', 'next')));
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({ line: lineContaining(text, 'Plan Skill'), message: 'the skill is not a skill name', received: 'Plan Skill' });
    expect(problem.expected).toContain('`research`');
  });

  it('a done-when cell in prose: that row, with example patterns', () => {
    const text = flowText(withRow(1, row(2, 'Build', 'always', '`build`', 'when the build report is written', 'next')));
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({ line: lineContaining(text, 'when the build report'), received: 'when the build report is written' });
    expect(problem.message).toBe('the done-when cell must list file patterns in backticks');
    expect(problem.expected).toContain('`01_solution/solution_draft*.md`');
  });

  it('a done-when cell with a pattern and prose: that row', () => {
    const text = flowText(withRow(1, row(2, 'Build', 'always', '`build`', '`01_build/report.md` once reviewed', 'next')));
    expect(onlyProblemOf(text)).toMatchObject({
      line: lineContaining(text, 'once reviewed'),
      message: 'the done-when cell must list file patterns in backticks',
    });
  });

  it('accepts patterns joined by commas, `and`, `;`, `+` or `&`', () => {
    const text = flowText(withRow(1, row(2, 'Build', 'always', '`build`', '`a.md`, `b.md` and `c.md`; `d.md` + `e.md` & `f.md`', 'next')));
    expect(validFlow(text).steps[1]!.doneWhen).toEqual(['a.md', 'b.md', 'c.md', 'd.md', 'e.md', 'f.md']);
  });

  it.each([
    ['`02_tasks/**/*.md`', /`\*\*` would walk the whole tree/],
    ['`../secrets.md`', /leaves its folder with `\.\.`/],
    ['`/etc/build/report.md`', /absolute/],
    ['`C:/build/report.md`', /absolute/],
    ['`01_build\\report.md`', /separate folders with `\/`/],
    ['`01_build/{task}.md`', /`\{task\}` is not a placeholder autopilot knows/],
  ])('a done-when pattern %s: that row, saying why', (cellText, why) => {
    const text = flowText(withRow(1, row(2, 'Build', 'always', '`build`', cellText, 'next')));
    const problem = onlyProblemOf(text);
    expect(problem.line).toBe(lineContaining(text, '| 2 | Build |'));
    expect(problem.message).toMatch(/^the done-when pattern `.*` is not usable: /);
    expect(problem.message).toMatch(why);
    expect(problem.expected).toContain('`02_tasks/cycle-{cycle}/*.md`');
  });

  it('a runs cell `sometimes`: that row, listing the three forms', () => {
    const text = flowText(withRow(1, row(2, 'Build', 'sometimes', '`build`', '`01_build/report.md`', 'next')));
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({ line: lineContaining(text, 'sometimes'), message: 'the runs cell is not one of the three forms', received: 'sometimes' });
    expect(problem.expected).toContain('`always`');
    expect(problem.expected).toContain('`optional`');
    expect(problem.expected).toContain('00_problem/ui.md');
  });

  it('a runs condition that is not a usable pattern: that row', () => {
    const text = flowText(withRow(1, row(2, 'Build', 'if `../ui.md` exists', '`build`', '`01_build/report.md`', 'next')));
    const problem = onlyProblemOf(text);
    expect(problem.line).toBe(lineContaining(text, '../ui.md'));
    expect(problem.message).toMatch(/^the condition `\.\.\/ui\.md` is not usable: /);
  });

  it('reads `if`, `if exist` and any casing of the runs forms', () => {
    const text = flowText([
      row(1, 'Brief', 'Always', '`brief`', '`00_brief/brief.md`', 'next'),
      row(2, 'Build', 'if `01_build/wanted.md`', '`build`', '`01_build/report.md`', 'next'),
      row(3, 'Ship', 'OPTIONAL', '`ship`', '`02_ship/report.md`', 'End'),
    ]);
    expect(validFlow(text).steps.map((s) => s.runs)).toEqual([{ kind: 'always' }, { kind: 'if', pattern: '01_build/wanted.md' }, { kind: 'optional' }]);
  });

  it('a then cell `maybe`: that row, listing the known forms', () => {
    const text = flowText(withRow(1, row(2, 'Build', 'always', '`build`', '`01_build/report.md`', 'maybe')));
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({ line: lineContaining(text, 'maybe'), message: 'the then cell is not one of the known forms', received: 'maybe' });
    for (const form of ['`next`', '`session boundary`', '`research-round`', '`loop to step 8`', '`end`']) expect(problem.expected).toContain(form);
  });
});

describe('decision problems', () => {
  const decisionRow = row(2, 'Build', 'always', '`build`', '`01_build/report.md`', 'decision `go-on`');
  const withDecision = (body: string) => flowText(withRow(1, decisionRow), decisions(body));

  it('a then naming an undeclared decision: that row, listing what is declared', () => {
    const text = flowText(withRow(1, row(2, 'Build', 'always', '`build`', '`01_build/report.md`', 'decision `nope`')));
    const problem = onlyProblemOf(text);
    expect(problem.line).toBe(lineContaining(text, 'decision `nope`'));
    expect(problem.message).toBe('step 2 names the decision `nope`, which is not declared');
    expect(problem.expected).toContain('## Decisions');
    expect(problem.received).toBe('declared: none');
  });

  it('a declared decision no step names: the decision heading', () => {
    const text = flowText(ROWS, decisions(`${TWO_OPTIONS}\n\n${RECOMMENDATION}`));
    const problem = onlyProblemOf(text);
    expect(problem.line).toBe(lineContaining(text, '### `go-on`'));
    expect(problem.message).toBe("the decision `go-on` is declared but no step's Then names it");
    expect(problem.expected).toContain('decision `go-on`');
  });

  it('reads a valid decision', () => {
    const flow = validFlow(withDecision(`${TWO_OPTIONS}\n\n${RECOMMENDATION}`));
    expect(flow.decisions['go-on']).toEqual({
      id: 'go-on',
      question: 'Go on, or do it again?',
      options: [
        { letter: 'A', choice: 'Do it again', then: 'repeat' },
        { letter: 'B', choice: 'Go on', then: 'continue' },
      ],
      recommendation: { letter: 'B', reason: 'once is usually enough.' },
      line: lineContaining(withDecision(`${TWO_OPTIONS}\n\n${RECOMMENDATION}`), '### `go-on`'),
    });
  });

  it('a decision with one option: the options table', () => {
    const text = withDecision(`| Option | Choice | Then |\n|---|---|---|\n| A | Go on | continue |\n\nRecommendation: A — nothing else to do.`);
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({ line: lineContaining(text, '| Option |'), message: 'the decision `go-on` has 1 option(s)', received: '1' });
    expect(problem.expected).toBe('2 to 4 options, A to D');
  });

  it('a decision with five options: the fifth row and the table', () => {
    const table = ['| Option | Choice | Then |', '|---|---|---|', ...'ABCDE'.split('').map((l) => `| ${l} | Choice ${l} | continue |`)].join('\n');
    const text = withDecision(`${table}\n\nRecommendation: A — first.`);
    const problems = problemsOf(text);
    expect(problems.map((p) => [p.line, p.message])).toEqual([
      [lineContaining(text, '| E |'), 'option 5 of `go-on` has the wrong letter'],
      [lineContaining(text, '| Option |'), 'the decision `go-on` has 5 option(s)'],
    ]);
  });

  it('option letters out of order: the row with the wrong letter, saying which it should be', () => {
    const text = withDecision(
      `| Option | Choice | Then |\n|---|---|---|\n| A | Do it again | repeat |\n| C | Go on | continue |\n\nRecommendation: A — why not.`,
    );
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({ line: lineContaining(text, '| C |'), message: 'option 2 of `go-on` has the wrong letter', received: 'C' });
    expect(problem.expected).toContain('this row is `B`');
  });

  it('an unknown option effect: that row, naming the two effects', () => {
    const text = withDecision(`| Option | Choice | Then |\n|---|---|---|\n| A | Start over | goto 3 |\n| B | Go on | continue |\n\n${RECOMMENDATION}`);
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({ line: lineContaining(text, 'goto 3'), message: 'option A of `go-on` has an unknown effect', received: 'goto 3' });
    expect(problem.expected).toContain('`continue`');
    expect(problem.expected).toContain('`repeat`');
  });

  it('an option with no choice text: that row', () => {
    const text = withDecision(`| Option | Choice | Then |\n|---|---|---|\n| A |  | repeat |\n| B | Go on | continue |\n\n${RECOMMENDATION}`);
    expect(onlyProblemOf(text)).toMatchObject({ line: lineContaining(text, '| A |'), message: 'option A of `go-on` has no choice text' });
  });

  it('a missing recommendation: the decision heading, with an example', () => {
    const text = withDecision(TWO_OPTIONS);
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({ line: lineContaining(text, '### `go-on`'), message: 'the decision `go-on` has no recommendation', received: 'none' });
    expect(problem.expected).toContain('Recommendation: B — ');
  });

  it('a recommendation without a reason: its own line', () => {
    const text = withDecision(`${TWO_OPTIONS}\n\nRecommendation: B`);
    expect(onlyProblemOf(text)).toMatchObject({
      line: lineContaining(text, 'Recommendation: B'),
      message: 'the decision `go-on` has no recommendation',
      received: 'Recommendation: B',
    });
  });

  it('a recommendation naming a letter that is not an option: its line, listing the options', () => {
    const text = withDecision(`${TWO_OPTIONS}\n\nRecommendation: C — the third way.`);
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({
      line: lineContaining(text, 'Recommendation: C'),
      message: 'the recommendation of `go-on` names no option',
      expected: 'one of A, B',
      received: 'C',
    });
  });

  it('a decision heading without an id in backticks: the heading', () => {
    const text = flowText(withRow(1, decisionRow), '## Decisions\n\n### go-on: Go on?\n\n' + TWO_OPTIONS + '\n\n' + RECOMMENDATION);
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({
      line: lineContaining(text, '### go-on'),
      message: 'a decision heading needs an id in backticks and the question',
      received: 'go-on: Go on?',
    });
    expect(problem.expected).toContain('### `research-round`:');
  });

  it('a decision declared twice: the second heading', () => {
    const body = `${TWO_OPTIONS}\n\n${RECOMMENDATION}`;
    const text = flowText(withRow(1, decisionRow), `${decisions(body)}\n\n### \`go-on\`: Again?\n\n${body}`);
    expect(onlyProblemOf(text)).toMatchObject({ line: lineContaining(text, 'Again?'), message: 'the decision `go-on` is declared twice' });
  });
});

describe('whole-flow problems', () => {
  it('a last step that goes on to `next`: the last row', () => {
    const text = flowText(withRow(2, row(3, 'Ship', 'always', '`ship`', '`02_ship/report.md`', 'next')));
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({
      line: lineContaining(text, '| 3 | Ship |'),
      message: 'the last step (3 Ship) must end the flow or loop',
      received: 'next',
    });
    expect(problem.expected).toBe('`end` or `loop to step N`');
  });

  it('a last step with a session boundary: the last row', () => {
    const text = flowText(withRow(2, row(3, 'Ship', 'always', '`ship`', '`02_ship/report.md`', 'session boundary')));
    expect(onlyProblemOf(text)).toMatchObject({ line: lineContaining(text, '| 3 | Ship |'), received: 'boundary' });
  });

  it('`end` on a middle step: that row', () => {
    const text = flowText(withRow(1, row(2, 'Build', 'always', '`build`', '`01_build/report.md`', 'end')));
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({
      line: lineContaining(text, '| 2 | Build |'),
      message: 'step 2 ends the flow, so the steps after it can never run',
      received: 'end',
    });
  });

  const loopRows = (then: string, secondRuns = 'always') => [
    row(1, 'Brief', 'always', '`brief`', '`00_brief/brief.md`', 'next'),
    row(2, 'Build', secondRuns, '`build`', '`01_build/cycle-{cycle}/report.md`', 'next'),
    row(3, 'Test', 'always', '`test`', '`01_build/cycle-{cycle}/tests.md`', 'next'),
    row(4, 'Review', 'always', '`review`', '`01_build/cycle-{cycle}/review.md`', 'next'),
    row(5, 'Ship', 'always', '`ship`', '`02_ship/cycle-{cycle}/report.md`', then),
  ];

  it('a valid loop parses', () => {
    const flow = validFlow(flowText(loopRows('loop to step 2')));
    expect(flow.steps[4]!.then).toEqual({ kind: 'loop', to: 2 });
  });

  // A wrong loop target also moves where the loop would start, so the `{cycle}` rules would
  // report every step after it; these flows keep the patterns consistent with that start.
  it('`loop to step 9` from step 5: the looping row, with the range of earlier steps', () => {
    const rows = [1, 2, 3, 4].map((n) => row(n, `Step ${n}`, 'always', '`work`', `\`out/${n}.md\``, 'next'));
    const text = flowText([...rows, row(5, 'Ship', 'always', '`ship`', '`out/5.md`', 'loop to step 9')]);
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({
      line: lineContaining(text, 'loop to step 9'),
      message: 'step 5 loops to step 9, which is not an earlier step',
      expected: 'a step from 1 to 5',
      received: '9',
    });
  });

  it('a loop to step 0: the looping row', () => {
    const rows = [1, 2].map((n) => row(n, `Step ${n}`, 'always', '`work`', `\`out/cycle-{cycle}/${n}.md\``, 'next'));
    const text = flowText([...rows, row(3, 'Ship', 'always', '`ship`', '`out/cycle-{cycle}/3.md`', 'loop to 0')]);
    expect(onlyProblemOf(text)).toMatchObject({
      line: lineContaining(text, 'loop to 0'),
      message: 'step 3 loops to step 0, which is not an earlier step',
      received: '0',
    });
  });

  it('a loop on a middle step: that row', () => {
    const rows = loopRows('end');
    rows[2] = row(3, 'Test', 'always', '`test`', '`01_build/cycle-{cycle}/tests.md`', 'loop to step 2');
    const text = flowText(rows);
    const problems = problemsOf(text);
    expect(problems[0]).toMatchObject({ line: lineContaining(text, 'loop to step 2'), message: 'step 3 loops the flow, so the steps after it can never run' });
  });

  it('a loop whose first step is optional: the row of the loop’s first step', () => {
    const text = flowText(loopRows('loop to step 2', 'optional'));
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({
      line: lineContaining(text, '| 2 | Build |'),
      message: 'the loop starts at step 2, which must always run (its artifacts number the cycles)',
      expected: '`always`',
      received: 'optional',
    });
  });

  it('a step inside the loop whose pattern lacks `{cycle}`: that row, with a per-cycle example', () => {
    const rows = loopRows('loop to step 2');
    rows[3] = row(4, 'Review', 'always', '`review`', '`01_build/cycle-{cycle}/review.md`, `01_build/review_notes.md`', 'next');
    const text = flowText(rows);
    const problem = onlyProblemOf(text);
    expect(problem.line).toBe(lineContaining(text, '| 4 | Review |'));
    expect(problem.message).toMatch(/^step 4 runs once per cycle, so each of its done-when patterns must hold `\{cycle\}`/);
    expect(problem.expected).toContain('{cycle}');
    expect(problem.received).toBe('01_build/cycle-{cycle}/review.md, 01_build/review_notes.md');
  });

  it('`{cycle}` in a step outside the loop: that row', () => {
    const rows = loopRows('loop to step 2');
    rows[0] = row(1, 'Brief', 'always', '`brief`', '`00_brief/cycle-{cycle}.md`', 'next');
    const text = flowText(rows);
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({
      line: lineContaining(text, '| 1 | Brief |'),
      message: 'step 1 is outside any loop, so `{cycle}` has no meaning in its patterns',
      received: '00_brief/cycle-{cycle}.md',
    });
  });

  it('`{cycle}` in a flow without a loop, even only in a runs condition: that row', () => {
    const text = flowText(withRow(1, row(2, 'Build', 'if `00_brief/cycle-{cycle}.md` exists', '`build`', '`01_build/report.md`', 'next')));
    const problem = onlyProblemOf(text);
    expect(problem).toMatchObject({ line: lineContaining(text, '| 2 | Build |'), received: '01_build/report.md, 00_brief/cycle-{cycle}.md' });
  });

  it('two steps with the same done-when pattern: the second row, naming both steps', () => {
    const text = flowText(withRow(2, row(3, 'Ship', 'always', '`ship`', '`02_ship/report.md`, `01_build/report.md`', 'end')));
    const problem = onlyProblemOf(text);
    expect(problem.line).toBe(lineContaining(text, '| 3 | Ship |'));
    expect(problem.message).toBe('steps 2 and 3 share the done-when pattern `01_build/report.md`, so the folder could not tell which is done');
    expect(problem.received).toBe('01_build/report.md');
  });
});

describe('several problems in one file', () => {
  it('reports every problem of the rows and the front matter at once', () => {
    const front = ['---', 'id: demo', 'title: Demo flow', 'scan_order: 3', 'owner: me', '---'].join('\n');
    const text = flowText(
      [
        row(1, 'Brief', 'always', 'Brief Skill', '`00_brief/brief.md`', 'next'),
        row(2, 'Build', 'sometimes', '`build`', '`01_build/report.md`', 'next'),
        row(3, 'Ship', 'always', '`ship`', '`02_ship/report.md`', 'maybe'),
      ],
      '',
      front,
    );
    const problems = problemsOf(text);
    expect(problems.map((p) => [p.line, p.message])).toEqual([
      [lineContaining(text, 'owner: me'), 'unknown front matter key `owner`'],
      [lineContaining(text, 'Brief Skill'), 'the skill is not a skill name'],
      [lineContaining(text, 'sometimes'), 'the runs cell is not one of the three forms'],
      [lineContaining(text, 'maybe'), 'the then cell is not one of the known forms'],
    ]);
  });

  it('reports several problems of one row', () => {
    const text = flowText(withRow(1, row(2, '', 'sometimes', '`build`', 'prose', 'maybe')));
    expect(problemsOf(text).map((p) => p.message)).toEqual([
      'the step has no name',
      'the done-when cell must list file patterns in backticks',
      'the runs cell is not one of the three forms',
      'the then cell is not one of the known forms',
    ]);
  });

  it('reports every whole-flow problem at once', () => {
    const text = flowText(
      [
        row(1, 'Brief', 'always', '`brief`', '`00_brief/brief.md`', 'end'),
        row(2, 'Build', 'always', '`build`', '`00_brief/brief.md`', 'decision `nope`'),
        row(3, 'Ship', 'always', '`ship`', '`02_ship/report.md`', 'next'),
      ],
      decisions(`${TWO_OPTIONS}\n\n${RECOMMENDATION}`),
    );
    const problems = problemsOf(text);
    expect(problems.map((p) => p.line).sort((a, b) => a! - b!)).toEqual(
      [
        lineContaining(text, '| 1 | Brief |'),
        lineContaining(text, '| 2 | Build |'),
        lineContaining(text, '| 2 | Build |'),
        lineContaining(text, '| 3 | Ship |'),
        lineContaining(text, '### `go-on`'),
      ].sort((a, b) => a - b),
    );
    expect(problems.map((p) => p.message)).toEqual(
      expect.arrayContaining([
        'step 1 ends the flow, so the steps after it can never run',
        'step 2 names the decision `nope`, which is not declared',
        'the last step (3 Ship) must end the flow or loop',
        'steps 1 and 2 share the done-when pattern `00_brief/brief.md`, so the folder could not tell which is done',
        "the decision `go-on` is declared but no step's Then names it",
      ]),
    );
  });

  it('every problem names the flow file', () => {
    for (const p of problemsOf(flowText([row(1, '', 'x', 'y z', 'w', 'v')]))) expect(p.file).toBe(FILE);
  });
});
