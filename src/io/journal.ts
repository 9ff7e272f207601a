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

/** What only the journal can tell about a flow's steps in one cycle. */
export interface JournalEvidence {
  /** Steps skipped on purpose, or forced done by a person: the evidence the folder cannot show. */
  waivers: Map<number, Waiver>;
  /** Steps in a repeated round: the files that existed when the round began. */
  rounds: Map<number, string[]>;
}

/**
 * One pass over the journal for one flow and cycle. `perCycle` tells which
 * steps belong to a cycle; the others (before a loop) count from any cycle.
 * Lines are filtered as text before parsing, so a long journal stays cheap.
 */
export function readJournalEvidence(file: string, flow: string, cycle: number, perCycle: (step: number) => boolean): JournalEvidence {
  const found: JournalEvidence = { waivers: new Map(), rounds: new Map() };
  for (const line of readText(file).split('\n')) {
    if (!/"(step_skipped|step_completed|decision_answered)"/.test(line)) continue;
    let e: StampedEntry;
    try {
      e = JSON.parse(line) as StampedEntry;
    } catch {
      continue;
    }
    if (e.flow !== flow || typeof e.step !== 'number' || (perCycle(e.step) && e.cycle !== cycle)) continue;
    if (e.event === 'step_skipped' && e.by !== 'condition') found.waivers.set(e.step, 'skipped');
    if (e.event === 'step_completed') {
      found.rounds.delete(e.step);
      if (e.forced === true) found.waivers.set(e.step, 'forced');
    }
    if (e.event === 'decision_answered' && e.then === 'repeat' && Array.isArray(e.round_files)) found.rounds.set(e.step, e.round_files as string[]);
  }
  return found;
}
