/**
 * The question waits where a person looks (issue 22): while a decision, a
 * session boundary or a step failed three times waits, `status` (text and
 * JSON), the SessionStart context and `report` show the question, each
 * option, the recommendation with its reason and the exact command that
 * answers it, and `status` writes nothing. And a `done` repeated while the
 * question waits says so, instead of "✓ Completed" again. The built CLI in
 * real folders.
 */
import { describe, expect, it } from 'vitest';
import { autopilot, journal, type NextJson, read, sessionStart, snapshot, tempRepo, write } from '../helpers/cli.js';

interface Pending {
  kind: string;
  step: number;
  name: string;
  question: string;
  options: { option: string; choice: string; command: string }[];
  recommendation?: { option: string; reason: string };
  reason?: string;
  command: string;
}

/** A greenfield run at step 2's decision (research-round), reached by `done`. */
function atResearchDecision(): string {
  const dir = tempRepo();
  autopilot(dir, 'init', '--flow', 'greenfield');
  autopilot(dir, 'next');
  write(dir, '_docs/00_problem/problem.md');
  write(dir, '_docs/00_problem/acceptance_criteria.md');
  expect(autopilot(dir, 'done').code).toBe(0);
  autopilot(dir, 'next');
  write(dir, '_docs/01_solution/solution_draft_01.md');
  expect(autopilot(dir, 'done').code).toBe(3);
  return dir;
}

const longest = (text: string) => Math.max(...text.split('\n').map((l) => [...l].length));

describe('a decision waits: status, SessionStart and report show it', () => {
  it('status --json: the question, 2 options each with its command, the recommendation with its reason, `autopilot decide B`; status wrote nothing', () => {
    const dir = atResearchDecision();
    const before = snapshot(dir);
    const status = autopilot(dir, 'status', '--json');
    expect(status.code).toBe(0);
    const json = status.json<{ status: string; pending: Pending }>();
    expect(json.status).toBe('completed');
    expect(json.pending).toEqual({
      kind: 'decision',
      step: 2,
      name: 'Research',
      question: 'Research is done — another round, or on to Plan?',
      options: [
        { option: 'A', choice: 'Another research round, aimed at the questions the drafts left open', command: 'autopilot decide A' },
        { option: 'B', choice: 'Go on to Plan with the drafts as they are', command: 'autopilot decide B' },
      ],
      recommendation: { option: 'B', reason: expect.stringContaining('a second round pays only when') },
      command: 'autopilot decide B',
    });
    expect(snapshot(dir), 'status never writes').toEqual(before);
  });

  it('status text: the question, A and B, the recommendation and the answering command, every line within 80 columns', () => {
    const dir = atResearchDecision();
    const text = autopilot(dir, 'status').stdout;
    expect(text).toContain('Question  Research is done — another round, or on to Plan?');
    expect(text).toContain('          A) Another research round');
    expect(text).toContain('          B) Go on to Plan with the drafts as they are');
    expect(text).toMatch(/ {10}Recommended: B — a second round pays only when/);
    expect(text).toContain('Answer    autopilot decide B (or autopilot decide A)');
    expect(text).not.toContain('`autopilot next` shows it');
    expect(longest(text.split('Problems')[0]!)).toBeLessThanOrEqual(80);
  });

  it('the SessionStart context and the report carry the same question and command', () => {
    const dir = atResearchDecision();
    const context = sessionStart(dir);
    expect(context).toContain('Question  Research is done — another round, or on to Plan?');
    expect(context).toContain('B) Go on to Plan with the drafts as they are');
    expect(context).toContain('Answer    autopilot decide B');
    expect(context).toContain('Only the person answers this');
    expect(autopilot(dir, 'report').code).toBe(0);
    const md = read(dir, '_docs/_autopilot_report.md');
    expect(md).toContain('**Research is done — another round, or on to Plan?**');
    expect(md).toContain('- B) Go on to Plan with the drafts as they are — `autopilot decide B`');
    expect(md).toContain('A person answers: `autopilot decide B`.');
  });

  it('done repeated while the decision waits: exit 3, the decision again, "already recorded", never "✓ Completed"; 0 events written, text and JSON', () => {
    const dir = atResearchDecision();
    const events = journal(dir).length;
    const again = autopilot(dir, 'done');
    expect(again.code).toBe(3);
    expect(again.stdout).toContain(
      '= Already recorded: step 2 Research was completed before; nothing was written again, and the decision below still waits for a person.',
    );
    expect(again.stdout).toContain('DECISION REQUIRED: Research is done');
    expect(again.stdout).not.toContain('✓ Completed');
    const json = autopilot(dir, 'done', '--json');
    expect(json.code).toBe(3);
    expect(json.json<NextJson & { message: string }>()).toMatchObject({
      outcome: 'decision',
      message: expect.stringMatching(/^Already recorded: step 2 Research/),
    });
    expect(journal(dir)).toHaveLength(events);
  });
});

