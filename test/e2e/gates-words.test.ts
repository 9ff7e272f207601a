/**
 * Issue 29's words (points 8, 9, 10), tried as a lazy or cheating agent would,
 * through the built command line: each attack that `done` used to accept is
 * refused with exit 2, naming the file, the line and heading where there is
 * one, and what to write; the journal is left as it was. The honest file
 * passes after each.
 */
import { mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autopilot, read, tempRepo, write, writeArtifacts, type NextJson } from '../helpers/cli.js';
import { filledTemplate } from '../helpers/templates.js';
import { ROOT } from '../helpers/engine.js';

const JOURNAL = '_docs/_autopilot/journal.jsonl';

interface Finding {
  check: string;
  file: string;
  line?: number;
  heading?: string;
  message: string;
  write: string;
}

/** `done` refused: exit 2, the findings it names, nothing journaled. */
function refused(dir: string): Finding[] {
  const before = read(dir, JOURNAL);
  const done = autopilot(dir, 'done', '--json');
  expect(done.code, done.stdout + done.stderr).toBe(2);
  expect(read(dir, JOURNAL)).toBe(before);
  const findings = done.json<{ findings: Finding[] }>().findings;
  for (const f of findings) expect(f.write.length, f.message).toBeGreaterThan(0);
  return findings;
}

function next(dir: string): NextJson {
  const run = autopilot(dir, 'next', '--json');
  expect(run.code, run.stdout + run.stderr).toBe(0);
  return run.json<NextJson>();
}

/** Steps done as the skills say until `step` is the one in progress. */
function reach(dir: string, step: number): NextJson {
  for (let i = 0; i < 12; i++) {
    const n = next(dir);
    if (n.step === step) return n;
    writeArtifacts(dir, n.done_when!);
    const done = autopilot(dir, 'done');
    if (done.code === 3) expect(autopilot(dir, 'decide', 'B').code).toBe(0);
    else expect(done.code, done.stdout).toBe(0);
  }
  throw new Error(`step ${step} not reached`);
}

const PROBLEM = '_docs/00_problem/problem.md';
const CRITERIA = '_docs/00_problem/acceptance_criteria.md';
const problemTemplate = readFileSync(join(ROOT, 'skills', 'problem', 'templates', 'problem.md'), 'utf8');
const filledProblem = () => filledTemplate('problem', 'templates/problem.md');
const HEADINGS = ['Problem', 'Users', 'Scope', 'Restrictions', 'Interfaces', 'Open questions'];

/** The problem file with each section's first line replaced by `body(heading)`. */
const everySection = (body: (heading: string) => string) =>
  HEADINGS.reduce((text, h) => text.replace(new RegExp(`(## ${h}\\n\\n)[^\\n]+`), `$1${body(h)}`), filledProblem());

/** At Problem, with the criteria written as the skill says. */
function atProblem(): string {
  const dir = tempRepo();
  next(dir);
  write(dir, CRITERIA, filledTemplate('problem', 'templates/acceptance_criteria.md'));
  return dir;
}

