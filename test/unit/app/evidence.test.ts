/**
 * `done` judges a step's declared outputs (issue 23), in process through the
 * registry, in real temporary repositories. The skills here are the
 * repository's own (`.autopilot/skills/<name>/SKILL.md`), with their own
 * declarations and templates, so the tests hold the engine, not the
 * built-in skills' wording. A refusal writes nothing: no journal line, no
 * pointer change, no lease.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Context } from '../../../src/app/transaction/context.js';
import { readArguments, type Answer } from '../../../src/commands/command.js';
import { COMMANDS, type AnyCommand } from '../../../src/commands/index.js';
import { errorJson, InputError } from '../../../src/errors.js';
import { ANSWERS, errorAnswer } from '../../../src/render/answers.js';
import { tempRepo } from '../../helpers/cli.js';
import { verifyLine } from '../../../src/formats/settings.js';

function write(dir: string, rel: string, text: string): void {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), text);
}
const read = (dir: string, rel: string) => (existsSync(join(dir, rel)) ? readFileSync(join(dir, rel), 'utf8') : undefined);

async function run(dir: string, name: string, raw: Record<string, unknown> = {}): Promise<Answer & { json: Record<string, unknown> }> {
  const command = COMMANDS.find((c) => c.name === name) as AnyCommand;
  const ctx: Context = { repo: { dir }, session: 'unit', now: () => new Date() };
  let answer: Answer;
  try {
    answer = command.view(await command.run(ctx, readArguments(command, raw)));
  } catch (error) {
    expect(() => errorAnswer.parse(errorJson(error))).not.toThrow();
    throw error;
  }
  const schema = 'tool' in command.mcp ? ANSWERS[command.mcp.answer] : name === 'exec' ? ANSWERS.exec : name === 'init' ? ANSWERS.init : undefined;
  if (schema) {
    const parsed = schema.safeParse(answer.json);
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  }
  return answer as Answer & { json: Record<string, unknown> };
}

/** A problem skill of the repository's own that declares no outputs: its step is proved by files alone, as before issue 23. */
const PLAIN_PROBLEM_SKILL = '---\nname: problem\ndescription: the problem, with no outputs declared\n---\n# Problem\n';

const PROBLEM_SKILL = `---
name: problem
description: what is wrong, for whom
outputs:
  - file: 00_problem/problem.md
    template: templates/problem.md
    sections: [Problem, Users]
    checks: [placeholders, self-check]
  - file: 00_problem/acceptance_criteria.md
    sections: [Acceptance criteria]
    checks: [placeholders, acceptance-ids]
---
# Problem
`;
const PROBLEM_TEMPLATE = `# Problem

## Problem

{{ what is wrong, in two sentences }}

## Users

{{ who has the problem }}

## Self-check

- [ ] Every section holds this project's own words.
`;
const PROBLEM = `# Problem

## Problem

People lose their place in long agent sessions.

## Users

Developers who run coding agents on large repositories.

## Self-check

- [x] Every section holds this project's own words.
`;
const CRITERIA = '# Acceptance criteria\n\n## Acceptance criteria\n\n- AC-01: the place is kept across sessions\n- AC-02: a refusal names the file\n';

/** A greenfield run at step 1, whose problem skill is the repository's own, declaring its outputs. */
async function problemRepo(skill = PROBLEM_SKILL): Promise<string> {
  const dir = tempRepo();
  // The repository's own skill is there as the run starts: the run pins it (one written later is held until a person repins).
  write(dir, '.autopilot/skills/problem/SKILL.md', skill);
  write(dir, '.autopilot/skills/problem/templates/problem.md', PROBLEM_TEMPLATE);
  await run(dir, 'init', { flow: 'greenfield' });
  return dir;
}

const STATE = ['_docs/_autopilot/journal.jsonl', '_docs/_autopilot_state.md', '_docs/_autopilot/lease.json'];
const snapshot = (dir: string) => STATE.map((f) => read(dir, f));

