/**
 * The bundled example (`_docs-example`, what `npm run demo` walks) is a run
 * as autopilot records it: its journal carries the record of each event (a
 * number, the chain, the pointer it left), so the demo's first `next` has
 * nothing to warn about (issue 25, point 5).
 */
import { describe, expect, it } from 'vitest';
import { autopilot, exampleCopy } from '../helpers/cli.js';

describe('the bundled example', () => {
  it('checks clean: 13 journal events on record, 0 problems', () => {
    const check = autopilot(exampleCopy(), 'check', '--json');
    expect(check.code).toBe(0);
    expect(check.json()).toMatchObject({ ok: true, problems: [], journal_events: 13, pointer: 'ok' });
  });

  it("the demo's first next resumes step 3 with 0 notices (no 'the journal has no record of this run')", () => {
    const next = autopilot(exampleCopy(), 'next');
    expect(next.code).toBe(0);
    expect(next.stdout).toContain('▶ Resume step 3 of 10 · Plan (greenfield)');
    expect(next.stdout).toContain('Problems  none');
    expect(next.stdout).not.toMatch(/^! /m);
    expect(next.stdout + next.stderr).not.toContain('no record');
  });
});
