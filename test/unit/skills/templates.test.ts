/**
 * Skills, templates, the flows, `_docs-example` and the engine's judges agree
 * (issue 23, point 9). For every skill: its declaration parses; each declared
 * `file:` is a Done-when pattern of a step that uses the skill, and each such
 * pattern is declared; each template exists and holds every required section
 * and the skill's Self-check; a template filled as the skill says passes
 * every judge the skill names, and left unfilled it is refused. The bundled
 * example passes the judges of every file it holds.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { judgeFile, type CommandRun, type JudgeInput, type OutputDeclaration } from '../../../src/evidence/index.js';
import { parseFlow } from '../../../src/formats/flow/parse-flow.js';
import type { Step } from '../../../src/formats/flow/model.js';
import { TASK_TABLE_HEADER } from '../../../src/evidence/task-table.js';
import { parseOutputsDeclaration } from '../../../src/formats/skill-outputs.js';
import { summarizeTasks } from '../../../src/summary/task-table.js';
import { ROOT } from '../../helpers/engine.js';
import { FILLED_COMMAND, FILLED_TOTALS, filledEvidence, fillTemplate, filledTemplate, stepEvidence } from '../../helpers/templates.js';

const SKILLS = readdirSync(join(ROOT, 'skills')).sort();
const skillText = (skill: string) => readFileSync(join(ROOT, 'skills', skill, 'SKILL.md'), 'utf8');

function outputsOf(skill: string): OutputDeclaration[] {
  const parsed = parseOutputsDeclaration(skillText(skill), `skills/${skill}/SKILL.md`);
  if (!parsed || 'problem' in parsed) throw new Error(`skills/${skill}/SKILL.md: ${parsed ? parsed.problem.message : 'no outputs declared'}`);
  return parsed.outputs;
}

const STEPS: (Step & { flow: string })[] = ['greenfield', 'existing-code'].flatMap((id) => {
  const parsed = parseFlow(readFileSync(join(ROOT, 'flows', `${id}.md`), 'utf8'), `flows/${id}.md`, id);
  if (!parsed.flow) throw new Error(`flows/${id}.md: ${parsed.problems.map((p) => p.message).join('; ')}`);
  return parsed.flow.steps.map((step) => ({ ...step, flow: id }));
});

/** The `## ` headings of a text, and the items of its `## Self-check` section. */
const headings = (text: string) => [...text.matchAll(/^## (.+?)\s*$/gm)].map((m) => m[1]!.toLowerCase());
function selfCheck(text: string): { items: string[]; ticked: boolean[] } {
  const section = text.split(/^## Self-check\s*$/m)[1]?.split(/^## /m)[0] ?? '';
  const items = [...section.matchAll(/^- \[([ x])\] (.+)$/gm)];
  return { items: items.map((m) => m[2]!.trim()), ticked: items.map((m) => m[1] === 'x') };
}

/** What `done` hands a judge beside the file: the run `autopilot exec` recorded, the task files, the criteria. */
const RUNS: CommandRun[] = [{ command: FILLED_COMMAND, exitCode: 0, totals: FILLED_TOTALS, seq: 1 }];
const ACCEPTANCE = filledTemplate('problem', 'templates/acceptance_criteria.md');

function judge(skill: string, output: OutputDeclaration, file: string, text: string, siblings: string[], acceptance = ACCEPTANCE) {
  const input: JudgeInput = {
    output,
    file,
    text,
    skill,
    acceptance,
    siblings,
    runs: RUNS,
    verify: { command: FILLED_COMMAND, changed: [] },
    ...(output.template ? { template: readFileSync(join(ROOT, 'skills', skill, output.template), 'utf8') } : {}),
  };
  return judgeFile(input);
}

describe('the 16 skills and the two flows', () => {
  it('every skill a flow names is one of the 16, and each declares its outputs', () => {
    expect(SKILLS).toHaveLength(16);
    expect(new Set(STEPS.map((s) => s.skill))).toEqual(new Set(SKILLS));
    for (const skill of SKILLS) expect(outputsOf(skill).length, skill).toBeGreaterThan(0);
  });

  it.each(SKILLS)('%s: each declared file is a Done-when pattern or a batch report of a step that uses it, and each such pattern is declared once', (skill) => {
    const patterns = STEPS.filter((s) => s.skill === skill).flatMap((s) => [...s.doneWhen, ...(s.batches ? [s.batches.report] : [])]);
    const files = outputsOf(skill).map((o) => o.file);
    expect([...files].sort()).toEqual([...new Set(patterns)].sort());
  });
});

describe('filledEvidence, for the walks', () => {
  it('gives every Done-when file of both flows (27 patterns) its filled template, and a task file beside each of the 3 task indexes', () => {
    const patterns = STEPS.flatMap((s) => s.doneWhen.map((pattern) => ({ pattern, skill: s.skill })));
    expect(patterns).toHaveLength(27);
    expect(() => filledEvidence('02_document/architecture.md')).toThrow('document and plan declare 02_document/architecture.md: name the skill');
    let taskFiles = 0;
    for (const { pattern, skill } of patterns) {
      const files = filledEvidence(pattern.replace('{cycle}', '2').replace('*', '01'), skill);
      for (const text of Object.values(files)) expect(text).not.toMatch(/\{\{|- \[ \]/);
      taskFiles += Object.keys(files).filter((f) => f.endsWith('01_first_task.md')).length;
    }
    expect(taskFiles).toBe(3);
  });
});

describe('stepEvidence, for the walks that write files one at a time', () => {
  it('writes 02_document/architecture.md, declared by plan and by document, so that both skills’ judges pass', () => {
    const text = stepEvidence(['_docs/02_document/architecture.md'])['_docs/02_document/architecture.md']!;
    for (const skill of ['plan', 'document']) {
      const output = outputsOf(skill).find((o) => o.file === '02_document/architecture.md')!;
      expect(judge(skill, output, '02_document/architecture.md', text, []), skill).toEqual([]);
    }
  });

  it('takes the skill that declares every file of the list, and gives a file no skill declares a line of text', () => {
    const plan = stepEvidence(['_docs/01_solution/solution.md', '_docs/02_document/architecture.md']);
    expect(plan['_docs/02_document/architecture.md']).toContain('## Review and risks');
    expect(plan['_docs/02_document/architecture.md']).not.toContain('## Build and run');
    expect(stepEvidence(['_docs/notes/x.md'])).toEqual({ '_docs/notes/x.md': 'written for _docs/notes/x.md\n' });
  });
});

describe.each(SKILLS)('the %s skill', (skill) => {
  const text = skillText(skill);
  const own = selfCheck(text);

  it('ends with a Self-check of unticked items, the last `## ` section', () => {
    expect(headings(text).at(-1)).toBe('self-check');
    expect(own.items.length).toBeGreaterThanOrEqual(3);
    expect(own.ticked.every((t) => !t)).toBe(true);
  });

  it('names each template it points to, and each exists', () => {
    const named = [...text.matchAll(/`((?:\.\.\/[a-z-]+\/)?templates\/[a-z_]+\.md)`/g)].map((m) => m[1]!);
    for (const output of outputsOf(skill)) {
      expect(output.template, output.file).toBeDefined();
      expect(existsSync(join(ROOT, 'skills', skill, output.template!)), output.template).toBe(true);
    }
    for (const template of named) {
      const inSkill = existsSync(join(ROOT, 'skills', skill, template));
      const inDecompose = existsSync(join(ROOT, 'skills', 'decompose', template));
      expect(inSkill || inDecompose, template).toBe(true);
    }
  });

  it.each(outputsOf(skill).map((o) => [o.file, o] as const))('%s: the template holds every required section and the skill’s Self-check items', (_, output) => {
    const template = readFileSync(join(ROOT, 'skills', skill, output.template!), 'utf8');
    const have = headings(template);
    for (const section of output.sections) expect(have, section).toContain(section.toLowerCase());
    const check = selfCheck(template);
    expect(check.items.length).toBeGreaterThan(0);
    expect(check.ticked.every((t) => !t)).toBe(true);
    for (const item of check.items) expect(own.items, item).toContain(item);
    expect(template).toMatch(/\{\{ [^{}]+ \}\}/);
    expect(output.checks).toEqual(expect.arrayContaining(['placeholders', 'self-check']));
  });

  it('every Self-check item of the skill is in one of its templates', () => {
    const inTemplates = new Set(outputsOf(skill).flatMap((o) => selfCheck(readFileSync(join(ROOT, 'skills', skill, o.template!), 'utf8')).items));
    for (const item of own.items) expect(inTemplates, item).toContain(item);
  });

  it.each(outputsOf(skill).map((o) => [o.file, o] as const))('%s: filled as the skill says, every judge passes; unfilled, it is refused', (file, output) => {
    const template = readFileSync(join(ROOT, 'skills', skill, output.template!), 'utf8');
    const path = file.replace('{cycle}', '1').replace('*', '01');
    const siblings = ['_index.md', '01_first_task.md'];
    expect(judge(skill, output, path, fillTemplate(template), siblings)).toEqual([]);
    const refused = judge(skill, output, path, template, siblings).map((f) => f.check);
    expect(refused).toEqual(expect.arrayContaining(['placeholders', 'self-check']));
  });
});

describe('the task index (decompose, new-task)', () => {
  const indexes = ['decompose', 'new-task'].flatMap((skill) => outputsOf(skill).map((output) => ({ skill, output })));

  it('3 outputs are task indexes, each checked by task-index, with the header the judge asks for in its template and its skill', () => {
    expect(indexes.filter((i) => i.output.checks.includes('task-index'))).toHaveLength(3);
    expect(TASK_TABLE_HEADER).toBe('| Task | Name | Points | Batch | Depends on | Test strategy |');
    for (const { skill, output } of indexes) {
      expect(readFileSync(join(ROOT, 'skills', skill, output.template!), 'utf8')).toContain(TASK_TABLE_HEADER);
      expect(skillText(skill)).toContain(TASK_TABLE_HEADER);
    }
  });

  it.each(['decompose', 'new-task'])('%s: the filled template reads at the boundary as 1 task, 1 batch, 3 points', (skill) => {
    expect(summarizeTasks(filledTemplate(skill, 'templates/task_index.md'), `skills/${skill}`)).toEqual({ tasks: 1, batches: 1, points: 3 });
  });

  it('greenfield’s index must cover every AC id: one left out is refused, naming it', () => {
    const output = outputsOf('decompose').find((o) => o.file === '02_tasks/_index.md')!;
    const two = ACCEPTANCE.replace(/^(- \*\*AC-01\*\*.*)$/m, '$1\n- **AC-02**: A second criterion the tasks must cover. Checked by: a test.');
    const findings = judge('decompose', output, '02_tasks/_index.md', filledTemplate('decompose', 'templates/task_index.md'), ['01_first_task.md'], two);
    expect(findings).toMatchObject([{ check: 'acceptance-trace', message: expect.stringContaining('AC-02') }]);
  });

  it('a task row without its task file beside the index is refused', () => {
    const output = outputsOf('decompose').find((o) => o.file === '02_tasks/_index.md')!;
    const findings = judge('decompose', output, '02_tasks/_index.md', filledTemplate('decompose', 'templates/task_index.md'), ['_index.md']);
    expect(findings).toMatchObject([{ check: 'task-index', message: 'task 01 has no task file beside the index' }]);
  });
});

describe('the task file template (decompose, new-task)', () => {
  it('fills to a file whose name the task index accepts beside it', () => {
    const task = filledTemplate('decompose', 'templates/task.md');
    expect(task).not.toMatch(/\{\{|\}\}/);
    expect(task).toMatch(/^# 01 /);
  });
});

describe('_docs-example', () => {
  const DOCS = join(ROOT, '_docs-example', '_docs');
  const files = (dir: string, prefix = ''): string[] =>
    readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(dir, join(prefix, e.name)) : [join(prefix, e.name)]));
  const greenfield = STEPS.filter((s) => s.flow === 'greenfield');
  const declared = greenfield.flatMap((step) => outputsOf(step.skill).filter((o) => step.doneWhen.includes(o.file)).map((output) => ({ skill: step.skill, output })));
  const matches = (pattern: string, file: string) => new RegExp(`^${pattern.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`).test(file);
  const acceptance = readFileSync(join(DOCS, '00_problem/acceptance_criteria.md'), 'utf8');
  const judged = files(DOCS).flatMap((file) => declared.filter((d) => matches(d.output.file, file)).map((d) => ({ file, ...d })));

  it('holds the 5 files its steps declare so far: problem, criteria, two drafts, the solution', () => {
    expect(judged.map((j) => j.file).sort()).toEqual([
      '00_problem/acceptance_criteria.md',
      '00_problem/problem.md',
      '01_solution/solution.md',
      '01_solution/solution_draft_01.md',
      '01_solution/solution_draft_02.md',
    ]);
  });

  it.each(judged.map((j) => [j.file, j] as const))('%s passes every judge its skill names', (file, { skill, output }) => {
    const text = readFileSync(join(DOCS, file), 'utf8');
    expect(judge(skill, output, file, text, [], acceptance)).toEqual([]);
  });

  it.each(['02_document/architecture.md', '02_tasks/_index.md'])('%s, which `npm run demo` writes next (scripts/demo/), passes every judge its skill names', (file) => {
    const { skill, output } = declared.find((d) => d.output.file === file)!;
    const demo = join(ROOT, 'scripts', 'demo');
    const siblings = readdirSync(join(demo, file, '..'));
    expect(judge(skill, output, file, readFileSync(join(demo, file), 'utf8'), siblings, acceptance)).toEqual([]);
  });

  it('numbers its criteria AC-01 to AC-07', () => {
    expect([...acceptance.matchAll(/\*\*(AC-\d\d)\*\*/g)].map((m) => m[1])).toEqual(['AC-01', 'AC-02', 'AC-03', 'AC-04', 'AC-05', 'AC-06', 'AC-07']);
  });
});