describe('done judges the outputs a skill declares', () => {
  it('next names each template; done refuses a placeholder file at each line, writing nothing; the files as the skill says pass', async () => {
    const dir = await problemRepo();
    const next = await run(dir, 'next');
    expect(next.json.templates).toEqual([{ file: '_docs/00_problem/problem.md', template: '.autopilot/skills/problem/templates/problem.md' }]);
    expect(next.text).toMatch(/Template: {2}_docs\/00_problem\/problem\.md from \.autopilot\/skills\/problem\/templates\/problem\.md/);

    write(dir, '_docs/00_problem/problem.md', PROBLEM_TEMPLATE);
    write(dir, '_docs/00_problem/acceptance_criteria.md', '# Acceptance criteria\n\n## Acceptance criteria\n\nTODO\n');
    const before = snapshot(dir);
    const refused = await run(dir, 'done');
    expect(refused.exit).toBe(2);
    expect(snapshot(dir)).toEqual(before);
    const findings = refused.json.findings as { check: string; file: string; line?: number; heading?: string }[];
    expect(findings.map((f) => [f.check, f.file, f.line, f.heading])).toEqual([
      ['placeholders', '_docs/00_problem/problem.md', 5, 'Problem'],
      ['placeholders', '_docs/00_problem/problem.md', 9, 'Users'],
      ['self-check', '_docs/00_problem/problem.md', 13, 'Self-check'],
      ['sections', '_docs/00_problem/acceptance_criteria.md', 3, 'Acceptance criteria'],
      ['placeholders', '_docs/00_problem/acceptance_criteria.md', 5, 'Acceptance criteria'],
      ['acceptance-ids', '_docs/00_problem/acceptance_criteria.md', undefined, undefined],
    ]);
    expect(refused.json.error).toMatchObject({ code: 'refused', message: 'step 1 (Problem) is not done: 6 problems in 2 files' });
    expect(refused.text).toMatch(
      /✗ _docs\/00_problem\/problem\.md:5 \(## Problem\): the template's placeholder `\{\{ what is wrong, in two sentences \}\}` is left in\n {6}write: /,
    );

    write(dir, '_docs/00_problem/problem.md', PROBLEM);
    write(dir, '_docs/00_problem/acceptance_criteria.md', CRITERIA);
    expect((await run(dir, 'done')).json).toMatchObject({ outcome: 'advanced', step: 2 });
  });

  it('a person forces past the checks, journaled as forced', async () => {
    const dir = await problemRepo();
    await run(dir, 'next');
    write(dir, '_docs/00_problem/problem.md', '# x\n');
    write(dir, '_docs/00_problem/acceptance_criteria.md', '# x\n');
    expect((await run(dir, 'done', { force: true, reason: 'reviewed on paper' })).json).toMatchObject({ outcome: 'advanced', step: 2 });
    expect(read(dir, '_docs/_autopilot/journal.jsonl')).toMatch(/"event":"step_completed"[^\n]*"forced":true,"reason":"reviewed on paper"/);
  });

  it('a retry must change a file: after `fail`, `done` on the same files is refused, an edit passes', async () => {
    const dir = await problemRepo();
    await run(dir, 'next');
    write(dir, '_docs/00_problem/problem.md', PROBLEM);
    write(dir, '_docs/00_problem/acceptance_criteria.md', CRITERIA);
    await run(dir, 'fail', { reason: 'the person wants other users' });
    const retry = await run(dir, 'next');
    expect(retry.json).toMatchObject({ action: 'retry' });
    expect(read(dir, '_docs/_autopilot/journal.jsonl')).toMatch(
      /"event":"step_started"[^\n]*"attempt":2,"hashes":\{"00_problem\/problem\.md":"[0-9a-f]{16}","00_problem\/acceptance_criteria\.md":"[0-9a-f]{16}"\}/,
    );
    const refused = await run(dir, 'done');
    expect(refused.exit).toBe(2);
    expect((refused.json.findings as { check: string; message: string }[])[0]).toMatchObject({
      check: 'fresh',
      message: expect.stringMatching(/none of the files of step 1 \(Problem\) is new or changed in this attempt \(attempt 2, after a failed one\)/),
    });
    write(dir, '_docs/00_problem/problem.md', PROBLEM.replace('Developers', 'Teams and developers'));
    expect((await run(dir, 'done')).json).toMatchObject({ outcome: 'advanced', step: 2 });
  });

  it('a skill that declares no outputs changes nothing: no hashes journaled, a one-line file still passes', async () => {
    const dir = tempRepo();
    // The repository's own problem skill, without the built-in one's declaration.
    write(dir, '.autopilot/skills/problem/SKILL.md', PLAIN_PROBLEM_SKILL);
    await run(dir, 'init', { flow: 'greenfield' });
    await run(dir, 'next');
    expect(read(dir, '_docs/_autopilot/journal.jsonl')).not.toMatch(/"hashes"/);
    write(dir, '_docs/00_problem/problem.md', '# x\n');
    write(dir, '_docs/00_problem/acceptance_criteria.md', '# x\n');
    expect((await run(dir, 'done')).json).toMatchObject({ outcome: 'advanced', step: 2 });
  });

  it('a malformed declaration is exit 2 naming the SKILL.md and its line, at next and done, and check reports it', async () => {
    const dir = await problemRepo(PROBLEM_SKILL.replace('checks: [placeholders, self-check]', 'checks: [placeholder]'));
    for (const name of ['next', 'done']) {
      const error = await run(dir, name).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InputError);
      expect((error as InputError).problems[0]).toMatchObject({
        file: '.autopilot/skills/problem/SKILL.md',
        line: 8,
        message: "the output's check `placeholder` is not one autopilot knows",
      });
    }
    const check = await run(dir, 'check');
    expect(check.json.ok).toBe(false);
    expect(check.json.problems).toContainEqual(expect.objectContaining({ file: '.autopilot/skills/problem/SKILL.md', line: 8 }));
    write(dir, '.autopilot/skills/problem/SKILL.md', PROBLEM_SKILL.replace('templates/problem.md', 'templates/gone.md'));
    expect((await run(dir, 'check')).json.problems).toContainEqual(
      expect.objectContaining({ message: expect.stringMatching(/names the template templates\/gone\.md/) }),
    );
  });
});

