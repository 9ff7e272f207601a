/** The journal readers on real files: the tail and chunked readers agree with a whole read; the index agrees with a fold over every line. */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { StampedEntry } from '../../../src/formats/journal-line.js';
import { readJournalHead } from '../../../src/io/journal-head.js';
import { evidenceFromIndex, type JournalEvidence } from '../../../src/formats/journal-index.js';
import { loadJournalIndex } from '../../../src/io/journal-index.js';
import { appendJournal, lastEntries, readJournal } from '../../../src/io/journal.js';

const dir = mkdtempSync(join(tmpdir(), 'autopilot-journal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const freshFile = () => join(dir, `journal-${n++}.jsonl`);

const base = (seq: number, extra: Partial<StampedEntry>): StampedEntry =>
  ({
    seq,
    at: '2026-11-26T00:00:00.000Z',
    session: 'local',
    event: 'substep',
    flow: 'f',
    cycle: 1,
    step: 1,
    name: 'Step',
    index: 0,
    status: 'in_progress',
    retry_count: 0,
    // Each entry its own command's batch: it carries the pointer that command left.
    pointer: { flow: 'f', step: 1, name: 'Step', status: 'in_progress', sub_step: '0', retry_count: 0, cycle: 1 },
    ...extra,
  }) as StampedEntry;

const event = fc.record({
  kind: fc.constantFrom('skip', 'skip-condition', 'complete', 'force', 'repeat', 'noise'),
  step: fc.integer({ min: 1, max: 4 }),
  cycle: fc.integer({ min: 1, max: 12 }),
  text: fc.string({ maxLength: 30, unit: fc.constantFrom('a', 'é', '—', '😀', '"', '\\', ' ') }),
});
type Ev = { kind: string; step: number; cycle: number; text: string };

function toEntry(e: Ev, seq: number): StampedEntry {
  switch (e.kind) {
    case 'skip':
      return base(seq, { event: 'step_skipped', step: e.step, cycle: e.cycle, by: 'agent', reason: e.text });
    case 'skip-condition':
      return base(seq, { event: 'step_skipped', step: e.step, cycle: e.cycle, by: 'condition' });
    case 'complete':
      return base(seq, { event: 'step_completed', step: e.step, cycle: e.cycle });
    case 'force':
      return base(seq, { event: 'step_completed', step: e.step, cycle: e.cycle, forced: true, reason: e.text });
    case 'repeat':
      return base(seq, { event: 'decision_answered', step: e.step, cycle: e.cycle, then: 'repeat', round_files: [e.text] });
    default:
      return base(seq, { step: e.step, cycle: e.cycle, sub_step: e.text });
  }
}

/** The rule, folded over every entry in order: what the index must agree with. */
function fold(entries: StampedEntry[], cycle: number, perCycle: (step: number) => boolean): JournalEvidence {
  const found: JournalEvidence = { waivers: new Map(), rounds: new Map() };
  for (const e of entries) {
    if (typeof e.step !== 'number' || (perCycle(e.step) && e.cycle !== cycle)) continue;
    if (e.event === 'step_skipped' && e.by !== 'condition') found.waivers.set(e.step, 'skipped');
    if (e.event === 'step_completed') {
      found.rounds.delete(e.step);
      if (e.forced === true) found.waivers.set(e.step, 'forced');
    }
    if (e.event === 'decision_answered' && e.then === 'repeat') found.rounds.set(e.step, e.round_files as string[]);
  }
  return found;
}

const lines = (entries: StampedEntry[]) => entries.map((e) => JSON.stringify(e)).join('\n') + '\n';

describe('the journal index', () => {
  it('agrees with a fold over every line, for the newest cycle, built at once or line by line (200 random journals)', () => {
    fc.assert(
      fc.property(fc.array(event, { minLength: 1, maxLength: 60 }), fc.integer({ min: 0, max: 60 }), fc.boolean(), (evs, cut, loops) => {
        const entries = evs.map((e, i) => toEntry(e, i + 1));
        const journalFile = freshFile();
        const indexFile = `${journalFile}.index.json`;
        const perCycle = (step: number) => loops && step >= 2;
        const cycle = Math.max(...evs.map((e) => e.cycle));
        const expected = fold(entries, cycle, perCycle);
        // Built in one go.
        writeFileSync(journalFile, lines(entries));
        expect(evidenceFromIndex(loadJournalIndex(journalFile, indexFile).index, 'f', cycle, perCycle)).toEqual(expected);
        // Built from a cached index of a prefix, then brought up to date with the rest.
        const head = entries.slice(0, Math.min(cut, entries.length));
        writeFileSync(journalFile, head.length ? lines(head) : '');
        writeFileSync(indexFile, JSON.stringify(loadJournalIndex(journalFile, indexFile).index));
        if (entries.length > head.length) appendFileSync(journalFile, lines(entries.slice(head.length)));
        expect(evidenceFromIndex(loadJournalIndex(journalFile, indexFile).index, 'f', cycle, perCycle)).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('is rebuilt when the journal was replaced by another history of the same size or longer', () => {
    const journalFile = freshFile();
    const indexFile = `${journalFile}.index.json`;
    writeFileSync(journalFile, lines([toEntry({ kind: 'skip', step: 2, cycle: 1, text: 'x' }, 1)]));
    writeFileSync(indexFile, JSON.stringify(loadJournalIndex(journalFile, indexFile).index));
    writeFileSync(journalFile, lines([toEntry({ kind: 'noise', step: 2, cycle: 1, text: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' }, 1)]));
    expect(evidenceFromIndex(loadJournalIndex(journalFile, indexFile).index, 'f', 1, () => false).waivers.size).toBe(0);
  });
});

describe('reading the journal', () => {
  it('from the end gives the same events as a whole read, across chunk boundaries and multi-byte text (50 random journals)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(event, fc.integer({ min: 0, max: 40_000 })), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: 45 }),
        (evs, count) => {
          const file = freshFile();
          const entries = evs.map(([e, pad], i) => ({ ...toEntry(e, i + 1), pad: '😀'.repeat(pad / 4) }));
          writeFileSync(file, lines(entries));
          const whole = readJournal(file, 'j').entries;
          expect(whole).toEqual(entries);
          expect(lastEntries(file, count)).toEqual(entries.slice(Math.max(0, entries.length - count)));
          expect(readJournalHead(file).lastSeq).toBe(entries.length);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('skips lines that are not events — `{}`, `null`, `{"at":1}`, deep arrays, torn JSON — and names each', () => {
    const file = freshFile();
    const good = base(1, {});
    writeFileSync(file, ['{}', 'null', '{"at":1}', '[[[[[[[[1]]]]]]]]', JSON.stringify(good), '{"seq":2,"at":"20'].join('\n'));
    const read = readJournal(file, 'journal.jsonl');
    expect(read.entries).toEqual([good]);
    expect(read.problems.map((p) => p.line)).toEqual([1, 2, 3, 4, 6]);
    expect(read.problems.at(-1)!.message).toContain('torn');
    expect(lastEntries(file, 10)).toEqual([good]);
  });

  it('names the first 100 of 200,000 lines that are not events, one by one, and counts the rest in one problem at its line', () => {
    const file = join(dir, 'garbage.jsonl');
    writeFileSync(file, 'a\n'.repeat(200_000));
    const { entries, problems } = readJournal(file, 'journal.jsonl');
    expect(entries).toEqual([]);
    expect(problems).toHaveLength(101);
    expect(problems[99]).toMatchObject({ line: 100, message: expect.stringContaining('not JSON') });
    expect(problems[100]).toMatchObject({ line: 101, message: expect.stringContaining('199,900 more journal lines from here are not events') });
  });

  it('leaves out a batch a crash cut short (its closing event never written), but not a later one that reuses its numbers', () => {
    const file = freshFile();
    const open = (seq: number) => ({ ...base(seq, { event: 'step_completed' }), pointer: undefined });
    // seq 1 closed; seqs 2–3 a cut batch (no pointer); then the retry's batch 2–3, closed.
    writeFileSync(file, lines([base(1, {}), open(2), open(3), open(2), base(3, { event: 'decision_required' })]).replaceAll(',"pointer":undefined', ''));
    const read = readJournal(file, 'j');
    expect(read.entries.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(read.entries.at(-1)!.event).toBe('decision_required');
    expect(read.problems).toEqual([expect.objectContaining({ line: 2, message: expect.stringContaining('events 2–3 are a command a crash cut short') })]);
    expect(lastEntries(file, 10).map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('starts an append on a new line after a torn one, and writes whole lines', () => {
    const file = freshFile();
    writeFileSync(file, `${JSON.stringify(base(1, {}))}\n{"seq":2,"at`);
    appendJournal(file, lines([base(2, { event: 'step_started' })]));
    const read = readJournal(file, 'j');
    expect(read.entries.map((e) => e.event)).toEqual(['substep', 'step_started']);
    expect(read.problems).toHaveLength(1);
  });
});
