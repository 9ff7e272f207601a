/**
 * Many processes on one repository at once: the lock serialises every
 * read-decide-write, so the journal stays whole and numbered, nothing a
 * command reported as written is lost, and the pointer is what the journal
 * says. And eight `done` at once on one step complete it exactly once.
 */
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/engine.js';
import { thisMachine } from '../../src/io/machine.js';
import {
  builtFlow,
  cli,
  ctxOf,
  entries,
  freshDir,
  journalEndsWhole,
  journalLines,
  loadApp,
  LOCK,
  pointerRecordOf,
  positionOfRecord,
  readPointerFile,
  writeStepFiles,
  type Entry,
} from '../helpers/faults.js';

const app = await loadApp();
const flow = builtFlow('greenfield');
const WORKER = join(import.meta.dirname, 'swarm-worker.mjs');
const APP = join(ROOT, 'dist', 'app.js');

interface Answer {
  op: { type: string; text?: string; reason?: string };
  exit: number;
  outcome?: string;
  error?: { code: string; message: string };
  written: { seq: number; event: string }[];
}

/** Starts `n` workers, lets them all import, then tells them all to go at once. */
async function swarm(dir: string, n: number, count: number, session: string): Promise<Answer[][]> {
  const children = Array.from({ length: n }, (_, i) =>
    spawn(process.execPath, [WORKER, APP, dir, String(i), String(count), String(1000 + i * 7919), session], { stdio: ['pipe', 'pipe', 'pipe'] }),
  );
  const outputs = children.map((child) => {
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const ready = new Promise<void>((resolve, reject) => {
      const check = () => (out.startsWith('ready\n') ? resolve() : undefined);
      child.stdout.on('data', check);
      child.on('close', () => reject(new Error(`a worker ended before it was ready: ${err}`)));
    });
    const done = new Promise<Answer[]>((resolve, reject) =>
      child.on('close', (code) => {
        if (code !== 0) return reject(new Error(`a worker exited ${code}: ${err}`));
        resolve(JSON.parse(out.slice('ready\n'.length)) as Answer[]);
      }),
    );
    return { ready, done };
  });
  await Promise.all(outputs.map((o) => o.ready));
  for (const child of children) child.stdin.write('go\n');
  return Promise.all(outputs.map((o) => o.done));
}

/** Status and retry count of one step, from its journal events alone. */
function replayStep(list: Entry[], step: number): { status: string; retry: number } {
  let status = 'not_started';
  let retry = 0;
  for (const e of list) {
    if (e.step !== step) continue;
    if (e.event === 'step_started' || e.event === 'substep') status = 'in_progress';
    else if (e.event === 'step_failed') {
      retry++;
      status = retry >= 3 ? 'failed' : 'not_started';
    } else if (e.event === 'failure_acknowledged') {
      retry = 0;
      status = 'not_started';
    }
  }
  return { status, retry };
}

describe('16 processes × 50 transitions on one repository', () => {
  const WORKERS = 16;
  const EACH = 50;

  it(`${WORKERS} × ${EACH}: every line whole, seq 1..N, N = what the workers were told was written`, { timeout: 120_000 }, async () => {
    const dir = freshDir();
    const init = await app.runInit(ctxOf(dir, 'swarm'), 'greenfield');
    const started = Date.now();
    const answers = (await swarm(dir, WORKERS, EACH, 'swarm')).flat();
    const ms = Date.now() - started;

    // Every journal line parses: no torn line, no two events glued on one line.
    const lines = journalLines(dir);
    expect(
      lines.filter((l) => !l.entry),
      'lines that are not one JSON event',
    ).toEqual([]);
    expect(journalEndsWhole(dir)).toBe(true);
    const list = entries(dir);
    // seq runs 1..N with no gap and no repeat.
    expect(list.map((e) => e.seq)).toEqual(list.map((_, i) => i + 1));
    const reported = init.written.entries.length + answers.reduce((n, a) => n + a.written.length, 0);
    expect(list.length, 'journal entries = entries the commands reported written').toBe(reported);
    // Every seq a worker was told it wrote is in the journal, with its event.
    const bySeq = new Map(list.map((e) => [e.seq, e]));
    for (const a of answers) for (const w of a.written) expect(bySeq.get(w.seq)?.event).toBe(w.event);

    // Exits: 0, 2 or 3 only.
    const exits: Record<number, number> = {};
    for (const a of answers) exits[a.exit] = (exits[a.exit] ?? 0) + 1;
    expect(
      answers.filter((a) => ![0, 2, 3].includes(a.exit)),
      'answers with another exit',
    ).toEqual([]);

    // Every substep/fail that answered 0 and was not a duplicate has its line.
    const recorded = answers.filter((a) => a.exit === 0 && a.outcome !== 'duplicate' && (a.op.type === 'substep' || a.op.type === 'fail'));
    for (const a of recorded) {
      const line =
        a.op.type === 'substep'
          ? list.find((e) => e.event === 'substep' && e.sub_step === a.op.text)
          : list.find((e) => e.event === 'step_failed' && e.reason === a.op.reason);
      expect(line, `${a.op.type} ${a.op.text ?? a.op.reason} answered ${a.outcome} but is not in the journal`).toBeDefined();
    }

    // The pointer is the journal's last record, and a replay of the journal.
    const pointer = readPointerFile(dir)!;
    const last = list[list.length - 1]!;
    expect(pointer.record?.seq).toBe(last.seq);
    expect(positionOfRecord(last.pointer)).toEqual(pointerRecordOf(pointer));
    const replay = replayStep(list, 1);
    expect({ status: pointer.position.status, retry: pointer.position.retryCount }).toEqual(replay);

    const outcomes: Record<string, number> = {};
    for (const a of answers) outcomes[`${a.op.type}:${a.outcome ?? a.error?.code}`] = (outcomes[`${a.op.type}:${a.outcome ?? a.error?.code}`] ?? 0) + 1;
    console.log(
      `swarm: ${WORKERS} processes × ${EACH} = ${answers.length} transitions in ${(ms / 1000).toFixed(1)} s; journal seq 1..${list.length} ` +
        `(init ${init.written.entries.length} + workers ${reported - init.written.entries.length}); exits ${JSON.stringify(exits)}; ` +
        `${recorded.length} substep/fail lines matched; pointer ${pointer.position.status}, retry ${pointer.position.retryCount}\n  outcomes ${JSON.stringify(outcomes)}`,
    );
  });
});

