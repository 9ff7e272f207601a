import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isPerCycle, loopStart, type Flow, type Step } from '../../../../src/formats/flow/model.js';
import { parseFlow } from '../../../../src/formats/flow/parse-flow.js';
import { lineContaining } from './flow-fixtures.js';

const FLOWS = join(import.meta.dirname, '..', '..', '..', '..', 'flows');

function builtIn(id: 'greenfield' | 'existing-code'): { flow: Flow; text: string } {
  const text = readFileSync(join(FLOWS, `${id}.md`), 'utf8');
  const parsed = parseFlow(text, `flows/${id}.md`, id);
  expect(parsed.problems).toEqual([]);
  expect(parsed.flow).toBeDefined();
  return { flow: parsed.flow!, text };
}

const step = (flow: Flow, n: number): Step => {
  const found = flow.steps[n - 1];
  expect(found?.number).toBe(n);
  return found!;
};

describe('the built-in greenfield flow', () => {
  const { flow, text } = builtIn('greenfield');

  it('parses with no problems, with its id, title, scan order, file and content hash', () => {
    expect(flow.id).toBe('greenfield');
    expect(flow.title).toBe('Greenfield — from a problem statement to a deployed product');
    expect(flow.scanOrder).toBe(2);
    expect(flow.file).toBe('flows/greenfield.md');
    expect(flow.hash).toBe(createHash('sha1').update(text).digest('hex'));
  });

  it('has no detection rules (it is the flow of a folder no other flow claims)', () => {
    expect(flow.detect).toEqual({ any: [], none: [] });
  });

  it('takes a checkpoint before 1 step, Deploy (step 10), marked on its front matter line', () => {
    expect(flow.checkpointBefore).toEqual([{ step: 'Deploy', line: lineContaining(text, 'checkpoint_before:') }]);
  });

  it('has the ten steps, numbered and named in order', () => {
    expect(flow.steps.map((s) => [s.number, s.name])).toEqual(
      ['Problem', 'Research', 'Plan', 'UI Design', 'Decompose', 'Implement', 'Run Tests', 'Security Audit', 'Performance Test', 'Deploy'].map((name, i) => [
        i + 1,
        name,
      ]),
    );
  });

  it('records the file line of every step row', () => {
    for (const s of flow.steps) expect(s.line).toBe(lineContaining(text, `| ${s.number} | ${s.name} |`));
  });

  it('reads skills without backticks and sub-steps as plain text', () => {
    expect(flow.steps.map((s) => s.skill)).toEqual([
      'problem',
      'research',
      'plan',
      'ui-design',
      'decompose',
      'implement',
      'test-run',
      'security-audit',
      'performance-test',
      'deploy',
    ]);
    expect(step(flow, 1).subSteps).toBe('1 Interview · 2 Restrictions · 3 Acceptance criteria · 4 Interfaces');
  });

  it('reads the done-when patterns of each step, every one of a cell', () => {
    expect(step(flow, 1).doneWhen).toEqual(['00_problem/problem.md', '00_problem/acceptance_criteria.md']);
    expect(step(flow, 2).doneWhen).toEqual(['01_solution/solution_draft_*.md']);
    expect(step(flow, 10).doneWhen).toEqual(['04_deploy/deploy_report.md']);
  });

  it('runs step 4 only if `00_problem/ui.md` exists, makes 8 and 9 optional and runs the rest always', () => {
    expect(step(flow, 4).runs).toEqual({ kind: 'if', pattern: '00_problem/ui.md' });
    expect(step(flow, 8).runs).toEqual({ kind: 'optional' });
    expect(step(flow, 9).runs).toEqual({ kind: 'optional' });
    for (const n of [1, 2, 3, 5, 6, 7, 10]) expect(step(flow, n).runs).toEqual({ kind: 'always' });
  });

  it('asks the research-round decision after step 2, stops the session after 5 and ends at 10', () => {
    expect(flow.steps.map((s) => s.then)).toEqual([
      { kind: 'next' },
      { kind: 'decision', id: 'research-round' },
      { kind: 'next' },
      { kind: 'next' },
      { kind: 'boundary' },
      { kind: 'next' },
      { kind: 'next' },
      { kind: 'next' },
      { kind: 'next' },
      { kind: 'end' },
    ]);
  });

  it('declares the research-round decision: A repeats, B continues, B recommended', () => {
    expect(Object.keys(flow.decisions)).toEqual(['research-round']);
    const decision = flow.decisions['research-round']!;
    expect(decision.question).toBe('Research is done — another round, or on to Plan?');
    expect(decision.options).toEqual([
      { letter: 'A', choice: 'Another research round, aimed at the questions the drafts left open', then: 'repeat' },
      { letter: 'B', choice: 'Go on to Plan with the drafts as they are', then: 'continue' },
    ]);
    expect(decision.recommendation).toEqual({
      letter: 'B',
      reason: 'a second round pays only when a draft names an open question that would change the plan.',
    });
    expect(decision.line).toBe(lineContaining(text, '### `research-round`'));
  });

  it('does not loop', () => {
    expect(loopStart(flow)).toBeUndefined();
    expect(flow.steps.some(isPerCycle)).toBe(false);
  });
});

