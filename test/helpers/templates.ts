/**
 * The skills' templates filled as their skills say (issue 23): every
 * `{{ … }}` replaced by what it asks for, every Self-check box ticked. A
 * placeholder that asks for a value of a fixed shape (a task id, points, an
 * `AC-` id, an exit code, totals) gets one of that shape; any other gets a
 * sentence of its own. The walks and the skills' test write evidence with it
 * that the engine's judges accept.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The repository's root, which holds skills/: two folders up in source (test/helpers/), one when bundled into dist/bench.js. */
const ROOT = [join(import.meta.dirname, '..', '..'), join(import.meta.dirname, '..')].find((dir) => existsSync(join(dir, 'skills', 'problem', 'SKILL.md')))!;

/**
 * The project's tests in a test repository (`testProject`): `node --test`
 * over one passing test, named as `verify:` in its settings. A filled
 * Result names that command and the totals its run gives, and `autopilot
 * exec` with no command (`FILLED_ARGV`, none) runs it: the engine holds a
 * report to a run of the project's own tests.
 */
export const FILLED_ARGV: string[] = [];
export const FILLED_COMMAND = 'node --test';
export const FILLED_TOTALS = { passed: 1, failed: 0 };

/** Gives a test repository its tests, where it has none yet: `verify: node --test` in its settings, and one passing test. */
export function testProject(dir: string): void {
  const config = join(dir, '.autopilot', 'config.yml');
  const text = existsSync(config) ? readFileSync(config, 'utf8') : '';
  if (!/^verify\s*:/m.test(text)) {
    mkdirSync(dirname(config), { recursive: true });
    writeFileSync(config, `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}verify: ${FILLED_COMMAND}\n`);
  }
  const test = join(dir, 'test', 'project.test.js');
  if (!existsSync(test)) {
    mkdirSync(dirname(test), { recursive: true });
    writeFileSync(test, "const test = require('node:test');\ntest('the project works', () => {});\n");
  }
}

/** What a placeholder of a fixed shape is filled with, by the words it asks with. */
const SHAPED: [RegExp, string][] = [
  [/^task ids$/, '01'],
  [/^task id$/, '01'],
  [/^points$/, '3'],
  [/^batch$/, '1'],
  [/^depends on$/, '—'],
  [/^ac id$/, 'AC-01'],
  [/^case id/, 'TC-001'],
  [/^exit code$/, '0'],
  [/^totals$/, `${FILLED_TOTALS.passed} passed, ${FILLED_TOTALS.failed} failed`],
  [/^command$|run through autopilot exec$/, FILLED_COMMAND],
  [/^round number/, '01'],
  [/^cycle number$/, '1'],
  [/^count$/, '2'],
];

/** A template's text with every placeholder filled and every box ticked; `tag` (a file's name) makes two files' sentences differ. */
export function fillTemplate(template: string, tag?: string): string {
  let n = 0;
  return template
    .replace(/\{\{\s*([^{}]*?)\s*\}\}/g, (_, asked: string) => {
      const key = asked.toLowerCase();
      const shaped = SHAPED.find(([pattern]) => pattern.test(key));
      if (shaped) return shaped[1];
      n += 1;
      return `Answer ${n}${tag ? ` in ${tag}` : ''} holds this project's own words about ${key.split(/[,;:(]/)[0]!.trim()}`;
    })
    .replace(/^(\s*[-*] )\[ \]/gm, '$1[x]');
}

/** A skill's template, filled. */
export function filledTemplate(skill: string, template: string, tag?: string): string {
  return fillTemplate(readFileSync(join(ROOT, 'skills', skill, template), 'utf8'), tag);
}

/** Each built-in skill's declared outputs, `file` → `template`, read from its front matter's plain lines. */
let declared: { skill: string; file: string; template: string }[] | undefined;
function declaredTemplates(): { skill: string; file: string; template: string }[] {
  return (declared ??= readdirSync(join(ROOT, 'skills')).flatMap((skill) => {
    const text = readFileSync(join(ROOT, 'skills', skill, 'SKILL.md'), 'utf8');
    const front = text.slice(0, text.indexOf('\n---', 3));
    return [...front.matchAll(/^ {2}- file: (\S+)\n {4}template: (\S+)$/gm)].map((m) => ({ skill, file: m[1]!, template: m[2]! }));
  }));
}

const patternRegExp = (pattern: string) => new RegExp(`^${pattern.replace(/[.]/g, '\\.').replace('{cycle}', '\\d+').replace(/\*/g, '[^/]*')}$`);

/**
 * The files that prove a Done-when file (relative to the docs folder, `*` and
 * `{cycle}` already filled) as its skill says: the file itself, its template
 * filled, and for a task index the task file beside it. Name the skill when
 * two declare the file (`02_document/architecture.md`: plan and document).
 * For a report with a Result (`hasResult`), run `autopilot exec` in the
 * same attempt, in a repository `testProject` gave its tests: the engine
 * holds it to that run.
 */
