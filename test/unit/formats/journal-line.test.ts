/** The journal line: what every writer writes reads back the same; what is not an event says why, naming the line. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  entry,
  judgeLine,
  parseJournalLine,
  readDetail,
  serializeEntries,
  toPointerRecord,
  type EventDetails,
  type JournalEvent,
  type StampedEntry,
} from '../../../src/formats/journal-line.js';
import type { Position } from '../../../src/formats/pointer/position.js';
import { JOURNAL_LINE_MAX_BYTES } from '../../../src/limits.js';
import { builtInFlow } from '../../helpers/engine.js';

const FILE = '_docs/_autopilot/journal.jsonl';
const AT: Position = { flow: 'greenfield', step: 3, name: 'Plan', status: 'in_progress', subStep: '0', retryCount: 0, cycle: 1 };
const { file: _file, ...pinned } = builtInFlow('greenfield');

/** One entry of every event, with the details its writer gives it: a new event must be added here (the type says so). */
const WRITTEN: { [E in JournalEvent]: EventDetails[E] } = {
  run_started: { source: 'folder', flow_hash: 'abc', flow_file: 'builtin:greenfield', pinned },
  position_repaired: { source: 'state', drift: ['the pointer skipped step 2'] },
  pointer_edited: { edited: { status: { was: 'in_progress', now: 'completed' } }, message: 'edited by hand' },
  step_started: { attempt: 1, tree: '4b825dc642cb6eb9a060e54bf8d69288fbee4904', hashes: { '00_problem/problem.md': '1a2b3c4d5e6f7a8b' } },
  substep: { sub_step: '2 — Restrictions' },
  batch_started: {
    batch: 2,
    of: 3,
    tasks: ['03', '04'],
    batches: [['01', '02'], ['03', '04'], ['05']],
    index_hash: 'abc',
    tree: '4b825dc6',
    report_hash: 'abc',
  },
  batch_completed: { batch: 2, of: 3, tasks: ['03', '04'], code_unseen: 'not a git repository' },
  step_completed: { forced: true, reason: 'a person checked it' },
  step_skipped: { by: 'agent', reason: 'not needed' },
  step_failed: { reason: 'tests red', attempt: 2, hashes: {} },
  decision_required: { decision: 'review' },
  decision_answered: {
    decision: 'review',
    option: 'B',
    choice: 'another round',
    then: 'repeat',
    round_files: ['01_research/draft-1.md'],
    round_hashes: { '01_research/draft-1.md': '1a2b3c4d5e6f7a8b' },
  },
  command_run: { command: 'npm test', exit_code: 1, totals: { passed: 12, failed: 7 }, tree: '4b825dc642cb6eb9a060e54bf8d69288fbee4904' },
  verify_pinned: { command: 'npm test', sources: { 'package.json scripts.test': '1a2b3c4d', 'package.json scripts.pretest': null }, by: 'found' },
  boundary_reached: { after: 4 },
  boundary_answered: { option: 'A', choice: 'a new conversation arrived', after: 4, reached_by: 'one' },
  failure_acknowledged: {},
  cycle_started: {},
  flow_completed: {},
  lease_taken_over: { from: 'one', from_host: 'box', reason: 'stale', heartbeat: '2026-11-26T10:00:00.000Z' },
  follow_through: { message: 'the last action said step 4', expected: 'step 4 (Plan)' },
  breadcrumb: { events: 3 },
  skill_state_differs: { file: '_docs/02_document/state.json', skill_sub_step: '3', pointer_sub_step: '2' },
  checkpoint_restored: { checkpoint: '2026-11-26T100000.000Z-boundary', journal_then: 12 },
  run_repinned: { from_hash: 'abc', flow_hash: 'def', changed: ['step 3 (Plan) changed'], pinned },
  skills_pinned: {
    skills_hash: '1a2b3c4d5e6f7a8b',
    skills: { problem: { source: 'builtin', hash: '1a2b3c4d5e6f7a8b', outputs: [], templates: {} } },
    changed: ['the skill problem is now read from .autopilot/skills/problem/SKILL.md (the run pinned the built-in one)'],
  },
  lock_broken: { holder: { pid: 42, host: 'box', session: 'one', at: '2026-11-26T10:00:00.000Z' }, reason: 'gone' },
  journal_repaired: { cut_lines: [3], kept_in: '_docs/_autopilot/journal.cut-2026-11-26T10-00-00-000Z.txt', seams: ['5e6f7a8b'] },
  progress_commit_owed: { files: ['_docs/_autopilot_state.md', '_docs/_autopilot/journal.jsonl'], steps: 10, tree: '4b825dc6' },
  progress_commit_made: { owed: 7, sha: '1a2b3c4d5e6f' },
  edit_held: { held: { pointer: toPointerRecord({ ...AT, step: 4, name: 'UI Design' }), edited: { step: { was: 3, now: 4 } }, gates: ['ahead'] } },
  edit_adopted: {
    what: 'criteria',
    changes: ['AC-02 dropped'],
    criteria: { file: '_docs/00_problem/acceptance_criteria.md', items: [{ id: 'AC-01', hash: '1a2b3c4d', text: 'AC-01: it works' }] },
  },
  edit_dismissed: { held: { pointer: toPointerRecord(AT), edited: { retry_count: { was: 2, now: 0 } }, gates: ['retries'] } },
  journal_merged: {
    fork_point: '0a1b2c3d',
    seams: ['4e5f6a7b'],
    sides: { A: { from: 4, to: 6 }, B: { from: 4, to: 5 } },
    settled: 'kept',
    kept: 'A',
    message: 'a person kept side A',
  },
};

