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
import { chainHash } from '../src/formats/journal-line.js';

const ARTIFACTS = [
  '00_problem/problem.md',
  '00_problem/acceptance_criteria.md',
  '01_solution/solution_draft_01.md',
  '01_solution/solution.md',
  '02_document/architecture.md',
  '02_tasks/_index.md',
  '03_implementation/implementation_report.md',
  '03_implementation/test_report.md',
];

/** Walks a fresh repository to step 9 through the real CLI: a repeated round of Research, the boundary, a skipped Security Audit. */
export function walkToStep9(cli: string, dir: string): void {
  const run = (...args: string[]) => {
    const r = spawnSync(process.execPath, [cli, '-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, AUTOPILOT_SESSION: 'bench' } });
    if (r.status !== 0 && r.status !== 3) throw new BenchFailure(`long-history setup: autopilot ${args.join(' ')} exited ${r.status}\n${r.stderr}${r.stdout}`);
  };
  const write = (rel: string) => {
    mkdirSync(dirname(join(dir, '_docs', rel)), { recursive: true });
    writeFileSync(join(dir, '_docs', rel), `# ${rel}\n\nWritten for the bench.\n`);
  };
  run('init', '--flow', 'greenfield');
  for (const rel of ARTIFACTS.slice(0, 2)) write(rel);
  run('next'); // step 1
  run('done');
  write(ARTIFACTS[2]!);
  run('next'); // step 2
  run('done'); // decision
  run('decide', 'A'); // another round: needs a new draft
  write('01_solution/solution_draft_02.md');
  run('next');
  run('done');
  run('decide', 'B');
  // Plan (two files), (UI Design passed over), Decompose (a boundary), Implement, Run Tests: each step's files as it is done.
  for (const files of [ARTIFACTS.slice(3, 5), ARTIFACTS.slice(5, 6), ARTIFACTS.slice(6, 7), ARTIFACTS.slice(7, 8)]) {
    run('next');
    files.forEach(write);
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
 * sub-steps, failures and acknowledgements, skips and repeated rounds.
 */
export function prependHistory(dir: string, count: number): void {
  const journalFile = join(dir, '_docs/_autopilot/journal.jsonl');
  const pointerFile = join(dir, '_docs/_autopilot_state.md');
  const recent = readFileSync(journalFile, 'utf8').trimEnd().split('\n');
  const fd = openSync(journalFile, 'w');
  try {
    const at = '2025-01-01T00:00:00.000Z';
    const line = (seq: number, event: string, step: number, name: string, extra: string) =>
      `{"seq":${seq},"at":"${at}","session":"old-${seq % 7}","event":"${event}","flow":"greenfield","cycle":1,"step":${step},"name":"${name}","index":${step - 1},"status":"in_progress","retry_count":0${extra}}`;
    const kinds = [
      (s: number) => line(s, 'step_started', 6, 'Implement', ',"attempt":1'),
      (s: number) => line(s, 'substep', 6, 'Implement', `,"sub_step":"2 — Code and tests (batch ${s % 40})"`),
      (s: number) => line(s, 'step_failed', 7, 'Run Tests', ',"reason":"a flaky test","attempt":1'),
      (s: number) => line(s, 'failure_acknowledged', 7, 'Run Tests', ''),
      (s: number) => line(s, 'step_skipped', 8, 'Security Audit', ',"by":"agent","reason":"prototype"'),
      (s: number) =>
        line(
          s,
          'decision_answered',
          2,
          'Research',
          ',"decision":"research-round","option":"A","then":"repeat","round_files":["01_solution/solution_draft_01.md"]',
        ),
      (s: number) => line(s, 'step_completed', 2, 'Research', ''),
    ];
    // Each line names the one before it (`prev`), as autopilot writes them: a long history is one chain, no merge in it.
    let prev: string | undefined;
    const chained = (text: string) => {
      const out = prev === undefined ? text : `{"prev":"${prev}",${text.slice(1)}`;
      prev = chainHash(out);
      return out;
    };
    let buffer: string[] = [];
    for (let seq = 1; seq <= count; seq++) {
      buffer.push(chained(kinds[seq % kinds.length]!(seq)));
      if (buffer.length === 10_000) {
        writeSync(fd, buffer.join('\n') + '\n');
        buffer = [];
      }
    }
    const renumbered = recent.map((l) => {
      const { prev: _, ...e } = JSON.parse(l) as { prev?: string; seq: number };
      return chained(JSON.stringify({ ...e, seq: e.seq + count }));
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
