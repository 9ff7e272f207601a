/**
 * `_docs/_autopilot/journal.jsonl`: append-only, one JSON event a line. Lines
 * are only ever added (one write, then fsync); git merges the file with the
 * union driver, so two branches' histories both survive.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { JournalEntry } from '../engine/journal-entry.js';
import type { Problem } from '../errors.js';

export interface StampedEntry extends JournalEntry {
  at: string;
  session: string;
}

export function stamp(entries: JournalEntry[], session: string, now: Date): StampedEntry[] {
  const at = now.toISOString();
  return entries.map((e) => ({ at, session, ...e }));
}

export function appendJournal(file: string, entries: StampedEntry[]): void {
  if (entries.length === 0) return;
  mkdirSync(dirname(file), { recursive: true });
  const fd = openSync(file, 'a');
  try {
    writeSync(fd, entries.map((e) => JSON.stringify(e)).join('\n') + '\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

export function readJournal(file: string, display: string): { entries: StampedEntry[]; problems: Problem[] } {
  const entries: StampedEntry[] = [];
  const problems: Problem[] = [];
  readText(file)
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      try {
        entries.push(JSON.parse(line) as StampedEntry);
      } catch {
        // A torn last line after a crash, or a bad merge: report it, keep every other line.
        problems.push({ file: display, line: i + 1, message: 'a journal line is not JSON', expected: 'one JSON object a line', received: line.slice(0, 80) });
      }
    });
  return { entries, problems };
}

export type Waiver = 'skipped' | 'forced';

/**
 * Steps of one flow and cycle that were skipped on purpose or forced done by a
 * person: the evidence the folder cannot show. Lines are filtered as text
 * first, so a long journal is not parsed whole on every call.
 */
export function readWaivers(file: string, flow: string, cycle: number): Map<number, Waiver> {
  const waivers = new Map<number, Waiver>();
  for (const line of readText(file).split('\n')) {
    if (!line.includes('"step_skipped"') && !line.includes('"forced":true')) continue;
    let e: StampedEntry;
    try {
      e = JSON.parse(line) as StampedEntry;
    } catch {
      continue;
    }
    if (e.flow !== flow || e.cycle !== cycle || typeof e.step !== 'number') continue;
    if (e.event === 'step_skipped' && e.by !== 'condition') waivers.set(e.step, 'skipped');
    if (e.event === 'step_completed' && e.forced === true) waivers.set(e.step, 'forced');
  }
  return waivers;
}
