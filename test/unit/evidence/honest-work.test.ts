/**
 * Stricter judges refuse no honest work (issue 29, point 10). Every file the
 * whole run's scripted agent writes (test/agents/whole-run.test.ts: each
 * declared output from its template filled, the criteria it does not name
 * added, the task file beside an index, the batch report) passes every judge
 * its skill names, against the bundled example's 7 criteria; and so do
 * reports written as a person would, terse ones included.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { judgeFile, type CommandRun, type JudgeInput, type OutputDeclaration } from '../../../src/evidence/index.js';
import { parseOutputsDeclaration } from '../../../src/formats/skill-outputs.js';
import { namingCriteria } from '../../helpers/cli.js';
import { ROOT } from '../../helpers/engine.js';
import { batchReport, FILLED_COMMAND, FILLED_TOTALS, fillTemplate } from '../../helpers/templates.js';

const EXAMPLE = join(ROOT, '_docs-example');
const CRITERIA = readFileSync(join(EXAMPLE, '_docs', '00_problem', 'acceptance_criteria.md'), 'utf8');
const RUNS: CommandRun[] = [{ command: FILLED_COMMAND, exitCode: 0, totals: FILLED_TOTALS, seq: 1 }];
const TASK_TEMPLATE = readFileSync(join(ROOT, 'skills', 'decompose', 'templates', 'task.md'), 'utf8');

const declared = readdirSync(join(ROOT, 'skills')).flatMap((skill) => {
  const parsed = parseOutputsDeclaration(readFileSync(join(ROOT, 'skills', skill, 'SKILL.md'), 'utf8'), `skills/${skill}/SKILL.md`);
  if (!parsed || 'problem' in parsed) throw new Error(skill);
  return parsed.outputs.map((output) => ({ skill, output }));
});

function judge(skill: string, output: OutputDeclaration, file: string, text: string, task?: string) {
  const template = output.template ? readFileSync(join(ROOT, 'skills', skill, output.template), 'utf8') : undefined;
  const input: JudgeInput = {
    output,
    file,
    text,
    skill,
    template,
    acceptance: CRITERIA,
    siblings: task ? ['01_first_task.md'] : [],
    taskFiles: task ? { '01_first_task.md': { kind: 'file', text: task } } : {},
    taskTemplate: TASK_TEMPLATE,
    runs: RUNS,
    // The project's tests, as the whole run pins them: the run above is theirs.
    verify: { command: FILLED_COMMAND, changed: [] },
  };
  return judgeFile(input);
}

describe('the whole run’s scripted agent', () => {
  it(`writes each of the ${declared.length} declared outputs so that every judge its skill names passes`, () => {
    const refused = declared.flatMap(({ skill, output }) => {
      const file = output.file.replace('{cycle}', '1').replace('*', '01').replace('{batch}', '01');
      const path = `_docs/${file}`;
      const template = readFileSync(join(ROOT, 'skills', skill, output.template!), 'utf8');
      const text = file.includes('batch_') ? batchReport(1, ['01'], ['AC-01']) : namingCriteria(EXAMPLE, path, fillTemplate(template, path));
      const task = file.endsWith('_index.md') ? fillTemplate(TASK_TEMPLATE, 'task') : undefined;
      return judge(skill, output, file, text, task).map((f) => `${skill} ${file}:${f.line} ${f.message}`);
    });
    expect(refused).toEqual([]);
  });
});

const output = (skill: string, file: string) => declared.find((d) => d.skill === skill && d.output.file === file)!.output;

const TEST_REPORT = `# Test report

## Environment

Run on 2026-11-24 on a 2023 laptop (Linux 6.8), Node.js 20.17 and vitest 4.1.

## First run

\`npm test\` ran 214 tests: 211 passed, 3 failed, in 9.4 s.

## Failures

- \`slugs > accented headings\`: code, the slugger dropped combining marks; fixed in \`src/slug.ts\`.
- \`external > stalls\`: test, the timeout was shorter than the server's stall; the test now waits 6 s.
- \`perf > 5,000 files\`: environment, the laptop was on battery; passes on mains power and in CI.

## Coverage

| Criterion | Tests |
|---|---|
| AC-01 | \`links > missing file\`, \`links > renamed file\` |
| AC-02 | \`slugs > *\` (14 cases) |
| AC-03 | \`code > fenced\`, \`code > inline\` |
| AC-04 | \`cli > exit codes\` |
| AC-05 | \`external > concurrency\`, \`external > stalls\` |
| AC-06 | \`perf > 5,000 files\` |
| AC-07 | \`output > stable order\` |

## Result

Command: ${FILLED_COMMAND}
Exit code: 0
Totals: ${FILLED_TOTALS.passed} passed, ${FILLED_TOTALS.failed} failed

## Self-check

- [x] The result is the last full run, recorded by \`autopilot exec\`.
- [x] Every failure has a cause, and a fix or the person's agreement.
- [x] Every acceptance criterion or test case id names the tests that check it.
- [x] No test was deleted, skipped or loosened to make the run pass.
`;

const CHANGES = `# Changes in cycle 2

## Task

Report a link to a heading that moved to another file with the file it moved to.

## Behaviour changed

None for users who fixed their links; a broken heading link now names the file that holds the heading.

## Files changed

- \`src/resolve.ts\`: looks the slug up in every file's index.

## Documents updated

None in this cycle.

## Tests added

- \`resolve > moved heading\`: names the file that holds it.

## Follow-ups

None known today.

## Self-check

- [x] Every module the cycle touched has its section in \`components.md\` updated.
- [x] Every change described was made, as the code shows.
- [x] No earlier cycle's change log was edited.
`;

const DEPLOY = `# Deploy report

## Release

Version 1.2.0, commit 4f2a9c1, published with \`npm publish\` from CI.

## Target

The npm registry, public; the person said go on 2026-11-25.

## Smoke test

\`npx linkcheck@1.2.0 docs/\` on this repository: exit 0, no broken links.

## Rollback

1. \`npm deprecate linkcheck@1.2.0\` with the reason.
2. Publish 1.2.1 from the 1.1.4 tag.

## For the person

Nothing left to do.

## Self-check

- [x] The test report was green, or its failures accepted, before the release.
- [x] The person gave the go-ahead for anything that reaches production.
- [x] The smoke test ran on the deployed result, and passed.
- [x] The rollback steps were written before they might be needed.
`;

describe('reports a person would write', () => {
  it.each([
    ['test-run', '03_implementation/test_report.md', TEST_REPORT],
    ['update-docs', '02_document/changes/cycle-{cycle}.md', CHANGES],
    ['deploy', '04_deploy/deploy_report.md', DEPLOY],
  ])('%s: %s passes every judge', (skill, file, text) => {
    expect(judge(skill, output(skill, file), file.replace('{cycle}', '2'), text)).toEqual([]);
  });
});
