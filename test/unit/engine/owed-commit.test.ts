/**
 * A commit git could not take is carried on by every later command that
 * writes (engine/owed-commit.ts): the journal still ends with it, and the
 * commit that is finally made holds every step's files.
 */
import { describe, expect, it } from 'vitest';
import { carryOwed, describeOwed, type OwedCommit } from '../../../src/engine/owed-commit.js';
import { entry, type JournalEntry } from '../../../src/formats/journal-line.js';
import type { Position } from '../../../src/formats/pointer/position.js';

const at = (step: number, name: string, status: Position['status']): Position => ({
  flow: 'greenfield',
  step,
  name,
  status,
  subStep: '0',
  retryCount: 0,
  cycle: 1,
});

/** Step 1's commit, owed and read back from the journal (event 6). */
const step1: OwedCommit = {
  ...entry('progress_commit_owed', at(1, 'Problem', 'completed'), {
    files: ['_docs/_autopilot_state.md', '_docs/_autopilot/journal.jsonl', '_docs/00_problem/problem.md'],
    steps: 10,
    tree: 'a'.repeat(40),
    judged: { '_docs/00_problem/problem.md': 'b'.repeat(40) },
  }),
  seq: 6,
  at: '2026-01-01T00:00:00.000Z',
  session: 's',
  key: 'done:greenfield/1/1:a1:x',
} as OwedCommit;

describe('carryOwed', () => {
  it('a command that owes no commit of its own owes the earlier one again, last in its batch, the same step, files, work and judged files', () => {
    const started = entry('step_started', at(2, 'Research', 'in_progress'), { attempt: 1 });
    const out = carryOwed([started], step1);
    expect(out).toHaveLength(2);
    expect(out[0]).toBe(started);
    expect(out[1]).toMatchObject({
      event: 'progress_commit_owed',
      step: 1,
      name: 'Problem',
      status: 'completed',
      files: step1.files,
      tree: step1.tree,
      judged: step1.judged,
    });
    // Stamped anew with the batch it ends: none of the earlier line's stamp.
    expect(out[1]).not.toHaveProperty('seq', 6);
    expect(out[1]).not.toHaveProperty('key');
  });

  it("a command that owes its own holds the earlier one's files, judged files and work (its step's start), and says which commit it carries", () => {
    const own = entry('progress_commit_owed', at(2, 'Research', 'completed'), {
      files: ['_docs/_autopilot_state.md', '_docs/_autopilot/journal.jsonl', '_docs/01_solution/solution_draft_01.md'],
      steps: 10,
      tree: 'c'.repeat(40),
      judged: { '_docs/01_solution/solution_draft_01.md': 'd'.repeat(40) },
    });
    const completed = entry('step_completed', at(2, 'Research', 'completed'));
    const out = carryOwed([completed, own], step1) as JournalEntry<'progress_commit_owed'>[];
    expect(out).toHaveLength(2);
    expect(out[1]).toMatchObject({
      step: 2,
      files: ['_docs/_autopilot_state.md', '_docs/_autopilot/journal.jsonl', '_docs/00_problem/problem.md', '_docs/01_solution/solution_draft_01.md'],
      tree: 'a'.repeat(40),
      judged: { '_docs/00_problem/problem.md': 'b'.repeat(40), '_docs/01_solution/solution_draft_01.md': 'd'.repeat(40) },
      carries: ['step 1 Problem completed (event 6)'],
    });
  });

  it('3 commits owed in a row: the last carries the 2 before it, oldest first', () => {
    const second = {
      ...(carryOwed([entry('progress_commit_owed', at(2, 'Research', 'completed'), { files: [], steps: 10 })], step1)[0] as object),
      seq: 9,
    } as OwedCommit;
    const third = carryOwed(
      [entry('progress_commit_owed', at(3, 'Plan', 'completed'), { files: [], steps: 10 })],
      second,
    )[0] as JournalEntry<'progress_commit_owed'>;
    expect(third.carries).toEqual(['step 1 Problem completed (event 6)', 'step 2 Research completed (event 9)']);
    expect(third.tree).toBe('a'.repeat(40));
  });

  it('describes a batch by its words', () => {
    expect(describeOwed({ step: 6, name: 'Implement', status: 'in_progress', seq: 12, batch_text: 'batch 2 of 3 done (tasks 03)' })).toBe(
      'step 6 Implement batch 2 of 3 done (tasks 03) (event 12)',
    );
  });
});