describe('the built-in existing-code flow', () => {
  const { flow, text } = builtIn('existing-code');

  it('parses with no problems, and is scanned before greenfield', () => {
    expect(flow.id).toBe('existing-code');
    expect(flow.title).toBe('Existing code — document, test, then change it one task at a time');
    expect(flow.scanOrder).toBe(1);
    expect(flow.scanOrder).toBeLessThan(builtIn('greenfield').flow.scanOrder);
    expect(flow.decisions).toEqual({});
  });

  it('takes a checkpoint before 1 step, Deploy (step 14), marked on its front matter line', () => {
    expect(flow.checkpointBefore).toEqual([{ step: 'Deploy', line: lineContaining(text, 'checkpoint_before:') }]);
  });

  it('has the fourteen steps, numbered and named in order', () => {
    expect(flow.steps.map((s) => [s.number, s.name])).toEqual(
      [
        'Document',
        'Test Spec',
        'Code Testability Revision',
        'Decompose Tests',
        'Implement Tests',
        'Run Tests',
        'Refactor',
        'New Task',
        'Implement',
        'Run Tests',
        'Update Docs',
        'Security Audit',
        'Performance Test',
        'Deploy',
      ].map((name, i) => [i + 1, name]),
    );
    for (const s of flow.steps) expect(s.line).toBe(lineContaining(text, `| ${s.number} | ${s.name} |`));
  });

  it('stops the session after steps 4 and 8 and loops from 14 back to 8', () => {
    const thens = flow.steps.map((s) => s.then);
    expect(thens[3]).toEqual({ kind: 'boundary' });
    expect(thens[7]).toEqual({ kind: 'boundary' });
    expect(thens[13]).toEqual({ kind: 'loop', to: 8 });
    expect(thens.filter((t, i) => ![3, 7, 13].includes(i))).toEqual(Array.from({ length: 11 }, () => ({ kind: 'next' })));
    expect(loopStart(flow)).toBe(8);
  });

  it('runs step 3 only if the testability issues exist, makes 7, 12 and 13 optional and runs the rest always', () => {
    expect(step(flow, 3).runs).toEqual({ kind: 'if', pattern: '02_document/tests/testability_issues.md' });
    for (const n of [7, 12, 13]) expect(step(flow, n).runs).toEqual({ kind: 'optional' });
    for (const n of [1, 2, 4, 5, 6, 8, 9, 10, 11, 14]) expect(step(flow, n).runs).toEqual({ kind: 'always' });
  });

  it('numbers the artifacts of steps 8 to 14 by cycle, and of steps 1 to 7 not', () => {
    for (const s of flow.steps) {
      const inLoop = s.number >= 8;
      expect(s.doneWhen.length).toBeGreaterThan(0);
      expect(
        s.doneWhen.every((p) => p.includes('{cycle}')),
        `step ${s.number}: ${s.doneWhen.join(', ')}`,
      ).toBe(inLoop);
      expect(isPerCycle(s)).toBe(inLoop);
    }
    expect(step(flow, 8).doneWhen).toEqual(['02_tasks/cycle-{cycle}/_index.md']);
    expect(step(flow, 14).doneWhen).toEqual(['04_deploy/cycle-{cycle}/deploy_report.md']);
  });

  it('runs the same skill `implement` at steps 5 and 9, with done-when patterns that tell them apart', () => {
    expect(step(flow, 5).skill).toBe('implement');
    expect(step(flow, 9).skill).toBe('implement');
    expect(step(flow, 5).doneWhen).toEqual(['03_implementation/tests/implementation_report.md']);
    expect(step(flow, 9).doneWhen).toEqual(['03_implementation/cycle-{cycle}/implementation_report.md']);
  });

  it('claims a folder with source files or documentation, unless it has a greenfield problem statement', () => {
    expect(flow.detect.none).toEqual(['{docs}/00_problem']);
    const [folders, atRoot, oneDown, documented, ...rest] = flow.detect.any;
    expect(rest).toEqual([]);
    expect(folders).toBe('{src,lib,app,cmd,pkg,internal}/*');
    expect(atRoot).toMatch(/^\*\.\{py,go,rs,java,.*,js,jsx,mjs,cjs,ts,tsx,.*\}$/);
    expect(oneDown).toBe(`*/${atRoot}`);
    expect(documented).toBe('{docs}/02_document');
    // A build manifest alone is not code: `npm install` writes package.json into an empty folder.
    expect(flow.detect.any.join(' ')).not.toMatch(/package\.json|go\.mod|Cargo\.toml/);
  });
});

