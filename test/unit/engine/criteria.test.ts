/**
 * Issue 29 point 8: the acceptance criteria pinned (`formats/criteria.ts`,
 * `engine/criteria.ts`): what is read as a criterion, which edits are held,
 * when the run stands past the step that pins them, and the index that keeps
 * the last pin of each flow.
 */
import { describe, expect, it } from 'vitest';
import { criteriaChanges, criteriaFile, criteriaStep, pastCriteriaStep, recordsResult } from '../../../src/engine/criteria.js';
import { readCriteria } from '../../../src/formats/criteria.js';
import { carryIndex, emptyJournalIndex, indexEvent, indexFromCarried } from '../../../src/formats/journal-index.js';
import { entry, type StampedEntry } from '../../../src/formats/journal-line.js';
import { CRITERIA_PINNED_MAX, CRITERION_TEXT_MAX_LENGTH } from '../../../src/limits.js';
import { at, builtInFlow } from '../../helpers/engine.js';

const greenfield = builtInFlow('greenfield');
const existing = builtInFlow('existing-code');

const FILE = [
  '# Acceptance criteria',
  '',
  '## Acceptance criteria',
  '',
  '- **AC-01**: a status within 50 ms.',
  '- **AC-02**: every step shown,',
  '  with its status.',
  '<!-- - AC-09: a comment is no criterion -->',
  '- a line with no id',
  '',
  '## Self-check',
  '',
  '- [x] AC-07 named here is a box, not a criterion.',
  '',
].join('\n');

describe('the criteria as pinned', () => {
  it('reads 2 criteria with their continuation lines, passing over a comment, an item with no id and the Self-check', () => {
    const criteria = readCriteria(FILE);
    expect(criteria.map((c) => c.id)).toEqual(['AC-01', 'AC-02']);
    expect(criteria[1]!.text).toBe('**AC-02**: every step shown, with its status.');
    // Re-wrapping a criterion is no edit; changing a word is one.
    expect(readCriteria(FILE.replace('shown,\n  with', 'shown, with'))[1]!.hash).toBe(criteria[1]!.hash);
    expect(readCriteria(FILE.replace('50 ms', '80 ms'))[0]!.hash).not.toBe(criteria[0]!.hash);
  });

  it('keeps at most CRITERIA_PINNED_MAX criteria, each text cut at CRITERION_TEXT_MAX_LENGTH', () => {
    const many = Array.from({ length: CRITERIA_PINNED_MAX + 5 }, (_, i) => `- AC-${String(i + 1).padStart(3, '0')}: ${'x'.repeat(400)}`).join('\n');
    const read = readCriteria(many);
    expect(read).toHaveLength(CRITERIA_PINNED_MAX);
    expect(read[0]!.text.length).toBe(CRITERION_TEXT_MAX_LENGTH);
  });

  it('an edit that drops one and rewrites another: 2 changes; one added: 0', () => {
    const pinned = readCriteria(FILE);
    const edited = readCriteria(FILE.replace(/^- \*\*AC-01\*\*.*\n/m, '').replace('every step', 'most steps'));
    expect(criteriaChanges(pinned, edited)).toEqual({ dropped: [pinned[0]], rewritten: [{ was: pinned[1], now: edited[0] }] });
    expect(criteriaChanges(pinned, readCriteria(`${FILE}\n- AC-03: more.\n`.replace('## Self-check', '## Later')))).toEqual({ dropped: [], rewritten: [] });
  });

  it('the step that writes them: greenfield’s Problem (1), existing-code’s New Task (8) in each cycle', () => {
    expect([criteriaFile(greenfield, 1), criteriaStep(greenfield, 1)]).toEqual(['00_problem/acceptance_criteria.md', 1]);
    expect([criteriaFile(existing, 2), criteriaStep(existing, 2)]).toEqual(['02_tasks/cycle-2/_index.md', 8]);
  });

  it('an edit is held only past that step, in the cycle it pinned: 3 places past, 3 not', () => {
    const pin = { cycle: 1, file: '_docs/00_problem/acceptance_criteria.md', criteria: [] };
    expect(pastCriteriaStep(greenfield, at(greenfield, 1, 'in_progress'), pin)).toBe(false);
    expect(pastCriteriaStep(greenfield, at(greenfield, 1, 'completed'), pin)).toBe(true);
    expect(pastCriteriaStep(greenfield, at(greenfield, 7, 'in_progress'), pin)).toBe(true);
    expect(pastCriteriaStep(greenfield, at(greenfield, 'done', 'completed'), pin)).toBe(true);
    expect(pastCriteriaStep(existing, at(existing, 9, 'in_progress', { cycle: 2 }), pin)).toBe(false);
    expect(pastCriteriaStep(existing, at(existing, 8, 'in_progress'), pin)).toBe(false);
  });

  it('what a held edit stops: a step’s result, an answer, a third failure — not a sub-step, a start or a failure with retries left', () => {
    const p = at(greenfield, 7, 'in_progress');
    expect(recordsResult([entry('step_completed', p)])).toBe(true);
    expect(recordsResult([entry('boundary_reached', p, { after: 5 })])).toBe(true);
    expect(recordsResult([entry('step_failed', { ...p, status: 'failed', retryCount: 3 }, { reason: 'red', attempt: 3 })])).toBe(true);
    expect(recordsResult([entry('step_failed', { ...p, status: 'not_started', retryCount: 1 }, { reason: 'red', attempt: 1 })])).toBe(false);
    expect(recordsResult([entry('substep', p, { sub_step: '2' }), entry('step_started', p, { attempt: 1 })])).toBe(false);
  });

  it('the journal index keeps each flow’s last pin, from a step_completed or a person’s edit_adopted, and carries it', () => {
    const index = emptyJournalIndex();
    const items = readCriteria(FILE);
    const stamp = (e: object, seq: number) => ({ seq, at: '2026-11-26T00:00:00.000Z', session: 'local', ...e }) as StampedEntry;
    indexEvent(index, stamp({ ...entry('step_completed', at(greenfield, 1, 'completed')), criteria: { file: 'c.md', items } }, 1));
    expect(index.criteria).toEqual({ greenfield: { cycle: 1, file: 'c.md', criteria: items } });
    indexEvent(
      index,
      stamp(entry('edit_adopted', at(greenfield, 7), { what: 'criteria', changes: ['AC-01 dropped'], criteria: { file: 'c.md', items: items.slice(1) } }), 2),
    );
    expect(index.criteria?.greenfield?.criteria).toEqual(items.slice(1));
    expect(indexFromCarried(JSON.parse(JSON.stringify(carryIndex(index))))?.criteria).toEqual(index.criteria);
    // A carried copy whose pin has another shape is not one this autopilot reads.
    expect(indexFromCarried({ ...carryIndex(index), criteria: { greenfield: { cycle: 1, file: 'c.md', criteria: 'AC-01' } } })).toBeUndefined();
  });
});