const anyEntry = entry as (event: JournalEvent, at: Position, details?: object) => ReturnType<typeof entry>;

const stamp = (e: ReturnType<typeof entry>, seq = 7): StampedEntry =>
  ({ seq, at: '2026-11-26T10:00:00.000Z', session: 'local', key: 'next:greenfield/1/3:a1:811c9dc5', ...e, pointer: toPointerRecord(AT) }) as StampedEntry;

/** A line as it would be written, with `change` applied to its JSON object. */
const line = (event: JournalEvent, change: (o: Record<string, unknown>) => void = () => {}) => {
  const o = JSON.parse(JSON.stringify(stamp(anyEntry(event, AT, WRITTEN[event])))) as Record<string, unknown>;
  change(o);
  return JSON.stringify(o);
};

const problemOf = (text: string) => {
  const verdict = judgeLine(text);
  return 'problem' in verdict ? verdict.problem : undefined;
};

describe('entry', () => {
  it("puts the position and the details on one object: the step's place as seed 004 names it, `step_index`", () => {
    expect(entry('step_failed', AT, { reason: 'red', attempt: 1 })).toEqual({
      event: 'step_failed',
      flow: 'greenfield',
      cycle: 1,
      step: 3,
      name: 'Plan',
      step_index: 2,
      status: 'in_progress',
      retry_count: 0,
      reason: 'red',
      attempt: 1,
    });
    expect(entry('flow_completed', { ...AT, step: 'done' }).step_index).toBeNull();
  });

  it('takes only the details of its own event', () => {
    // @ts-expect-error a detail that belongs to no step_failed
    entry('step_failed', AT, { reason: 'red', attempt: 1, after: 3 });
    // @ts-expect-error step_failed's details are not optional
    entry('step_failed', AT);
    // @ts-expect-error an event with no details takes none
    entry('flow_completed', AT, { reason: 'x' });
    // @ts-expect-error `by` is `agent` or `condition`
    entry('step_skipped', AT, { by: 'someone', reason: 'x' });
    expect(entry('step_completed', AT).event).toBe('step_completed');
  });
});

