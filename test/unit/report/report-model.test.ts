import { describe, expect, it } from 'vitest';
import { buildReport } from '../../../src/report/report-model.js';
import { at, builtInFlow } from '../../helpers/engine.js';
import { model, stamped } from './fixtures.js';

const greenfield = builtInFlow('greenfield');
const existing = builtInFlow('existing-code');

describe('the report model', () => {
  it('gives each step its status, times, attempts and sessions from the journal', () => {
    const m = model(greenfield);
    expect(m.steps.slice(0, 4).map((s) => s.state)).toEqual(['done', 'done', 'in_progress', 'not_started']);
    expect(m.steps[0]).toMatchObject({ started: '2026-11-26T09:00:01.000Z', finished: '2026-11-26T09:10:00.000Z', attempts: 1, sessions: ['local'] });
    expect(m.steps[1]).toMatchObject({ attempts: 2, sessions: ['local', 'second'], finished: '2026-11-26T09:30:00.000Z' });
    expect(m.steps[2]).toMatchObject({ current: true, attempts: 1, sessions: ['second'] });
    expect(m.steps[2]!.finished).toBeUndefined();
    expect(m.steps[3]).toMatchObject({ attempts: 0, sessions: [] });
  });

  it('keeps the last ten events, oldest first', () => {
    const m = model(greenfield);
    expect(m.lastEvents.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(model(greenfield, undefined, { lastCount: 3 }).lastEvents.map((e) => e.seq)).toEqual([6, 7, 8]);
    expect(m.lastEvents[4]).toMatchObject({ event: 'step_failed', detail: 'tests red', where: 'step 2 Research' });
  });

  it('marks skipped and failed steps', () => {
    const entries = [stamped('step_skipped', at(greenfield, 4, 'skipped'), '09:00:00', 'local', { by: 'condition' })];
    const m = buildReport({ flow: greenfield, position: at(greenfield, 5, 'failed', { retryCount: 3 }), entries, now: new Date() });
    expect(m.steps[3]).toMatchObject({ state: 'skipped', sessions: [] });
    expect(m.steps[4]!.state).toBe('failed');
    const done = buildReport({ flow: greenfield, position: at(greenfield, 'done', 'completed'), entries: [], now: new Date() });
    expect(done.steps.every((s) => s.state === 'done')).toBe(true);
  });

  it('has the decision, boundary and loop edges', () => {
    const g = model(greenfield).edges;
    expect(g.filter((e) => e.kind === 'repeat').map((e) => [e.from, e.to])).toEqual([[2, 2]]);
    expect(g.some((e) => e.kind === 'boundary' && e.from === 5 && e.to === 6)).toBe(true);
    expect(g.some((e) => e.to === 'end')).toBe(true);
    const x = model(existing).edges;
    expect(x.some((e) => e.kind === 'loop' && e.from === 14 && e.to === 8)).toBe(true);
  });
});
