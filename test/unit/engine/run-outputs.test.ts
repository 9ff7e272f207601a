/**
 * What a run's journal makes autopilot's under the docs folder
 * (`engine/run-outputs.ts`, for `uninstall --remove-docs`): the outputs of
 * each step it records, in the cycle it records it, by the flow it pins; the
 * files it names; the task files of a task index. Nothing else: the rest is
 * a person's.
 */
import { describe, expect, it } from 'vitest';
import { pinnedCopy } from '../../../src/engine/pin.js';
import { runOutputs, taskFilePrefixes } from '../../../src/engine/run-outputs.js';
import type { StampedEntry } from '../../../src/formats/journal-line.js';
import { builtInFlow } from '../../helpers/engine.js';

const flow = builtInFlow('existing-code');
let seq = 0;
const at = (event: string, step: number | 'done', cycle: number, details: Record<string, unknown> = {}): StampedEntry =>
  ({
    event,
    flow: flow.id,
    step,
    cycle,
    name: '',
    status: 'in_progress',
    retry_count: 0,
    at: '2026-01-01T00:00:00Z',
    session: 's',
    seq: ++seq,
    ...details,
  }) as unknown as StampedEntry;

describe('the files a run makes its own', () => {
  it('the outputs of the 5 steps it records, each in its cycle, by the pinned flow; the 4 files it names under the docs folder; the task indexes of both cycles', () => {
    const entries = [
      at('run_started', 1, 1, { source: 'init', pinned: pinnedCopy(flow) }),
      at('step_completed', 1, 1, { by: 'folder' }),
      at('step_started', 2, 1, { attempt: 1, hashes: { '02_document/tests/test_spec.md': 'a' } }),
      at('step_skipped', 7, 1, { by: 'agent', reason: 'no hot spots' }),
      at('step_started', 8, 2, { attempt: 1 }),
      at('batch_started', 9, 2, { batch: 1, of: 2, tasks: ['T-01'], batches: [['T-01'], ['T-02']] }),
      at('progress_commit_owed', 9, 2, { files: ['_docs/_autopilot_state.md', '_docs/02_tasks/cycle-2/_index.md', 'README.md'], steps: 14 }),
      at('run_repinned', 9, 2, { pinned: pinnedCopy(flow), from_hash: 'a', flow_hash: 'b', changed: [] }),
      at('journal_repaired', 9, 2, { cut_lines: [3], kept_in: '_docs/_autopilot/journal.cut-1.jsonl', seams: [] }),
    ];
    const out = runOutputs(entries, '_docs');
    expect(out.patterns.sort()).toEqual(
      [
        '02_document/architecture.md',
        '02_document/components.md',
        '02_document/tests/test_spec.md',
        '03_implementation/refactor_report.md',
        '02_tasks/cycle-2/_index.md',
        '03_implementation/cycle-2/implementation_report.md',
        '03_implementation/cycle-2/batch_*.md',
      ].sort(),
    );
    // Names the journal gives, under the docs folder; one outside it (README.md) is none of them, whatever the docs folder holds.
    expect(out.files.sort()).toEqual(
      ['02_document/tests/test_spec.md', '_autopilot_state.md', '02_tasks/cycle-2/_index.md', '_autopilot/journal.cut-1.jsonl'].sort(),
    );
    expect(out.indexes.sort()).toEqual(['02_tasks/tests/_index.md', '02_tasks/cycle-1/_index.md', '02_tasks/cycle-2/_index.md'].sort());
  });

  it('a journal of no pinned flow and no flow given: only the names it gives (0 patterns)', () => {
    const out = runOutputs([at('step_started', 1, 1, { attempt: 1, hashes: { 'a.md': 'x' } })], '_docs');
    expect(out).toEqual({ patterns: [], files: ['a.md'], indexes: [] });
  });

  it('a name that climbs out of the docs folder or is absolute is never one of them (2 of 2 dropped)', () => {
    const out = runOutputs([at('step_started', 1, 1, { attempt: 1, hashes: { '../x.md': 'x', '/etc/passwd': 'y', 'ok.md': 'z' } })], '_docs');
    expect(out.files).toEqual(['ok.md']);
  });

  it("a task index's task files: `<folder>/<id>_` for each of its 2 tasks", () => {
    const index = [
      '# Tasks',
      '',
      '| Task | Name | Points | Batch | Depends on | Test strategy |',
      '|---|---|---|---|---|---|',
      '| T-01 | Login | 3 | 1 | - | unit |',
      '| T-02 | Logout | 2 | 2 | T-01 | unit |',
      '',
    ].join('\n');
    expect(taskFilePrefixes('02_tasks/_index.md', index)).toEqual(['02_tasks/T-01_', '02_tasks/T-02_']);
    expect(taskFilePrefixes('02_tasks/_index.md', '# no table\n')).toEqual([]);
  });
});
