/**
 * The chain on real files (rule 11): what `commit` stamps (`prev`), the seams
 * the journal's end shows after a union merge (`readJournalHead`), what the
 * whole-journal reader (`check`, `log`) names, and that the end stays a
 * bounded read on a journal four times the widest window (`npm run bench`
 * times a million events).
 */
import { appendFileSync, mkdtempSync, openSync, closeSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { stampEntries } from '../../../src/app/transaction/commit.js';
import { chainHash, entry, judgeLine, prevOf, serializeEntries, type JournalEntry, type StampedEntry } from '../../../src/formats/journal-line.js';
import type { Position } from '../../../src/formats/pointer/position.js';
import { readJournalHead } from '../../../src/io/journal-head.js';
import { readJournal, readLinesBackwards } from '../../../src/io/journal.js';
import { JOURNAL_CHAIN_WINDOW_BYTES, JOURNAL_FORK_WINDOW_BYTES, JOURNAL_LINE_MAX_BYTES } from '../../../src/limits.js';

const dir = mkdtempSync(join(tmpdir(), 'autopilot-chain-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fileOf = (lines: string[]) => {
  const file = join(dir, `journal-${n++}.jsonl`);
  writeFileSync(file, lines.map((l) => `${l}\n`).join(''));
  return file;
};

const P = (step: number, status: Position['status'] = 'in_progress', extra: Partial<Position> = {}): Position => ({
  flow: 'greenfield',
  step,
  name: ['Problem', 'Research', 'Plan'][step - 1] ?? 'Step',
  status,
  subStep: '0',
  retryCount: 0,
  cycle: 1,
  ...extra,
});

/** One command's batch appended after `lines` (a branch's journal as it stands), stamped as `commit` stamps it. */
function command(lines: string[], entries: JournalEntry[], pointer: Position, minute: number, unsettled?: string): string[] {
  const last = lines.at(-1);
  const lastSeq = Math.max(0, ...lines.map((l) => ('entry' in judgeLine(l) ? (judgeLine(l) as { entry: StampedEntry }).entry.seq : 0)));
  const writer = { session: 'local', now: () => new Date(Date.UTC(2026, 10, 26, 10, minute)) };
  const chain = { ...(last !== undefined ? { prev: chainHash(last) } : {}), ...(unsettled ? { unsettled } : {}) };
  const stamped = stampEntries(entries, lastSeq, writer, `cmd:${minute}`, pointer, undefined, chain);
  return [...lines, ...serializeEntries(stamped).trimEnd().split('\n')];
}

const started = (step: number) => entry('step_started', P(step), { attempt: 1 });
const sub = (step: number, text: string) => entry('substep', P(step, 'in_progress', { subStep: text }), { sub_step: text });
const completed = (step: number) => entry('step_completed', P(step, 'completed'));
const failed = (step: number) => entry('step_failed', P(step, 'not_started', { retryCount: 1 }), { reason: 'red', attempt: 1 });

/** A run begun and step 1 started: the common journal of both branches. */
const BASE = command(
  command(
    [],
    [entry('run_started', P(1, 'not_started'), { source: 'init', flow_hash: 'h', flow_file: 'builtin:greenfield', pinned: {} as never })],
    P(1, 'not_started'),
    0,
  ),
  [started(1)],
  P(1),
  1,
);
const sideA = command(
  command(BASE, [sub(1, '1 — Interview')], P(1, 'in_progress', { subStep: '1 — Interview' }), 2),
  [sub(1, '2 — Write')],
  P(1, 'in_progress', { subStep: '2 — Write' }),
  3,
).slice(BASE.length);
const sideB = command(BASE, [completed(1)], P(2, 'not_started'), 4).slice(BASE.length);
/** What `git merge` with `merge=union` leaves: the common lines, ours, then theirs. */
const merged = (ours: string[], theirs: string[]) => [...BASE, ...ours, ...theirs];

describe('the writer: `prev`', () => {
  it('names the file’s last line for the first entry, the entry before for the others; none on a journal’s first line', () => {
    const lines = command(BASE, [completed(1), entry('step_started', P(2), { attempt: 1 })], P(2), 9);
    const parsed = lines.map((l) => (judgeLine(l) as { entry: StampedEntry }).entry);
    expect(parsed[0]!.prev).toBeUndefined();
    for (let i = 1; i < lines.length; i++) expect(parsed[i]!.prev).toBe(chainHash(lines[i - 1]!));
    // Written first, so the end of the journal is read without parsing every line.
    expect(lines[1]!.startsWith(`{"prev":"${chainHash(lines[0]!)}","seq":2,`)).toBe(true);
    expect(lines.slice(1).map(prevOf)).toEqual(parsed.slice(1).map((e) => e.prev));
    expect(readJournalHead(fileOf(lines))).toMatchObject({ lastSeq: 4, last: chainHash(lines.at(-1)!) });
    expect(readJournalHead(fileOf(lines)).fork).toBeUndefined();
  });

  it('a `prev` that is not 8 hex digits makes the line not an event', () => {
    const bad = BASE[1]!.replace(/"prev":"[0-9a-f]{8}"/, '"prev":"XYZ"');
    expect(judgeLine(bad)).toEqual({ problem: 'not an event: `prev` is not a chain hash (8 hex digits)' });
  });
});

describe('readJournalHead: a merge is seen', () => {
  it('finds the seam, the fork point, both sides and where both began, whichever way the branches were merged', () => {
    for (const [ours, theirs, A, B] of [
      [sideA, sideB, 'substeps', 'completed'],
      [sideB, sideA, 'completed', 'substeps'],
    ] as const) {
      const head = readJournalHead(fileOf(merged(ours, theirs)));
      const fork = head.fork!;
      expect(fork).toMatchObject({
        forkPoint: chainHash(BASE.at(-1)!),
        seam: chainHash(theirs[0]!),
        seams: [chainHash(theirs[0]!)],
        nested: 0,
        partial: false,
      });
      expect(fork.base).toMatchObject({ seq: 2, pointer: { step: 1, status: 'in_progress' } });
      const kinds = (s: typeof fork.a) => s.events.map((e) => e.event).join(',');
      expect({ A: kinds(fork.a), B: kinds(fork.b) }).toEqual({
        A: A === 'substeps' ? 'substep,substep' : 'step_completed',
        B: B === 'substeps' ? 'substep,substep' : 'step_completed',
      });
      // Sequence numbers repeat across the sides; the next event goes on from the highest.
      expect(fork.a.seqs!.from).toBe(3);
      expect(fork.b.seqs!.from).toBe(3);
      expect(head.lastSeq).toBe(4);
    }
  });

  it('a journal from an older autopilot (no `prev`) is no fork; nor are its lines followed by this one’s', () => {
    const strip = (l: string) => l.replace(/^\{"prev":"[0-9a-f]{8}",/, '{');
    const old = BASE.map(strip);
    expect(readJournalHead(fileOf(old)).fork).toBeUndefined();
    const mixed = command(old, [completed(1)], P(2, 'not_started'), 5);
    expect(readJournalHead(fileOf(mixed))).toMatchObject({ lastSeq: 3 });
    expect(readJournalHead(fileOf(mixed)).fork).toBeUndefined();
    expect(readJournalHead(fileOf(mixed)).broken).toBeUndefined();
    // Two older autopilots' branches merged: no chain to see it by (check names the repeated numbers).
    const oldMerge = [...old, ...sideA.map(strip), ...sideB.map(strip)];
    expect(readJournalHead(fileOf(oldMerge)).fork).toBeUndefined();
    const checked = readJournal(fileOf(oldMerge), 'journal.jsonl', { chain: true });
    expect(checked.problems.map((p) => p.line)).toEqual([5]);
    expect(checked.problems[0]!.message).toContain('sequence numbers repeat or go back');
  });

  it('a line ending in \\r (a checkout that converts line ends), a torn last line, and blank lines break nothing', () => {
    expect(readJournalHead(fileOf(merged(sideB, []).map((l) => `${l}\r`))).fork).toBeUndefined();
    const torn = [...BASE, BASE.at(-1)!.slice(0, 40)];
    const after = command(torn, [completed(1)], P(2, 'not_started'), 6);
    expect(readJournalHead(fileOf(after)).fork).toBeUndefined();
    expect(readJournalHead(fileOf([BASE[0]!, '', '  ', ...BASE.slice(1)])).fork).toBeUndefined();
  });

  it('a `journal_merged` that names the seam settles it; events after it chain on', () => {
    const lines = merged(sideA, sideB);
    const fork = readJournalHead(fileOf(lines)).fork!;
    const settled = command(
      lines,
      [
        entry('journal_merged', P(2, 'not_started'), {
          fork_point: fork.forkPoint,
          seams: fork.seams,
          sides: { A: fork.a.seqs, B: fork.b.seqs },
          settled: 'agreed',
          message: 'm',
        }),
      ],
      P(2, 'not_started'),
      7,
    );
    const head = readJournalHead(fileOf(settled));
    expect(head.fork).toBeUndefined();
    expect(head).toMatchObject({ lastSeq: 5, record: { seq: 5, pointer: { step: 2 } } });
    const later = command(settled, [started(2)], P(2), 8);
    expect(readJournalHead(fileOf(later)).fork).toBeUndefined();
    expect(readJournal(fileOf(later), 'j', { chain: true }).problems).toEqual([]);
  });

  it('events written while a merge was not settled belong to neither side', () => {
    const lines = merged(sideA, sideB);
    const seam = chainHash(sideB[0]!);
    const noted = command(lines, [entry('breadcrumb', P(1), { events: 3 })], P(1), 9, seam);
    const fork = readJournalHead(fileOf(noted)).fork!;
    expect(fork.b.events.map((e) => e.event)).toEqual(['step_completed']);
    expect(readJournalHead(fileOf(noted)).lastSeq).toBe(5);
  });

  it('two journals begun apart (a first line after numbered lines) are a fork with no common line', () => {
    const other = command(
      [],
      [entry('run_started', P(1, 'not_started'), { source: 'init', flow_hash: 'h', flow_file: 'builtin:greenfield', pinned: {} as never })],
      P(1, 'not_started'),
      20,
    );
    const fork = readJournalHead(fileOf([...BASE, ...other])).fork!;
    expect(fork).toMatchObject({ forkPoint: '', partial: false, a: { lines: 2 }, b: { lines: 1 } });
    expect(fork.base).toBeUndefined();
  });

  it('three branches merged one after another: the newest seam, with one more inside side A', () => {
    const sideC = command(BASE, [failed(1)], P(1, 'not_started', { retryCount: 1 }), 30).slice(BASE.length);
    const fork = readJournalHead(fileOf([...BASE, ...sideA, ...sideB, ...sideC])).fork!;
    expect(fork).toMatchObject({ seam: chainHash(sideC[0]!), nested: 1 });
    expect(fork.seams).toHaveLength(2);
  });

  it('a branch forked from inside an unsettled merge’s side A: its seam is seen though its first number follows the line before', () => {
    // Ours: BASE, side A (3, 4), side B (3), not settled; theirs went on from side A's first line (4). Union: ... B3, C4.
    const sideC = command([...BASE, sideA[0]!], [failed(1)], P(1, 'not_started', { retryCount: 1 }), 40).slice(BASE.length + 1);
    const fork = readJournalHead(fileOf([...BASE, ...sideA, ...sideB, ...sideC])).fork!;
    expect(fork).toMatchObject({ seam: chainHash(sideC[0]!), forkPoint: chainHash(sideA[0]!), nested: 1 });
  });

  it('a line changed by hand breaks the chain: said (`broken`), not judged as a fork; the whole read names the line', () => {
    const lines = command(command(BASE, [completed(1)], P(2, 'not_started'), 5), [started(2)], P(2), 6);
    const edited = [...lines];
    edited[2] = edited[2]!.replace('"seq":3', '"seq":30');
    const head = readJournalHead(fileOf(edited));
    expect(head.fork).toBeUndefined();
    expect(head.broken).toMatchObject({ seq: 4 });
    const checked = readJournal(fileOf(edited), 'j', { chain: true });
    // The numbers going back at line 4 are part of that break, not said twice.
    expect(checked.problems.map((p) => [p.line, p.message.slice(0, 30)])).toEqual([[4, 'the chain breaks here: this li']]);
  });

  it('`check`’s whole read names the seam, both sides’ lines and the fork point, until it is settled', () => {
    const checked = readJournal(fileOf(merged(sideA, sideB)), 'journal.jsonl', { chain: true });
    expect(checked.seams).toEqual([{ line: 5, entry: 4, names: chainHash(BASE.at(-1)!), forkLine: 2, seq: 3 }]);
    expect(checked.problems).toEqual([
      expect.objectContaining({
        line: 5,
        message:
          "a merge put another branch's events here: lines 3–4 (side A) and line 5 on (side B) both follow line 2, so their sequence numbers repeat, and no `journal_merged` settles them",
      }),
    ]);
  });
});

describe('readLinesBackwards', () => {
  it('gives every line a forward read gives, newest first, whatever the chunks cut through', () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 40, unit: fc.constantFrom('a', 'é', '—', '😀', ' ', '"') }),
      fc.constant(''),
      fc.constant('x'.repeat(70_000)),
      fc.constant('y'.repeat(JOURNAL_LINE_MAX_BYTES + 1)),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.boolean(), (lines, ended) => {
        const text = lines.join('\n') + (ended ? '\n' : '');
        const file = join(dir, `lines-${n++}.txt`);
        writeFileSync(file, text);
        const want = text
          .split('\n')
          .filter((l) => l.trim() !== '')
          .map((l) => (Buffer.byteLength(l) > JOURNAL_LINE_MAX_BYTES + 1 ? undefined : l))
          .reverse();
        const got: (string | undefined)[] = [];
        readLinesBackwards(file, (l) => void got.push(l), Infinity);
        expect(got).toEqual(want);
      }),
      { numRuns: 60 },
    );
  });
});