describe('a research round that repeats', () => {
  const SKILL = `---
name: research
description: drafts
outputs:
  - file: 01_solution/solution_draft_*.md
    sections: [Options compared]
    checks: [placeholders]
---
# Research
`;
  const draft = (n: number, words: string) => `# Draft ${n}\n\n## Options compared\n\n${words}\n`;

  it("refuses a copy of the last round's draft and an edit of it; a new draft of its own passes", async () => {
    const dir = tempRepo();
    write(dir, '.autopilot/skills/research/SKILL.md', SKILL);
    write(dir, '.autopilot/skills/problem/SKILL.md', PLAIN_PROBLEM_SKILL);
    await run(dir, 'init', { flow: 'greenfield' });
    await run(dir, 'next');
    write(dir, '_docs/00_problem/problem.md', '# x\n');
    write(dir, '_docs/00_problem/acceptance_criteria.md', '# x\n');
    await run(dir, 'done');
    await run(dir, 'next');
    write(dir, '_docs/01_solution/solution_draft_01.md', draft(1, 'SQLite against Postgres, for one machine.'));
    expect((await run(dir, 'done')).exit).toBe(3);
    expect((await run(dir, 'decide', { option: 'A' })).json).toMatchObject({ step: 2 });
    expect(read(dir, '_docs/_autopilot/journal.jsonl')).toMatch(
      /"event":"decision_answered"[^\n]*"round_hashes":\{"01_solution\/solution_draft_01\.md":"[0-9a-f]{16}"\}/,
    );
    await run(dir, 'next');

    copyFileSync(join(dir, '_docs/01_solution/solution_draft_01.md'), join(dir, '_docs/01_solution/solution_draft_02.md'));
    const copied = await run(dir, 'done');
    expect(copied.exit).toBe(2);
    expect(copied.json.findings).toEqual([
      expect.objectContaining({
        check: 'fresh',
        file: '_docs/01_solution/solution_draft_02.md',
        message: expect.stringMatching(/is a copy of the earlier round's 01_solution\/solution_draft_01\.md/),
      }),
    ]);

    write(dir, '_docs/01_solution/solution_draft_02.md', draft(2, 'Postgres after all: the team runs it already.'));
    write(dir, '_docs/01_solution/solution_draft_01.md', draft(1, 'rewritten wholesale, as if it were new.'));
    const edited = await run(dir, 'done');
    expect(edited.json.findings).toEqual([
      expect.objectContaining({ check: 'fresh', file: '_docs/01_solution/solution_draft_01.md', message: expect.stringMatching(/edited in this round/) }),
    ]);

    write(dir, '_docs/01_solution/solution_draft_01.md', draft(1, 'SQLite against Postgres, for one machine.'));
    expect((await run(dir, 'done')).exit).toBe(3);
  });
});

describe('a report is held to the run autopilot recorded (autopilot exec)', () => {
  const SKILL = `---
name: problem
description: a step whose report carries a test run, for this test
outputs:
  - file: 00_problem/problem.md
    sections: [Result]
    checks: [exit-code]
---
# Problem
`;
  /** The project's tests, as the settings name them: a run that prints vitest's summary of 2 passed, 1 failed, and fails. */
  const FAILING = `node -e "console.log('Tests  2 passed | 1 failed (3)'); process.exit(1)"`;
  const GREEN = `node -e "console.log('Tests  5 passed (5)')"`;
  const report = (exit: number, totals: string) => `# Report\n\n## Result\n\nCommand: ${FAILING}\nExit code: ${exit}\nTotals: ${totals}\n`;
  const tests = (dir: string, command: string) => write(dir, '.autopilot/config.yml', `${verifyLine(command)}\n`);

  it('journals the run; refuses a typed zero, then the failed run; a person accepts it, journaled', async () => {
    const dir = tempRepo();
    write(dir, '.autopilot/skills/problem/SKILL.md', SKILL);
    tests(dir, FAILING);
    await run(dir, 'init', { flow: 'greenfield' });
    await run(dir, 'next');
    write(dir, '_docs/00_problem/acceptance_criteria.md', CRITERIA);
    write(dir, '_docs/00_problem/problem.md', report(0, '2 passed, 0 failed'));
    expect((await run(dir, 'done')).json.findings).toEqual([
      expect.objectContaining({ check: 'exit-code', message: expect.stringMatching(/autopilot saw no run of the project's tests/) }),
    ]);

    const ran = await run(dir, 'exec', { command: [] });
    expect(ran.exit).toBe(1);
    expect(ran.json).toMatchObject({ exit_code: 1, totals: { passed: 2, failed: 1 }, runner: 'vitest', verify: true, step: 1 });
    expect(ran.json.result).toMatch(/^## Result\n\nCommand: node -e "console\.log/);
    expect(read(dir, '_docs/_autopilot/journal.jsonl')).toMatch(/"event":"command_run"[^\n]*"exit_code":1,"totals":\{"passed":2,"failed":1\}/);

    const typed = await run(dir, 'done');
    expect((typed.json.findings as { message: string }[]).map((f) => f.message)).toEqual([
      expect.stringMatching(/the report says exit code 0; the run autopilot saw \(journal event \d+\) exited 1/),
      expect.stringMatching(/the report says 2 passed, 0 failed; the run autopilot saw \(journal event \d+\) says 2 passed, 1 failed/),
      expect.stringMatching(/the tests did not pass/),
    ]);

    write(dir, '_docs/00_problem/problem.md', report(1, '2 passed, 1 failed'));
    const honest = await run(dir, 'done');
    expect(honest.json.findings).toEqual([expect.objectContaining({ acceptable: true })]);
    expect(honest.json.error).toMatchObject({ expected: expect.stringMatching(/done --accept-failures --reason/) });
    await expect(run(dir, 'done', { acceptFailures: true })).rejects.toThrow(/--accept-failures needs a reason/);
    expect((await run(dir, 'done', { acceptFailures: true, reason: 'the flaky test is #42' })).json).toMatchObject({ outcome: 'advanced', step: 2 });
    expect(read(dir, '_docs/_autopilot/journal.jsonl')).toMatch(/"event":"step_completed"[^\n]*"accepted_failures":true,"reason":"the flaky test is #42"/);
  });

  it('passes a report that copies a green run of the project’s tests', async () => {
    const dir = tempRepo();
    write(dir, '.autopilot/skills/problem/SKILL.md', SKILL);
    tests(dir, GREEN);
    await run(dir, 'init', { flow: 'greenfield' });
    await run(dir, 'next');
    const green = await run(dir, 'exec', { command: [] });
    expect(green.json).toMatchObject({ exit_code: 0, totals: { passed: 5, failed: 0 }, verify: true });
    write(dir, '_docs/00_problem/acceptance_criteria.md', CRITERIA);
    write(dir, '_docs/00_problem/problem.md', `# Report\n\n${green.json.result as string}\n`);
    expect((await run(dir, 'done')).json).toMatchObject({ outcome: 'advanced', step: 2 });
  });

  it('refuses before it runs anything: no test command known, or a repository whose record it could not write', async () => {
    const dir = tempRepo();
    await run(dir, 'init', { flow: 'greenfield' });
    await expect(run(dir, 'exec', { command: [] })).rejects.toThrow(/this project has no test command autopilot knows/);
    write(dir, '.autopilot/config.yml', 'lease:\n  stale_after_minutes: soon\n');
    const marker = join(dir, 'ran.txt');
    await expect(run(dir, 'exec', { command: ['node', '-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`] })).rejects.toThrow(
      /not a number of minutes/,
    );
    expect(existsSync(marker)).toBe(false);
  });
});
