/**
 * `done` on a step whose skill declares its outputs (`apply`, pure): the
 * judges' findings refuse with nothing journaled; a person's `--force`
 * completes it, forced; a person's `--accept-failures` waives only a failed
 * test run; and a property: whatever the files hold, a refusal journals nothing
 * and a completion journals one `step_completed`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OutputsEvidence } from '../../../src/engine/evidence.js';
import { apply, type Event } from '../../../src/engine/transitions.js';
import { at, builtInFlow, evidence } from '../../helpers/engine.js';

const flow = builtInFlow('greenfield');
const PROBLEM = '## Problem\n\nPeople lose their place in long sessions.\n\n## Self-check\n\n- [x] Own words\n';
const REPORT = (exit: number) => `## Result\n\nCommand: npm test\nExit code: ${exit}\nTotals: 3 passed, ${exit} failed\n`;

function outputs(text: string, o: Partial<OutputsEvidence> = {}): OutputsEvidence {
  return {
    skill: 'problem',
    skillFile: '.autopilot/skills/problem/SKILL.md',
    outputs: [
      {
        output: { file: '00_problem/problem.md', sections: ['Problem'], checks: ['placeholders', 'self-check', 'exit-code'] },
        files: [{ file: '00_problem/problem.md', text }],
      },
    ],
    hashes: { '00_problem/problem.md': 'new' },
    attempt: { baseline: {}, number: 1, runs: [{ command: 'npm test', exitCode: 0, totals: { passed: 3, failed: 0 }, seq: 4 }] },
    // The project's tests, pinned with the run and unchanged.
    verify: { command: 'npm test', changed: [] },
    ...o,
  };
}

function done(o: OutputsEvidence, event: Event = { type: 'done' }) {
  const ev = evidence(flow, { done: [1] });
  ev.steps[0] = { ...ev.steps[0]!, outputs: o };
  return apply(flow, at(flow, 1, 'in_progress'), ev, event);
}

describe('done with declared outputs', () => {
  it('completes a step whose files pass every check', () => {
    expect(done(outputs(PROBLEM + REPORT(0))).outcome).toEqual({ kind: 'advanced' });
  });

  it('refuses with the findings, journaling nothing; a person forces it, journaled as forced', () => {
    const refused = done(outputs('## Problem\n\nTODO\n'));
    expect(refused.entries).toEqual([]);
    expect(refused.outcome).toMatchObject({ kind: 'refused', findings: expect.arrayContaining([expect.objectContaining({ check: 'placeholders', line: 3 })]) });
    const forced = done(outputs('## Problem\n\nTODO\n'), { type: 'done', force: { reason: 'on paper' } });
    expect(forced.entries[0]).toMatchObject({ event: 'step_completed', forced: true, reason: 'on paper' });
  });

  it('a person accepts a failed run, and only that: journaled as accepted_failures', () => {
    const failing = outputs(PROBLEM + REPORT(1), {
      attempt: { baseline: {}, number: 1, runs: [{ command: 'npm test', exitCode: 1, totals: { passed: 3, failed: 1 }, seq: 4 }] },
    });
    expect(done(failing).outcome).toMatchObject({ kind: 'refused', findings: [expect.objectContaining({ acceptable: true })] });
    const accepted = done(failing, { type: 'done', acceptFailures: { reason: 'flaky, #42' } });
    expect(accepted.entries[0]).toMatchObject({ event: 'step_completed', accepted_failures: true, reason: 'flaky, #42' });
    const stillPlaceholder = outputs('## Problem\n\nTBD\n\n## Self-check\n\n- [x] Own words\n' + REPORT(1), { attempt: failing.attempt! });
    expect(done(stillPlaceholder, { type: 'done', acceptFailures: { reason: 'x' } }).outcome).toMatchObject({ kind: 'refused' });
  });

  it('refuses a file unchanged since the attempt began', () => {
    const same = outputs(PROBLEM + REPORT(0), {
      hashes: { '00_problem/problem.md': 'h1' },
      attempt: {
        baseline: { '00_problem/problem.md': 'h1' },
        number: 2,
        runs: [{ command: 'npm test', exitCode: 0, totals: { passed: 3, failed: 0 }, seq: 4 }],
      },
    });
    expect(done(same).outcome).toMatchObject({ kind: 'refused', findings: [expect.objectContaining({ check: 'fresh' })] });
  });

  it('a property: whatever the file holds, a refusal journals nothing and anything else one step_completed first', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom('## Problem', '## Self-check', '- [x] Own words', '- [ ] Own words', 'TODO', '{{ x }}', '', 'real words are here'),
            fc.string({ maxLength: 20 }),
          ),
          { maxLength: 12 },
        ),
        (parts) => {
          const t = done(outputs(parts.join('\n') + REPORT(0)));
          if (t.outcome.kind === 'refused') expect(t.entries).toEqual([]);
          else expect(t.entries[0]!.event).toBe('step_completed');
        },
      ),
      { numRuns: 300 },
    );
  });
});
