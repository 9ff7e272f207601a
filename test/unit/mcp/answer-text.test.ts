/** The text a tool's answer carries for clients that show only text: a few lines read from the answer's JSON. */
import { describe, expect, it } from 'vitest';
import { answerText } from '../../../src/mcp/answer-text.js';

const at = { flow: 'greenfield', steps: 10, sub_step: '0', retry_count: 0, cycle: 1, source: 'state', drift: [] };
const box = '══════\n DECISION REQUIRED: …\n══════';

describe('answerText', () => {
  it('a boundary: where the work stands, what the step wrote, the question, both options, the recommendation, who answers', () => {
    const json = {
      ...at,
      step: 6,
      name: 'Implement',
      status: 'not_started',
      outcome: 'boundary',
      boundary: {
        after: { step: 5, name: 'Decompose' },
        next: { step: 6, name: 'Implement' },
        decision: {
          question: 'Decompose complete — start Implement?',
          options: [
            { option: 'A', choice: 'Start a new conversation for Implement (recommended)' },
            { option: 'B', choice: 'Continue in this conversation' },
          ],
          recommendation: { option: 'A', reason: 'a fresh context' },
          answer_with: 'a person answers: autopilot decide <A|B>',
        },
        summary: { file: '_docs/02_tasks/_index.md', problem: 'the task index has no task table' },
      },
      checkpoint: '2026-11-26T233242.356Z-boundary',
    };
    expect(answerText(json, `✓ Completed step 5 Decompose.\n${box}`).split('\n')).toEqual([
      '✓ Completed step 5 Decompose.',
      'Step 6 of 10 · Implement (greenfield): not_started · boundary',
      'Boundary after step 5 (Decompose); next: step 6 (Implement)',
      'Summary: _docs/02_tasks/_index.md: the task index has no task table',
      'Question: Decompose complete — start Implement?',
      '  A) Start a new conversation for Implement (recommended)',
      '  B) Continue in this conversation',
      'Recommended: A — a fresh context',
      'Answer: a person answers: autopilot decide <A|B>',
      'Checkpoint: 2026-11-26T233242.356Z-boundary',
    ]);
  });

  it('the end of the flow, a resumed sub-step in cycle 2, and drift counted', () => {
    expect(answerText({ ...at, step: 'done', name: 'done', status: 'completed', outcome: 'complete' }, box)).toBe('greenfield: done · complete');
    const resumed = {
      ...at,
      step: 6,
      name: 'Implement',
      status: 'in_progress',
      cycle: 2,
      sub_step: '2 — Code',
      outcome: 'work',
      action: 'resume',
      drift: [{}],
    };
    expect(answerText(resumed, '! drift\n▶ Resume').split('\n')).toEqual([
      'Step 6 of 10 · Implement (greenfield, cycle 2): in_progress · work (resume)',
      'Sub-step: 2 — Code',
      'Problems: 1 (drift, notices in the structured content)',
    ]);
  });

  it('an answer without a position is the CLI’s first line that says something', () => {
    expect(answerText({ problems: [] }, '\n════\n✓ Checked 2 flows: no problems.\nmore')).toBe('✓ Checked 2 flows: no problems.');
  });
});