describe('words done is not fooled by', () => {
  it('the template’s 7 hints with {{ }} turned into { }: 7 refused, each at its line and heading', () => {
    const dir = atProblem();
    write(dir, PROBLEM, problemTemplate.replace(/\{\{\s*([^{}]*?)\s*\}\}/g, '{ $1 }').replace(/- \[ \]/g, '- [x]'));
    const found = refused(dir).filter((f) => f.check === 'placeholders' && /template's placeholder/.test(f.message));
    expect(found.map((f) => [f.file, f.line, f.heading])).toEqual([
      [PROBLEM, 1, expect.stringMatching(/^Problem: /)],
      [PROBLEM, 5, 'Problem'],
      [PROBLEM, 9, 'Users'],
      [PROBLEM, 13, 'Scope'],
      [PROBLEM, 17, 'Restrictions'],
      [PROBLEM, 21, 'Interfaces'],
      [PROBLEM, 25, 'Open questions'],
    ]);
    write(dir, PROBLEM, filledProblem());
    expect(autopilot(dir, 'done').code).toBe(0);
  });

  it('hints in 4 other brackets ([ ], < >, (( )), full-width ｛ ｝): 4 refused', () => {
    const dir = atProblem();
    const forms = ['[$1]', '<$1>', '(($1))', '｛$1｝'];
    let text = filledProblem();
    forms.forEach((form, i) => {
      const h = HEADINGS[i + 1]!;
      const hint = new RegExp(`## ${h}\\n\\n\\{\\{\\s*([^{}]*?)\\s*\\}\\}`).exec(problemTemplate)![1]!;
      text = text.replace(new RegExp(`(## ${h}\\n\\n)[^\\n]+`), `$1${form.replace('$1', hint)}`);
    });
    write(dir, PROBLEM, text);
    expect(refused(dir).map((f) => f.heading)).toEqual(['Users', 'Scope', 'Restrictions', 'Interfaces']);
  });

  it('placeholder markers in 5 disguises (todo:, - tbd, Cyrillic ТОDO, full-width ｔｏｄｏ, a zero-width space): 5 refused; a to-do app’s words pass', () => {
    const dir = atProblem();
    const disguises = ['todo: who it is for', '- tbd, ask the team', 'ТОDO once we know', 'ｔｏｄｏ： the limits', 'TO\u200bDO after the call'];
    write(
      dir,
      PROBLEM,
      everySection((h) => disguises[HEADINGS.indexOf(h)] ?? 'None left open.'),
    );
    const found = refused(dir);
    expect(found.map((f) => [f.check, f.line, f.heading])).toEqual([
      ['placeholders', 5, 'Problem'],
      ['placeholders', 9, 'Users'],
      ['placeholders', 13, 'Scope'],
      ['placeholders', 17, 'Restrictions'],
      ['placeholders', 21, 'Interfaces'],
    ]);
    const todoApp = [
      'The todo list app loses items when two phones edit one list.',
      'Todo items belong to families who share one shopping list.',
      'In scope: the Todo model, sync and sharing; out: reminders.',
      'Runs on iOS 17 and Android 14; the todo data stays in the EU.',
      'A phone app and a small HTTP API; Todo lists export as CSV.',
      'None left open.',
    ];
    write(
      dir,
      PROBLEM,
      everySection((h) => todoApp[HEADINGS.indexOf(h)]!),
    );
    const done = autopilot(dir, 'done');
    expect(done.code, done.stdout).toBe(0);
  });

  it('"This section describes the users." under each of 6 headings: 6 refused as restating their heading', () => {
    const dir = atProblem();
    write(
      dir,
      PROBLEM,
      everySection((h) => `This section describes the ${h.toLowerCase()}.`),
    );
    const found = refused(dir);
    expect(found.map((f) => [f.check, f.heading])).toEqual(HEADINGS.map((h) => ['filler', h]));
    expect(found[1]!.message).toBe('the section "Users" only restates its heading: "This section describes the users."');
  });

  it('one sentence shape under 6 headings ("Here we write about the users of Acme in detail."): 6 refused', () => {
    const dir = atProblem();
    write(
      dir,
      PROBLEM,
      everySection((h) => `Here we write about the ${h.toLowerCase()} of Acme in detail.`),
    );
    expect(refused(dir).map((f) => [f.check, f.heading])).toEqual(HEADINGS.map((h) => ['filler', h]));
  });

  it('lorem ipsum under 2 headings: 2 refused', () => {
    const dir = atProblem();
    write(
      dir,
      PROBLEM,
      filledProblem()
        .replace(/(## Users\n\n)[^\n]+/, '$1Lorem ipsum dolor sit amet, consectetur adipiscing elit.')
        .replace(/(## Scope\n\n)[^\n]+/, '$1Sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.'),
    );
    expect(refused(dir).map((f) => [f.check, f.line, f.heading])).toEqual([
      ['filler', 9, 'Users'],
      ['filler', 13, 'Scope'],
    ]);
  });
});

describe('fresh on what a reader sees', () => {
  it('Research: the failed attempt’s draft plus one space, or in capitals, is refused as unchanged; a revised draft passes', () => {
    const dir = tempRepo();
    const research = reach(dir, 2);
    writeArtifacts(dir, research.done_when!);
    const draft = '_docs/01_solution/solution_draft_01.md';
    const failed = read(dir, draft);
    expect(autopilot(dir, 'fail', '--reason', 'the sources were thin').code).toBe(0);
    expect(next(dir)).toMatchObject({ step: 2, retry_count: 1 });
    for (const same of [`${failed} `, failed.replace(/Answer/g, 'ANSWER')]) {
      write(dir, draft, same);
      expect(refused(dir).map((f) => [f.check, f.message])).toEqual([['fresh', expect.stringMatching(/is new or changed in this attempt \(attempt 2/)]]);
    }
    write(dir, draft, filledTemplate('research', 'templates/solution_draft.md', 'attempt 2'));
    expect(autopilot(dir, 'done').code).toBe(3);
  });

  it('a new research round that is draft 01 under a new title, one line changed: refused, naming draft 01; a draft of its own passes', () => {
    const dir = tempRepo();
    const research = reach(dir, 2);
    writeArtifacts(dir, research.done_when!);
    expect(autopilot(dir, 'done').code).toBe(3);
    expect(autopilot(dir, 'decide', 'A').code).toBe(0);
    expect(next(dir)).toMatchObject({ step: 2 });
    const first = read(dir, '_docs/01_solution/solution_draft_01.md');
    const second = '_docs/01_solution/solution_draft_02.md';
    write(
      dir,
      second,
      first.replace(/^# Solution draft 01/m, '# Solution draft 02').replace(/(## Recommendation\n\n)[^\n]+/, '$1Postgres, as round two found.'),
    );
    const found = refused(dir);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ check: 'fresh', file: second, line: expect.any(Number), heading: expect.any(String) });
    expect(found[0]!.message).toMatch(
      /sentences of 01_solution\/solution_draft_02\.md are an earlier round's \(\d+ of them in 01_solution\/solution_draft_01\.md\)/,
    );
    write(dir, second, filledTemplate('research', 'templates/solution_draft.md', second));
    expect(autopilot(dir, 'done').code).toBe(3);
  });
});

describe('task files that are real (Decompose)', () => {
  const TASK = '_docs/02_tasks/01_first_task.md';
  const fakes: [string, (dir: string) => void, RegExp][] = [
    ['empty', (dir) => write(dir, TASK, ''), /is empty$/],
    ['a folder', (dir) => mkdirSync(join(dir, TASK), { recursive: true }), /is a folder$/],
    ['a link to /dev/null', (dir) => symlinkSync('/dev/null', join(dir, TASK)), /is a link to \/dev\/null$/],
    ['a link to /etc/passwd', (dir) => symlinkSync('/etc/passwd', join(dir, TASK)), /is a link to \/etc\/passwd$/],
    ['without the template’s sections', (dir) => write(dir, TASK, '# 01 First task\n\nWrite the first task.\n'), /the required section "Goal" is missing$/],
  ];

  it(`${fakes.length} fake task files (empty, a folder, links to /dev/null and /etc/passwd, no sections): each refused, naming the task file`, () => {
    const dir = tempRepo();
    const decompose = reach(dir, 5);
    writeArtifacts(dir, decompose.done_when!);
    const messages = fakes.map(([, fake]) => {
      rmSync(join(dir, TASK), { recursive: true, force: true });
      fake(dir);
      const found = refused(dir);
      expect(found.length).toBeGreaterThan(0);
      expect(found.filter((f) => f.check !== 'task-index' || f.file !== TASK)).toEqual([]);
      return found[0]!.message;
    });
    expect(messages.map((m, i) => fakes[i]![2].test(m))).toEqual(fakes.map(() => true));
    rmSync(join(dir, TASK), { recursive: true, force: true });
    writeArtifacts(dir, decompose.done_when!);
    expect(autopilot(dir, 'done').code).toBe(3);
  });
});

describe('the acceptance trace (Decompose’s task index)', () => {
  it('AC-01 only inside an HTML comment: refused as not named; an invented AC-99: refused at its line; named in the text: passes', () => {
    const dir = tempRepo();
    const decompose = reach(dir, 5);
    writeArtifacts(dir, decompose.done_when!);
    const index = '_docs/02_tasks/_index.md';
    const honest = read(dir, index);
    write(dir, index, honest.replace(/^\| AC-01 \| 01 \|$/m, '| — | 01 | <!-- AC-01 -->'));
    expect(refused(dir).map((f) => [f.check, f.message, f.heading])).toEqual([
      ['acceptance-trace', '1 of 1 acceptance criteria are not named: AC-01', 'Coverage'],
    ]);
    write(dir, index, honest.replace(/^(\| AC-01 \| 01 \|)$/m, '$1\n| AC-99 | 01 |'));
    const invented = refused(dir);
    expect(invented.map((f) => [f.check, f.line, f.heading])).toEqual([
      ['acceptance-trace', honest.split('\n').findIndex((l) => l === '| AC-01 | 01 |') + 2, 'Coverage'],
    ]);
    expect(invented[0]!.message).toBe('AC-99 is not an acceptance criterion: 00_problem/acceptance_criteria.md holds AC-01');
    write(dir, index, honest);
    expect(autopilot(dir, 'done').code).toBe(3);
  });
});
