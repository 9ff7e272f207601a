/** The question that waits for a person (engine/pending.ts): what it is, its options and the exact command that answers it. Pure. */
import { describe, expect, it } from 'vitest';
import { pendingQuestion } from '../../../src/engine/pending.js';
import { at, builtInFlow } from '../../helpers/engine.js';

const flow = builtInFlow('greenfield');

describe('pendingQuestion', () => {
  it("a flow's decision after its step: 2 options, each with `autopilot decide <letter>`; the recommended one answers it", () => {
    expect(pendingQuestion(flow, at(flow, 2, 'completed'), undefined)).toMatchObject({
      kind: 'decision',
      step: 2,
      name: 'Research',
      options: [
        { letter: 'A', command: 'autopilot decide A' },
        { letter: 'B', command: 'autopilot decide B' },
      ],
      recommendation: { letter: 'B' },
      command: 'autopilot decide B',
    });
  });

  it('a session boundary: A (a new conversation) recommended', () => {
    expect(pendingQuestion(flow, at(flow, 6), { after: 5, session: 'conv-1' })).toMatchObject({
      kind: 'boundary',
      step: 6,
      question: 'Decompose complete — start Implement?',
      command: 'autopilot decide A',
    });
  });

  it('a step failed three times: no options, the last reason, `autopilot ack`', () => {
    expect(pendingQuestion(flow, at(flow, 3, 'failed', { retryCount: 3 }), undefined, undefined, 'red')).toEqual({
      kind: 'failed',
      step: 3,
      name: 'Plan',
      question: 'Step 3 (Plan) failed 3 times: look at why, then allow another 3 attempts?',
      options: [],
      reason: 'red',
      command: 'autopilot ack',
    });
  });

  it('nothing waits: work in progress, a completed step with no decision after it, the end of the flow', () => {
    expect(pendingQuestion(flow, at(flow, 2, 'in_progress'), undefined)).toBeUndefined();
    expect(pendingQuestion(flow, at(flow, 3, 'completed'), undefined)).toBeUndefined();
    expect(pendingQuestion(flow, at(flow, 'done'), undefined)).toBeUndefined();
  });
});