/**
 * 100,000 events, about 40 MB: four times the widest window the end is read in (`JOURNAL_FORK_WINDOW_BYTES`), so a
 * read that reached past the windows would show in `bytes`. A million (400 MB written on every unit run) proved no
 * more; `npm run bench` times `status` and `next` on a million-event history.
 */
const EVENTS = 100_000;

describe(`${EVENTS.toLocaleString('en')} events`, () => {
  /** A journal of `count` chained substep events, each its own command's, written in large pieces. */
  function bigJournal(count: number): { file: string; lines: string[] } {
    const file = join(dir, `big-${n++}.jsonl`);
    const fd = openSync(file, 'w');
    let prev = '';
    let buffer: string[] = [];
    const tail: string[] = [];
    for (let seq = 1; seq <= count; seq++) {
      const line =
        `{${prev ? `"prev":"${prev}",` : ''}"seq":${seq},"at":"2026-11-26T10:00:00.000Z","session":"local","key":"substep:greenfield/1/1:a1:${seq}",` +
        `"event":"substep","flow":"greenfield","cycle":1,"step":1,"name":"Problem","index":0,"status":"in_progress","retry_count":0,"sub_step":"${seq} — work",` +
        `"pointer":{"flow":"greenfield","step":1,"name":"Problem","status":"in_progress","sub_step":"${seq} — work","retry_count":0,"cycle":1}}`;
      prev = chainHash(line);
      buffer.push(line);
      if (seq > count - 10) tail.push(line);
      if (buffer.length === 20_000) {
        writeSync(fd, buffer.join('\n') + '\n');
        buffer = [];
      }
    }
    if (buffer.length > 0) writeSync(fd, buffer.join('\n') + '\n');
    closeSync(fd);
    return { file, lines: tail };
  }

  it('the end is read within the chain window, with and without a fork', { timeout: 120_000 }, () => {
    const { file, lines } = bigJournal(EVENTS);
    expect(statSync(file).size).toBeGreaterThan(4 * JOURNAL_FORK_WINDOW_BYTES);
    const timed = () => {
      const runs: number[] = [];
      let head = readJournalHead(file);
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        head = readJournalHead(file);
        runs.push(performance.now() - t);
      }
      return { head, ms: runs.sort((x, y) => x - y)[2]! };
    };
    const { head, ms: plain } = timed();
    expect(head.fork).toBeUndefined();
    expect(head.lastSeq).toBe(EVENTS);
    expect(head.bytes).toBeLessThan(JOURNAL_CHAIN_WINDOW_BYTES + 64 * 1024);

    // Another branch's 3 events, forked 5 events before the end: a union merge appends them.
    const fork = lines[lines.length - 6]!;
    let prev = chainHash(fork);
    const theirs = [1, 2, 3].map((i) => {
      const line = JSON.stringify({
        prev,
        seq: EVENTS - 5 + i,
        at: '2026-11-26T11:00:00.000Z',
        session: 'other',
        ...completed(1),
        pointer: { flow: 'greenfield', step: 2, name: 'Research', status: 'not_started', sub_step: '0', retry_count: 0, cycle: 1 },
      });
      prev = chainHash(line);
      return line;
    });
    appendFileSync(file, theirs.join('\n') + '\n');
    const { head: forked, ms: withFork } = timed();
    expect(forked.fork).toMatchObject({ forkPoint: chainHash(fork), a: { lines: 5 }, b: { lines: 3 } });
    expect(forked.lastSeq).toBe(EVENTS);
    expect(forked.bytes).toBeLessThan(JOURNAL_CHAIN_WINDOW_BYTES + 64 * 1024);
    // What is read is held above (bytes, not time: no timed test in npm test); the figures are printed for docs/performance.md.
    console.log(
      `readJournalHead at ${EVENTS.toLocaleString('en')} events (median of 5): ${plain.toFixed(1)} ms without a fork, ${withFork.toFixed(1)} ms with one (${forked.bytes} bytes read)`,
    );
  });
});
