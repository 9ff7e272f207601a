/**
 * The journal carries its index: whatever was written, and however, the end of
 * the file answers what a fold over every line answers, without the cache.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { carryJournalIndex } from '../../../src/app/transaction/carry-index.js';
import { carriedIndexProblem } from '../../../src/app/views/check.js';
import { carryIndex, type JournalIndex } from '../../../src/formats/journal-index.js';
import { chainHash, serializeEntries, type StampedEntry } from '../../../src/formats/journal-line.js';
import { readJournalHead } from '../../../src/io/journal-head.js';
import { loadJournalIndex } from '../../../src/io/journal-index.js';
import { readJournal } from '../../../src/io/journal.js';
import { JOURNAL_INDEX_CARRY_BYTES } from '../../../src/limits.js';

const dir = mkdtempSync(join(tmpdir(), 'autopilot-carried-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const freshRepo = () => {
  const journalFile = join(dir, `journal-${n++}.jsonl`);
  return { journalFile, journalIndexFile: `${journalFile}.index.json` };
};

/** What a fold over every line gives, with no cache and no copy read. */
const derived = (file: string): unknown => carryIndex(loadJournalIndex(file, join(dir, `none-${n++}.json`)).index);
const fromEnd = (file: string): unknown => {
  const index = readJournalHead(file).index?.read();
  return index ? carryIndex(index) : undefined;
};

const pointer = { flow: 'f', step: 1, name: 'Step', status: 'in_progress', sub_step: '0', retry_count: 0, cycle: 1 } as const;
const at = { at: '2026-11-26T00:00:00.000Z', session: 'local', flow: 'f', name: 'Step', index: 0, status: 'in_progress', retry_count: 0 };

type Op = { kind: 'skip' | 'force' | 'complete' | 'repeat' | 'pin' | 'noise' | 'torn' | 'garbage'; step: number; cycle: number; pad: number };
const op = fc.record({
  kind: fc.constantFrom('skip', 'force', 'complete', 'repeat', 'pin', 'noise', 'noise', 'noise', 'torn', 'garbage'),
  step: fc.integer({ min: 1, max: 4 }),
  cycle: fc.integer({ min: 1, max: 10 }),
  pad: fc.constantFrom(0, 0, 100, 20_000),
}) as fc.Arbitrary<Op>;

function details(o: Op): Record<string, unknown> {
  switch (o.kind) {
    case 'skip':
      return { event: 'step_skipped', by: 'agent', reason: 'r' };
    case 'force':
      return { event: 'step_completed', forced: true, reason: 'r' };
    case 'complete':
      return { event: 'step_completed' };
    case 'repeat':
      return { event: 'decision_answered', then: 'repeat', round_files: [`f${o.cycle}.md`] };
    case 'pin':
      return { event: 'run_started', pinned: { id: 'f', cycle: o.cycle } };
    default:
      return { event: 'substep', sub_step: 'x'.repeat(o.pad) };
  }
}

/** Writes one command's batch the way `commit` does: chained, numbered from the journal's end, the index carried when due. */
function write(repo: ReturnType<typeof freshRepo>, o: Op): void {
  if (o.kind === 'garbage') return appendFileSync(repo.journalFile, 'not an event\n');
  const end = readJournalHead(repo.journalFile);
  const first = { ...at, seq: end.lastSeq + 1, step: o.step, cycle: o.cycle, ...(end.last ? { prev: end.last } : {}), ...details(o) } as StampedEntry;
  // A batch of two: the event, then the line that closes it; a torn batch loses its closing line to a kill.
  const closing = {
    ...at,
    seq: end.lastSeq + 2,
    step: o.step,
    cycle: o.cycle,
    event: 'step_started',
    pointer,
    prev: chainHash(JSON.stringify(first)),
  } as StampedEntry;
  const batch = [first, closing];
  carryJournalIndex(repo, end, batch);
  appendFileSync(repo.journalFile, o.kind === 'torn' ? serializeEntries([first]) : serializeEntries(batch));
}

