/**
 * The bundled example (`_docs-example`, what `npm run demo` walks) is a run
 * as autopilot records it: its journal carries the record of each event (a
 * number, the chain, the pointer it left), so the demo's first `next` has
 * nothing to warn about (issue 25, point 5).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autopilot, exampleCopy } from '../helpers/cli.js';
import { ROOT } from '../helpers/engine.js';

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

  it('npm run demo walks it with 0 notices and commits its 3 steps in a git repository of its own', () => {
    const demo = spawnSync(process.execPath, [join(ROOT, 'scripts', 'demo.mjs')], { encoding: 'utf8', env: { ...process.env, AUTOPILOT_SESSION: '' } });
    expect(demo.status, demo.stderr).toBe(0);
    expect(demo.stdout).not.toMatch(/^! /m);
    expect(demo.stdout).not.toContain('not a git repository');
    expect(demo.stdout.match(/^✓ Progress commit [0-9a-f]{8}$/gm)).toHaveLength(3);
    expect(demo.stdout).toMatch(/^[0-9a-f]{7} autopilot: greenfield 5\/10 Decompose completed$/m);
  });
});