describe('8 concurrent `done` on one step', () => {
  const TRIALS = 10;
  const AT_ONCE = 8;

  it(`${TRIALS} trials × ${AT_ONCE} processes: step 1 completed exactly once each time`, { timeout: 120_000 }, async () => {
    let completedOnce = 0;
    const exits: Record<number, number> = {};
    const outcomes: Record<string, number> = {};
    /** Refusals naming both steps: aimed at step 1, which the work had left. */
    let moved = 0;
    /** Refusals naming only step 2: the process started after step 1 was completed, so it was aimed at step 2. */
    const late = new Set<string>();
    let lateCount = 0;
    for (let trial = 0; trial < TRIALS; trial++) {
      const dir = freshDir();
      await app.runStep(ctxOf(dir), { event: { type: 'next' } });
      writeStepFiles(dir, flow.steps[0]!.doneWhen);
      const runs = await Promise.all(Array.from({ length: AT_ONCE }, () => cli(dir, ['done', '--json'])));
      const list = entries(dir);
      const completed = list.filter((e) => e.event === 'step_completed');
      expect(
        completed.map((e) => e.step),
        'step_completed events, by step',
      ).toEqual([1]);
      for (const r of runs) {
        exits[r.code ?? -1] = (exits[r.code ?? -1] ?? 0) + 1;
        const outcome = String(r.json?.outcome ?? (r.json?.error as { code?: string } | undefined)?.code);
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
        expect([0, 2], `${r.stdout}${r.stderr}`).toContain(r.code);
        if (r.code === 0) expect(['advanced', 'duplicate']).toContain(outcome);
        if (r.code === 2) {
          const message = String((r.json?.error as { message?: string } | undefined)?.message);
          // A refusal names the step the work is at, and nothing was recorded for it.
          expect(message).toMatch(/step 2 \(Research\)/);
          if (/step 1 \(Problem\)/.test(message)) moved++;
          else {
            late.add(message);
            lateCount++;
          }
        }
      }
      if (completed.length === 1) completedOnce++;
      expect(journalLines(dir).filter((l) => !l.entry)).toEqual([]);
      expect(list.map((e) => e.seq)).toEqual(list.map((_, i) => i + 1));
    }
    console.log(
      `${completedOnce} of ${TRIALS} trials completed the step once; exits ${JSON.stringify(exits)}; outcomes ${JSON.stringify(outcomes)}; ` +
        `refusals naming step 1 and step 2: ${moved}; refusals naming only step 2 (process started after the completion): ${lateCount}` +
        (late.size ? ` — "${[...late].join('" | "')}"` : ''),
    );
    expect(completedOnce).toBe(TRIALS);
  });

  it(`${AT_ONCE} processes that all saw step 1 before any could act: one completes it, the others answer duplicate`, { timeout: 60_000 }, async () => {
    const dir = freshDir();
    await app.runStep(ctxOf(dir), { event: { type: 'next' } });
    writeStepFiles(dir, flow.steps[0]!.doneWhen);
    // Hold the lock as a live process of this machine, so every `done` reads its target and then waits.
    const lock = join(dir, LOCK);
    const { host, machine } = thisMachine();
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host, machine, session: 'test', at: new Date().toISOString(), nonce: 'held-by-test' }));
    const pending = Array.from({ length: AT_ONCE }, () => cli(dir, ['done', '--json']));
    await new Promise((resolve) => setTimeout(resolve, 2500));
    rmSync(lock);
    const runs = await Promise.all(pending);
    const outcomes = runs.map((r) => `${r.code}:${String(r.json?.outcome)}`).sort();
    console.log(`lock held while ${AT_ONCE} \`done\` started: ${outcomes.join(', ')}`);
    expect(outcomes).toEqual(['0:advanced', ...Array.from({ length: AT_ONCE - 1 }, () => '0:duplicate')]);
    expect(entries(dir).filter((e) => e.event === 'step_completed')).toHaveLength(1);
  });

  // BUG (same root as the retry bug, src/app/step/run-step.ts aimedTarget + peekPosition): a command is aimed
  // at the step that is current when its process starts. A second window of the same session, handed
  // step 1 by the same `next`, whose `done` starts a moment after the first window's `done` committed,
  // is aimed at step 2 and told "step 2 (Research) is not done" — nothing says step 1 is already
  // complete. The 8-at-once trial above shows it whenever a process starts late.
  it('a `done` for step 1 arriving just after another completed step 1 is answered about step 1', async () => {
    const dir = freshDir();
    await app.runStep(ctxOf(dir), { event: { type: 'next' } });
    writeStepFiles(dir, flow.steps[0]!.doneWhen);
    expect((await cli(dir, ['done', '--json'])).json?.outcome).toBe('advanced');
    const second = await cli(dir, ['done', '--json']);
    const message = String((second.json?.error as { message?: string } | undefined)?.message ?? second.json?.message);
    expect(second.json?.outcome === 'duplicate' || /step 1 \(Problem\)/.test(message), second.stdout).toBe(true);
  });
});