export function filledEvidence(file: string, skill?: string): Record<string, string> {
  const skills = [
    ...new Set(
      declaredTemplates()
        .filter((d) => patternRegExp(d.file).test(file) && (skill === undefined || d.skill === skill))
        .map((d) => d.skill),
    ),
  ];
  if (skills.length !== 1) throw new Error(skills.length === 0 ? `no skill declares ${file}` : `${skills.join(' and ')} declare ${file}: name the skill`);
  return evidenceFor(file, skills[0])!;
}

/** The filled templates of one file declared by several skills, as one text that satisfies each: every section, one Self-check with every item. */
function merged(texts: string[]): string {
  const [body, checks] = texts.reduce<[string[], string[]]>(
    ([bodies, items], text, i) => {
      const [main, check = ''] = text.split(/^## Self-check\s*$/m);
      return [
        [...bodies, i === 0 ? main!.trimEnd() : main!.replace(/^# .*$/m, '').trim()],
        [...items, ...check.trim().split('\n')],
      ];
    },
    [[], []],
  );
  return `${body.join('\n\n')}\n\n## Self-check\n\n${[...new Set(checks)].join('\n')}\n`;
}

function evidenceFor(file: string, skill?: string): Record<string, string> | undefined {
  const all = declaredTemplates().filter((d) => patternRegExp(d.file).test(file) && (skill === undefined || d.skill === skill));
  const found = all[0];
  if (!found) return undefined;
  const texts = [...new Map(all.map((d) => [d.skill, filledTemplate(d.skill, d.template, file)])).values()];
  const files: Record<string, string> = { [file]: texts.length === 1 ? texts[0]! : merged(texts) };
  if (file.endsWith('/_index.md')) files[file.replace(/_index\.md$/, '01_first_task.md')] = filledTemplate('decompose', 'templates/task.md');
  // Implement walks the task index batch by batch: the filled index has one batch (task 01, AC-01), whose report comes first.
  if (file.endsWith('implementation_report.md')) files[file.replace(/implementation_report\.md$/, 'batch_01.md')] = batchReport(1, ['01'], ['AC-01']);
  return files;
}

/** A batch's report as the implement skill's template asks: its tasks and the criteria they cover named, the Result of the run of the project's tests, its Self-check ticked. */
export function batchReport(batch: number, tasks: string[], criteria: string[]): string {
  const template = readFileSync(join(ROOT, 'skills', 'implement', 'templates', 'batch_report.md'), 'utf8');
  const checks = template.slice(template.search(/^## Self-check\s*$/m)).replace(/^(\s*[-*] )\[ \]/gm, '$1[x]');
  return [
    `# Batch ${String(batch).padStart(2, '0')} report`,
    '',
    '## Tasks',
    '',
    '| Task | Status | Files changed |',
    '|---|---|---|',
    ...tasks.map((t) => `| ${t} | done | src/task_${t}.js and its tests |`),
    '',
    '## Criteria',
    '',
    ...criteria.map((c) => `- ${c}: met by batch ${batch}, and its tests show it.`),
    '',
    '## Result',
    '',
    `Command: ${FILLED_COMMAND}`,
    'Exit code: 0',
    `Totals: ${FILLED_TOTALS.passed} passed, ${FILLED_TOTALS.failed} failed`,
    '',
    '## Deviations and open issues',
    '',
    `Batch ${batch} follows its task files; nothing is left open.`,
    '',
    checks,
  ].join('\n');
}

/**
 * The files an agent writes for a step whose Done-when list is `doneWhen`
 * (paths under the repository, the docs folder first: `_docs/00_problem/problem.md`),
 * each as its skill says, keyed by path under the repository. A file no skill
 * declares (a test's own flow) gets a line of text. The skill is the one that
 * declares every file of the list (plan, not document, for Plan's two files).
 */
export function stepEvidence(doneWhen: string[]): Record<string, string> {
  const paths = doneWhen.map((p) => p.replace(/\*/g, '01'));
  const split = (path: string) => {
    // A named run's docs folder (`_docs/_runs/NAME/`) is all that comes before the step's own folder.
    const run = /^(.*\/_runs\/[^/]+\/)(.*)$/.exec(path);
    if (run) return { docs: run[1]!, rel: run[2]! };
    const slash = path.indexOf('/');
    return slash < 0 ? { docs: '', rel: path } : { docs: path.slice(0, slash + 1), rel: path.slice(slash + 1) };
  };
  const all = declaredTemplates();
  const owners = [...new Set(all.map((d) => d.skill))].filter((skill) =>
    paths.every((path) => all.some((d) => d.skill === skill && patternRegExp(d.file).test(split(path).rel))),
  );
  const out: Record<string, string> = {};
  for (const path of paths) {
    const { docs, rel } = split(path);
    const files = evidenceFor(rel, owners.length === 1 ? owners[0] : undefined) ?? evidenceFor(rel);
    if (!files) out[path] = `written for ${path}\n`;
    else for (const [file, text] of Object.entries(files)) out[docs + file] = text;
  }
  return out;
}

/** Whether a text holds a `## Result` the engine holds to a run `autopilot exec` recorded. */
export const hasResult = (text: string): boolean => /^## Result\s*$/m.test(text);