describe('serializeEntries ∘ judgeLine', () => {
  it('reads back every event as written', () => {
    const entries = (Object.keys(WRITTEN) as JournalEvent[]).map((event, i) => stamp(anyEntry(event, AT, WRITTEN[event]), i + 1));
    const text = serializeEntries(entries);
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.split('\n').slice(0, -1);
    expect(lines).toHaveLength(entries.length);
    expect(lines.map((l) => judgeLine(l))).toEqual(JSON.parse(JSON.stringify(entries.map((e) => ({ entry: e })))));
  });

  it('reads back any free text and any position', () => {
    const text = fc.string({ maxLength: 200, unit: fc.constantFrom('a', 'é', '—', '😀', '"', '\\', '\n', '\u2028', ' ', '\u0000') });
    const position = fc.record({
      flow: fc.constantFrom('greenfield', 'existing-code'),
      step: fc.oneof(fc.integer({ min: 1, max: 20 }), fc.constant('done' as const)),
      name: text,
      status: fc.constantFrom('not_started', 'in_progress', 'completed', 'skipped', 'failed' as const),
      subStep: text,
      retryCount: fc.integer({ min: 0, max: 3 }),
      cycle: fc.integer({ min: 1, max: 1000 }),
    });
    fc.assert(
      fc.property(position, text, fc.integer({ min: 1, max: 1e9 }), (p, reason, seq) => {
        const written = { seq, at: 'now', session: 's', ...entry('step_failed', p, { reason, attempt: p.retryCount }), pointer: toPointerRecord(p, 'h') };
        const [one, ...rest] = serializeEntries([written]).split('\n');
        expect(rest).toEqual(['']);
        expect(judgeLine(one!)).toEqual({ entry: JSON.parse(JSON.stringify(written)) });
      }),
    );
  });
});

describe('judgeLine: what it accepts', () => {
  it('accepts a line of an older autopilot: no seq, no details, no name or status', () => {
    const verdict = judgeLine(JSON.stringify({ at: 'then', session: 'local', event: 'boundary_reached', flow: 'greenfield', cycle: 1, step: 4 }));
    expect(verdict).toEqual({
      entry: { at: 'then', session: 'local', event: 'boundary_reached', flow: 'greenfield', cycle: 1, step: 4, name: '', status: '', retry_count: 0 },
    });
  });

  it("keeps a newer autopilot's event, with its details, for `log`", () => {
    const text = line('step_started', (o) => {
      o.event = 'step_paused';
      o.until = { when: 'tomorrow' };
    });
    const verdict = judgeLine(text);
    expect('entry' in verdict && verdict.entry.event).toBe('step_paused');
    expect('entry' in verdict && readDetail(verdict.entry, 'until')).toEqual({ when: 'tomorrow' });
  });

  it('leaves the details the engine does not decide by unchecked', () => {
    expect(problemOf(line('step_started', (o) => (o.attempt = 'first')))).toBeUndefined();
    expect(problemOf(line('decision_answered', (o) => (o.choice = 3)))).toBeUndefined();
  });

  it("a person's entry says so (`actor: person`) and keeps its session; a line without an actor (every older autopilot's) is a session's", () => {
    const person = judgeLine(line('decision_answered', (o) => (o.actor = 'person')));
    expect('entry' in person && person.entry).toMatchObject({ session: 'local', actor: 'person', option: 'B' });
    const older = judgeLine(line('decision_answered'));
    expect('entry' in older && older.entry.actor).toBeUndefined();
  });

  it('narrows a known event to its details', () => {
    const verdict = judgeLine(line('boundary_reached'));
    if (!('entry' in verdict) || verdict.entry.event !== 'boundary_reached') throw new Error('not read');
    const after: number | undefined = verdict.entry.after;
    expect(after).toBe(4);
  });
});

