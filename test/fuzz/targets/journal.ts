/**
 * Journal lines in process: events the engine writes, mutated, and valid
 * JSON that is not an event (`{}`, `null`, deep arrays). Every reader must
 * skip what is not an event, name it, and never throw; the tail reader must
 * agree with the whole read.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readJournalHead } from '../../../src/io/journal-head.js';
import { lastEntries, readJournal } from '../../../src/io/journal.js';
import { saveText, type Target, type Verdict } from '../harness.js';
import { mutate } from '../mutate.js';
import type { Rng } from '../rng.js';

const dir = mkdtempSync(join(tmpdir(), 'autopilot-fuzz-journal-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
let n = 0;

function event(r: Rng, seq: number): string {
  const e: Record<string, unknown> = {
    seq,
    at: '2026-11-26T00:00:00.000Z',
    session: r.pick(['local', 'a\nb', '\u001b[31m']),
    event: r.pick(['step_started', 'step_completed', 'step_failed', 'substep', 'future_event']),
    flow: 'greenfield',
    cycle: 1 + r.int(3),
    step: r.chance(0.1) ? 'done' : 1 + r.int(10),
    name: 'Plan',
    index: 2,
    status: 'in_progress',
    retry_count: r.int(4),
  };
  if (r.chance(0.7)) e.pointer = { flow: 'greenfield', step: 3, name: 'Plan', status: 'in_progress', sub_step: '0', retry_count: 0, cycle: 1 };
  return JSON.stringify(e);
}

const NOT_EVENTS = [
  '{}',
  'null',
  '{"at":1}',
  '[1,2]',
  '"text"',
  '{"event":"x","flow":1}',
  `${'['.repeat(3000)}${']'.repeat(3000)}`,
  '{"seq":-1,"event":"a","flow":"f","cycle":1,"step":1,"at":"","session":""}',
];

function generate(r: Rng): string {
  const lines: string[] = [];
  const count = 1 + r.int(30);
  for (let i = 1; i <= count; i++) lines.push(r.chance(0.15) ? r.pick(NOT_EVENTS) : event(r, i));
  let text = lines.join('\n') + (r.chance(0.8) ? '\n' : '');
  if (r.chance(0.4)) text = mutate(text, r).text;
  return text;
}

function run(text: string): Verdict {
  const file = join(dir, `j-${n++}.jsonl`);
  writeFileSync(file, text);
  try {
    const whole = readJournal(file, 'journal.jsonl');
    if (whole.problems.some((p) => p.file !== 'journal.jsonl' || !(Number.isInteger(p.line) && p.line! >= 1)))
      return { kind: 'crash', detail: 'a problem without file and line' };
    const tail = lastEntries(file, 5);
    const expected = whole.entries.slice(-5);
    if (JSON.stringify(tail) !== JSON.stringify(expected)) return { kind: 'crash', detail: 'the tail reader disagrees with the whole read' };
    readJournalHead(file);
    return whole.problems.length === 0 ? { kind: 'accepted' } : { kind: 'refused' };
  } catch (error) {
    return { kind: 'crash', detail: String(error) };
  } finally {
    rmSync(file, { force: true });
  }
}

export const journalTarget: Target<string> = {
  name: 'journal',
  share: 0.2,
  concurrency: 1,
  generate,
  run,
  save: (text, out) => saveText(out, 'journal.jsonl', text),
};