describe('the journal carries its index', () => {
  it('its end answers what a fold over every line answers, after every command (150 random histories, torn batches and garbage included)', () => {
    let checks = 0;
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 40 }), (ops) => {
        const repo = freshRepo();
        for (const o of ops) {
          write(repo, o);
          const head = readJournalHead(repo.journalFile);
          if (readJournal(repo.journalFile, 'j').entries.length === 0) continue;
          expect(fromEnd(repo.journalFile)).toEqual(derived(repo.journalFile));
          // `check` folds the events it read whole, and finds nothing to say.
          expect(carriedIndexProblem(repo.journalFile, 'j', readJournal(repo.journalFile, 'j').entries)).toBeUndefined();
          expect(head.index!.bytesAfter).toBeLessThan(JOURNAL_INDEX_CARRY_BYTES + 2 * 20_500);
          checks++;
        }
      }),
      { numRuns: 150 },
    );
    console.log(`carried index: ${checks} ends checked against a whole fold`);
  });

  it('a journal an older autopilot wrote (no copies) gets one at the first write, derived from every line; the cache is not needed after', () => {
    const repo = freshRepo();
    const old = Array.from({ length: 3000 }, (_, i) => ({
      ...at,
      seq: i + 1,
      step: 1 + (i % 4),
      cycle: 1,
      event: i % 10 === 0 ? 'step_skipped' : 'substep',
      by: 'agent',
      reason: 'old',
      pointer,
    }));
    let prev: string | undefined;
    const text = old.map((e) => {
      const line = JSON.stringify(prev ? { prev, ...e } : e);
      prev = chainHash(line);
      return line;
    });
    writeFileSync(repo.journalFile, `${text.join('\n')}\n`);
    expect(readJournalHead(repo.journalFile).index).toBeUndefined();
    write(repo, { kind: 'noise', step: 1, cycle: 1, pad: 0 });
    expect(fromEnd(repo.journalFile)).toEqual(derived(repo.journalFile));
    expect((fromEnd(repo.journalFile) as JournalIndex).steps['f|1']).toMatchObject({ w: 'skipped' });
  });

  it('a copy a hand edit made unreadable is passed over for the one before it; an edit before the end breaks the chain, and the end answers nothing', () => {
    const repo = freshRepo();
    write(repo, { kind: 'skip', step: 2, cycle: 1, pad: 0 });
    // Past the carrying distance: the next batch carries the index again.
    write(repo, { kind: 'noise', step: 1, cycle: 1, pad: JOURNAL_INDEX_CARRY_BYTES - 500 });
    expect(readJournal(repo.journalFile, 'j').entries.filter((e) => e.journal_index !== undefined)).toHaveLength(2);
    // The newest copy (the last line: no line after it names it) edited into a shape autopilot never writes.
    const text = readFileSync(repo.journalFile, 'utf8');
    const facts = '"f|2":{"c":{"1":{"w":"skipped"}},"w":"skipped"}';
    const at = text.lastIndexOf(facts);
    const edited = `${text.slice(0, at)}"f|2":7${text.slice(at + facts.length)}`;
    expect(text.indexOf('\n', at)).toBe(text.length - 1);
    writeFileSync(repo.journalFile, edited);
    expect((fromEnd(repo.journalFile) as JournalIndex).steps['f|2']).toMatchObject({ w: 'skipped' });
    expect(fromEnd(repo.journalFile)).toEqual(derived(repo.journalFile));
    // Edited into a shape autopilot writes but the events do not say (the waiver gone): every reader would trust it; check says so.
    writeFileSync(repo.journalFile, `${text.slice(0, at)}"f|0":{"c":{}}${text.slice(at + facts.length)}`);
    expect(fromEnd(repo.journalFile)).not.toEqual(derived(repo.journalFile));
    expect(carriedIndexProblem(repo.journalFile, 'j', readJournal(repo.journalFile, 'j').entries)).toMatchObject({
      file: 'j',
      message: expect.stringContaining('is not what the events before it say') as unknown,
    });
    writeFileSync(repo.journalFile, edited);
    // One more batch: the edited line is no longer the last, and the chain names what it said before the edit.
    write(repo, { kind: 'force', step: 3, cycle: 1, pad: 0 });
    const lines = readFileSync(repo.journalFile, 'utf8').split('\n');
    lines[0] = lines[0]!.replace('"reason":"r"', '"reason":"edited"');
    writeFileSync(repo.journalFile, lines.join('\n'));
    expect(readJournalHead(repo.journalFile).index).toBeUndefined();
  });
});