describe('a session boundary and a failure wait the same way', () => {
  it('at the Decompose boundary: pending kind boundary, A recommended, `autopilot decide A`', () => {
    const dir = atResearchDecision();
    autopilot(dir, 'decide', 'B');
    for (const files of [['01_solution/solution.md', '02_document/architecture.md'], ['02_tasks/_index.md']]) {
      autopilot(dir, 'next');
      for (const f of files) write(dir, `_docs/${f}`);
      autopilot(dir, 'done');
    }
    const pending = autopilot(dir, 'status', '--json').json<{ step: number; pending: Pending }>();
    expect(pending).toMatchObject({
      step: 6,
      pending: { kind: 'boundary', step: 6, name: 'Implement', question: 'Decompose complete — start Implement?', command: 'autopilot decide A' },
    });
    expect(pending.pending.options.map((o) => o.command)).toEqual(['autopilot decide A', 'autopilot decide B']);
    const text = autopilot(dir, 'status').stdout;
    expect(text).toContain('Answer    autopilot decide A (or autopilot decide B)');
    expect(longest(text.split('Problems')[0]!)).toBeLessThanOrEqual(80);
  });

  it('a step failed 3 times: pending kind failed with the last reason and `autopilot ack`, in status, SessionStart and report', () => {
    const dir = tempRepo();
    autopilot(dir, 'init', '--flow', 'greenfield');
    for (let i = 1; i <= 3; i++) {
      autopilot(dir, 'next');
      autopilot(dir, 'fail', '--reason', `the interview found no user ${i}`);
    }
    const json = autopilot(dir, 'status', '--json').json<{ pending: Pending }>();
    expect(json.pending).toEqual({
      kind: 'failed',
      step: 1,
      name: 'Problem',
      question: 'Step 1 (Problem) failed 3 times: look at why, then allow another 3 attempts?',
      options: [],
      reason: 'the interview found no user 3',
      command: 'autopilot ack',
    });
    const text = autopilot(dir, 'status').stdout;
    expect(text).toContain('Last reason: the interview found no user 3');
    expect(text).toContain('Answer    autopilot ack (then `autopilot next` tries again)');
    expect(sessionStart(dir)).toContain('Answer    autopilot ack');
    autopilot(dir, 'report');
    expect(read(dir, '_docs/_autopilot_report.md')).toContain('A person answers: `autopilot ack` (then `autopilot next` tries again).');
    // The person's answer is theirs in the report, beside the session it ran as.
    expect(autopilot(dir, 'ack').code).toBe(0);
    autopilot(dir, 'report');
    const md = read(dir, '_docs/_autopilot_report.md');
    expect(md).toContain('**failure\\_acknowledged** · step 1 Problem · local (person)');
    expect(md).toContain('## Open decisions\n\nNone.');
  });

  it('nothing waits: no `pending` key, no Question line', () => {
    const dir = tempRepo();
    autopilot(dir, 'init', '--flow', 'greenfield');
    autopilot(dir, 'next');
    expect(autopilot(dir, 'status', '--json').json()).not.toHaveProperty('pending');
    expect(autopilot(dir, 'status').stdout).not.toContain('Question');
  });
});