describe('a minimal custom flow', () => {
  const text = `---
id: release-notes
title: Release notes
scan_order: 5
description: Drafts and publishes release notes.
detect:
  any: [CHANGELOG.md]
---

# Release notes

## Step Reference Table

| Step | Name | Runs | Skill | Sub-steps | Done when | Then |
|---|---|---|---|---|---|---|
| 1 | Collect | always | \`collect\` | 1 Commits · 2 Issues | \`notes/changes.md\` | next |
| 2 | Screenshots | if \`notes/ui_changes.md\` exists | \`screenshots\` | | \`notes/shots/*.png\`, \`notes/shots/index.md\` | session boundary |
| 3 | Publish | optional | publish | 1 Post | \`notes/published.md\` | end |
`;

  it('parses into exactly the expected flow', () => {
    const parsed = parseFlow(text, 'flows/release-notes.md', 'release-notes');
    expect(parsed.problems).toEqual([]);
    expect(parsed.flow).toEqual({
      id: 'release-notes',
      title: 'Release notes',
      scanOrder: 5,
      detect: { any: ['CHANGELOG.md'], none: [] },
      decisions: {},
      file: 'flows/release-notes.md',
      hash: createHash('sha1').update(text).digest('hex'),
      steps: [
        {
          number: 1,
          name: 'Collect',
          skill: 'collect',
          subSteps: '1 Commits · 2 Issues',
          doneWhen: ['notes/changes.md'],
          runs: { kind: 'always' },
          then: { kind: 'next' },
          line: 16,
        },
        {
          number: 2,
          name: 'Screenshots',
          skill: 'screenshots',
          subSteps: '',
          doneWhen: ['notes/shots/*.png', 'notes/shots/index.md'],
          runs: { kind: 'if', pattern: 'notes/ui_changes.md' },
          then: { kind: 'boundary' },
          line: 17,
        },
        {
          number: 3,
          name: 'Publish',
          skill: 'publish',
          subSteps: '1 Post',
          doneWhen: ['notes/published.md'],
          runs: { kind: 'optional' },
          then: { kind: 'end' },
          line: 18,
        },
      ],
    } satisfies Flow);
  });

  it('reads the header names in any case and spelling', () => {
    const shuffled = text.replace(
      '| Step | Name | Runs | Skill | Sub-steps | Done when | Then |',
      '| step | NAME | runs | skill | Substeps | Done-When | then |',
    );
    expect(parseFlow(shuffled, 'f.md', 'release-notes').problems).toEqual([]);
  });

  it('changes its hash when the text changes', () => {
    const a = parseFlow(text, 'f.md', 'release-notes').flow!;
    const b = parseFlow(text.replace('Drafts and publishes', 'Drafts, then publishes'), 'f.md', 'release-notes').flow!;
    expect(a.hash).not.toBe(b.hash);
  });
});