describe('judgeLine: what is not an event, and why', () => {
  it.each([
    ['not JSON', '{"seq":1,"at":', 'not JSON (a line cut short by a crash, or a mangled merge)'],
    ['an array', '[1,2]', 'not an event: not a JSON object'],
    ['no event', line('step_started', (o) => delete o.event), 'not an event: no `event`'],
    ['an empty event', line('step_started', (o) => (o.event = '')), 'not an event: no `event`'],
    ['no flow', line('step_started', (o) => (o.flow = 3)), 'not an event: no `flow`'],
    ['step 0', line('step_started', (o) => (o.step = 0)), 'not an event: `step` is not a step number or `done`'],
    ['cycle 1.5', line('step_started', (o) => (o.cycle = 1.5)), 'not an event: `cycle` is not a cycle number'],
    ['no time', line('step_started', (o) => delete o.at), 'not an event: no `at` time'],
    ['no session', line('step_started', (o) => (o.session = null)), 'not an event: no `session`'],
    ['seq 0', line('step_started', (o) => (o.seq = 0)), 'not an event: `seq` is not a sequence number'],
    ['a numeric key', line('step_started', (o) => (o.key = 5)), 'not an event: `key` is not a command key'],
    ['an actor that is not a name', line('step_started', (o) => (o.actor = true)), 'not an event: `actor` is not a name'],
    [
      'a pointer at retry 4',
      line('step_started', (o) => ((o.pointer as Record<string, unknown>).retry_count = 4)),
      'not an event: `pointer` is not a position',
    ],
    [
      'a pointer with no status',
      line('step_started', (o) => delete (o.pointer as Record<string, unknown>).status),
      'not an event: `pointer` is not a position',
    ],
  ])('%s', (_what, text, problem) => {
    expect(problemOf(text)).toBe(problem);
  });

  it.each([
    ['boundary_reached', 'after', 'four'],
    ['boundary_reached', 'after', 0],
    ['decision_answered', 'then', 7],
    ['decision_answered', 'round_files', 'a.md'],
    ['decision_answered', 'round_files', [1]],
    ['decision_answered', 'option', 2],
    ['boundary_answered', 'option', null],
    ['step_completed', 'forced', 'yes'],
    ['step_skipped', 'by', 1],
    ['step_skipped', 'reason', ['x']],
    ['step_failed', 'reason', {}],
    ['substep', 'sub_step', 2],
    ['run_started', 'pinned', 'greenfield'],
    ['run_repinned', 'pinned', []],
    ['step_started', 'hashes', ['a.md']],
    ['step_started', 'hashes', { 'a.md': 1 }],
    ['step_failed', 'hashes', 'a.md'],
    ['decision_answered', 'round_hashes', { 'a.md': null }],
    ['command_run', 'command', ['npm', 'test']],
    ['command_run', 'exit_code', '0'],
    ['command_run', 'exit_code', 0.5],
    ['command_run', 'totals', { passed: 1 }],
    ['command_run', 'totals', { passed: 1, failed: -1 }],
  ] as [JournalEvent, string, unknown][])('%s with a `%s` of the wrong type', (event, key, value) => {
    expect(problemOf(line(event, (o) => (o[key] = value)))).toBe(`not an event: \`${key}\` of ${event} is not what autopilot writes`);
    // Without the detail at all, it is an event.
    expect(problemOf(line(event, (o) => delete o[key]))).toBeUndefined();
  });

  it('refuses a line over the limit without parsing it', () => {
    const long = line('step_failed', (o) => (o.reason = 'x'.repeat(JOURNAL_LINE_MAX_BYTES)));
    expect(problemOf(long)).toBe(`a line of ${long.length} characters (the limit is ${JOURNAL_LINE_MAX_BYTES})`);
  });
});

describe('parseJournalLine', () => {
  it('names the file and the line, and shows the start of what it found', () => {
    const text = line('boundary_reached', (o) => (o.after = 'x'));
    expect(parseJournalLine(text, FILE, 12)).toEqual({
      problem: {
        file: FILE,
        line: 12,
        message: 'a journal line is not an event: `after` of boundary_reached is not what autopilot writes; every reader skips it',
        expected: expect.stringContaining('one event a line') as unknown,
        received: text.slice(0, 80),
      },
    });
    expect(parseJournalLine(line('breadcrumb'), FILE, 1)).toHaveProperty('entry.event', 'breadcrumb');
  });
});
