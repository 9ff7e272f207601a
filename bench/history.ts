/**
 * A long history for the bench: the same repository twice, at greenfield
 * step 9 after a repeated research round and a skipped optional step — once
 * with the journal those commands wrote, once with a million older events in
 * front of it. Everything the engine reads but the journal's length is equal,
 * so the two must answer alike, and cost alike.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BenchFailure } from './harness.js';
import { carryIndex, emptyJournalIndex, indexEvent } from '../src/formats/journal-index.js';
import { chainHash, type StampedEntry } from '../src/formats/journal-line.js';
import { JOURNAL_INDEX_CARRY_BYTES } from '../src/limits.js';
import { GREENFIELD_1_TO_7 } from '../test/helpers/greenfield.js';
import { hasResult, stepEvidence, testProject } from '../test/helpers/templates.js';

/** Walks a fresh repository to step 9 through the real CLI: a repeated round of Research, the boundary, a skipped Security Audit. */
export function walkToStep9(cli: string, dir: string): void {
  const run = (...args: string[]) => {
    const r = spawnSync(process.execPath, [cli, ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, AUTOPILOT_SESSION: 'bench' } });
    if (r.status !== 0 && r.status !== 3) throw new BenchFailure(`long-history setup: autopilot ${args.join(' ')} exited ${r.status}\n${r.stderr}${r.stdout}`);
  };
  // Each file as its skill says (its template filled); a report with a Result also needs the run autopilot exec records.
  let needsRun = false;
  const write = (rel: string) => {
    for (const [path, text] of Object.entries(stepEvidence([`_docs/${rel}`]))) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
      needsRun ||= hasResult(text);
    }
  };
  run('init', '--flow', 'greenfield');
  // Each step's files are written after its `next`: done needs them new or changed in the attempt.
  run('next'); // step 1
  for (const rel of GREENFIELD_1_TO_7.slice(0, 2)) write(rel);
  run('done');
  run('next'); // step 2
  write(GREENFIELD_1_TO_7[2]!);
  run('done'); // decision
  run('decide', 'A'); // another round: needs a new draft
  run('next');
  write('01_solution/solution_draft_02.md');
  run('done');
  run('decide', 'B');
  // Plan (two files), (UI Design passed over), Decompose (a boundary), Implement, Run Tests: each step's files as it is done.
  for (const files of [GREENFIELD_1_TO_7.slice(3, 5), GREENFIELD_1_TO_7.slice(5, 6), GREENFIELD_1_TO_7.slice(6, 7), GREENFIELD_1_TO_7.slice(7, 8)]) {
    run('next');
    files.forEach(write);
    if (needsRun) {
      testProject(dir);
      run('exec');
    }
    needsRun = false;
    run('done');
    // The session boundary after Decompose: go on in this session.
    if (files.includes('02_tasks/_index.md')) run('decide', 'B');
  }
  run('next'); // step 8
  run('skip', '--reason', 'no audit in the bench');
  run('next'); // step 9, in progress
  run('substep', '2 — Baseline');
}

/**
 * Puts `count` older events in front of the journal, renumbering what follows
 * and the pointer's marker, as a long-lived project would have them: attempts,
 * sub-steps, failures and acknowledgements, skips and repeated rounds. Written
 * as this autopilot writes: each event a batch of its own (it carries the
 * pointer it left), each line naming the one before (`prev`), and the journal
 * index carried every `JOURNAL_INDEX_CARRY_BYTES`, the recent lines' copies
 * brought up to date: so the end of the file answers for the million events
 * before it, as it would in the project.
 */
export function prependHistory(dir: string, count: number): void {
  const journalFile = join(dir, '_docs/_autopilot/journal.jsonl');
  const pointerFile = join(dir, '_docs/_autopilot_state.md');
  const recent = readFileSync(journalFile, 'utf8').trimEnd().split('\n');
  const fd = openSync(journalFile, 'w');
  try {
    const at = '2025-01-01T00:00:00.000Z';
    const index = emptyJournalIndex();
    const kinds: { event: string; step: number; name: string; status: string; details: Record<string, unknown> }[] = [
      { event: 'step_started', step: 6, name: 'Implement', status: 'in_progress', details: { attempt: 1 } },
      { event: 'substep', step: 6, name: 'Implement', status: 'in_progress', details: { sub_step: '2 — Code and tests' } },
      { event: 'step_failed', step: 7, name: 'Run Tests', status: 'failed', details: { reason: 'a flaky test', attempt: 1 } },
      { event: 'failure_acknowledged', step: 7, name: 'Run Tests', status: 'in_progress', details: {} },
      { event: 'step_skipped', step: 8, name: 'Security Audit', status: 'skipped', details: { by: 'agent', reason: 'prototype' } },
      {
        event: 'decision_answered',
        step: 2,
        name: 'Research',
        status: 'in_progress',
        details: { decision: 'research-round', option: 'A', then: 'repeat', round_files: ['01_solution/solution_draft_01.md'] },
      },
      { event: 'step_completed', step: 2, name: 'Research', status: 'completed', details: {} },
    ];
    const old = (seq: number): StampedEntry => {
      const k = kinds[seq % kinds.length]!;
      const position = { flow: 'greenfield', cycle: 1, step: k.step, name: k.name, index: k.step - 1, status: k.status, retry_count: 0 };
      const pointer = { flow: 'greenfield', step: k.step, name: k.name, status: k.status, sub_step: '0', retry_count: 0, cycle: 1 };
      return { seq, at, session: `old-${seq % 7}`, event: k.event, ...position, ...k.details, pointer } as unknown as StampedEntry;
    };
    // Each line names the one before it (`prev`): a long history is one chain, no merge in it.
    let prev: string | undefined;
    // Bytes since the last line that carried the index (none yet: the first batch carries it).
    let sinceCarried = Infinity;
    const line = (e: StampedEntry, carriedBefore: boolean) => {
      const { prev: _p, journal_index: _j, ...rest } = e;
      indexEvent(index, e);
      const closes = e.pointer !== undefined || e.event === 'progress_commit_made';
      const carry = closes && (carriedBefore || sinceCarried >= JOURNAL_INDEX_CARRY_BYTES);
      const text = JSON.stringify({ ...(prev === undefined ? {} : { prev }), ...rest, ...(carry ? { journal_index: carryIndex(index) } : {}) });
      prev = chainHash(text);
      sinceCarried = carry ? 0 : sinceCarried + text.length + 1;
      return text;
    };
    let buffer: string[] = [];
    for (let seq = 1; seq <= count; seq++) {
      buffer.push(line(old(seq), false));
      if (buffer.length === 10_000) {
        writeSync(fd, buffer.join('\n') + '\n');
        buffer = [];
      }
    }
    // The recent lines, renumbered; where the walk carried the index, the copy now covers the history in front too.
    const renumbered = recent.map((l) => {
      const e = JSON.parse(l) as StampedEntry;
      return line({ ...e, seq: e.seq + count } as StampedEntry, e.journal_index !== undefined);
    });
    writeSync(fd, [...buffer, ...renumbered].join('\n') + '\n');
  } finally {
    closeSync(fd);
  }
  const pointer = readFileSync(pointerFile, 'utf8');
  const marked = pointer.replace(/ · event (\d+) · /, (_m, seq: string) => ` · event ${Number(seq) + count} · `);
  if (marked === pointer) throw new BenchFailure('long-history setup: the pointer carries no event marker');
  writeFileSync(pointerFile, marked);
}
