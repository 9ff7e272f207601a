/**
 * A command killed after its journal write (or after its pointer write) and
 * run again, as an agent retries a command that never answered, is recorded
 * once: the retry recognises it and answers as the first run would have.
 *
 * Setup runs in-process through `dist/app.js` (fast); the killed command and
 * its retry are the real CLI.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  builtFlow,
  cli,
  ctxOf,
  entries,
  freshDir,
  journalLines,
  LANES,
  LEASE,
  loadApp,
  pool,
  readPointerFile,
  rng,
  seedFromEnv,
  walkTo,
  writeStepFiles,
  CRASH_POINTS,
  type App,
  type CrashAt,
  type Entry,
} from '../helpers/faults.js';

const app: App = await loadApp();
const flow = builtFlow('greenfield');
const filesOf = (step: number) => flow.steps[step - 1]!.doneWhen;

interface Scenario {
  name: string;
  /** Leaves the repository where the command applies. */
  setup: (dir: string) => Promise<void>;
  args: string[];
  /** The journal event the command records, and which of them count. */
  kind: string;
  counts?: (e: Entry) => boolean;
  /** What the retry answers: as the first run would have. */
  exit: 0 | 3;
  outcome: string;
  /** The step the command is for, for the `--step N` variant. */
  step: number;
  /** After the retry, the session boundary has released the lease. */
  leaseReleased?: boolean;
}

const next = (dir: string) => app.runStep(ctxOf(dir), { event: { type: 'next' } });
const fail = (dir: string, reason: string) => app.runStep(ctxOf(dir), { event: { type: 'fail', reason } });
async function atDecision(dir: string) {
  await walkTo(app, dir, 2);
  writeStepFiles(dir, filesOf(2));
  await app.runStep(ctxOf(dir), { event: { type: 'done' } });
}

const SCENARIOS: Scenario[] = [
  {
    name: 'done (step 1, the work moves on)',
    step: 1,
    setup: async (dir) => {
      await walkTo(app, dir, 1);
      writeStepFiles(dir, filesOf(1));
    },
    args: ['done'],
    kind: 'step_completed',
    exit: 0,
    outcome: 'duplicate',
  },
  {
    name: 'done (step 2, stops at the research decision)',
    step: 2,
    setup: async (dir) => {
      await walkTo(app, dir, 2);
      writeStepFiles(dir, filesOf(2));
    },
    args: ['done'],
    kind: 'step_completed',
    exit: 3,
    outcome: 'decision',
  },
  {
    name: 'done (step 5, stops at the session boundary)',
    step: 5,
    setup: async (dir) => {
      await walkTo(app, dir, 5);
      writeStepFiles(dir, filesOf(5));
    },
    args: ['done'],
    kind: 'step_completed',
    exit: 3,
    outcome: 'boundary',
    leaseReleased: true,
  },
  {
    name: 'done (step 3, Plan; UI Design passed over)',
    step: 3,
    setup: async (dir) => {
      await walkTo(app, dir, 3);
      writeStepFiles(dir, filesOf(3));
    },
    args: ['done'],
    kind: 'step_completed',
    exit: 0,
    outcome: 'duplicate',
  },
  {
    name: 'fail (first attempt)',
    step: 1,
    setup: async (dir) => walkTo(app, dir, 1),
    args: ['fail', '--reason', 'tests red'],
    kind: 'step_failed',
    exit: 0,
    outcome: 'duplicate',
  },
  {
    name: 'fail (third attempt: the step is failed)',
    step: 1,
    setup: async (dir) => {
      await walkTo(app, dir, 1);
      await fail(dir, 'attempt 1');
      await next(dir);
      await fail(dir, 'attempt 2');
      await next(dir);
    },
    args: ['fail', '--reason', 'attempt 3'],
    kind: 'step_failed',
    exit: 3,
    outcome: 'failed',
  },
  {
    name: 'skip (optional step 8)',
    step: 8,
    setup: async (dir) => walkTo(app, dir, 8),
    args: ['skip', '--reason', 'no audit this time'],
    kind: 'step_skipped',
    counts: (e) => e.by === 'agent',
    exit: 0,
    outcome: 'duplicate',
  },
  {
    name: 'substep',
    step: 1,
    setup: async (dir) => walkTo(app, dir, 1),
    args: ['substep', '2 — Restrictions'],
    kind: 'substep',
    exit: 0,
    outcome: 'duplicate',
  },
  {
    name: 'decide B (go on to Plan)',
    step: 2,
    setup: atDecision,
    args: ['decide', 'B'],
    kind: 'decision_answered',
    exit: 0,
    outcome: 'duplicate',
  },
  {
    name: 'decide A (another research round)',
    step: 2,
    setup: atDecision,
    args: ['decide', 'A'],
    kind: 'decision_answered',
    exit: 0,
    outcome: 'duplicate',
  },
  {
    name: 'ack (after three failures)',
    step: 1,
    setup: async (dir) => {
      await walkTo(app, dir, 1);
      await fail(dir, 'attempt 1');
      await next(dir);
      await fail(dir, 'attempt 2');
      await next(dir);
      await fail(dir, 'attempt 3');
    },
    args: ['ack'],
    kind: 'failure_acknowledged',
    exit: 0,
    outcome: 'duplicate',
  },
];

async function killAndRetry(s: Scenario, point: CrashAt, withStep: boolean) {
  const dir = freshDir();
  await s.setup(dir);
  const counted = () => entries(dir).filter((e) => e.event === s.kind && (s.counts ? s.counts(e) : true)).length;
  const before = counted();
  const args = [...s.args, ...(withStep ? ['--step', String(s.step)] : []), '--json'];
  const killed = await cli(dir, args, { crashAt: point });
  expect(killed.signal, `the command was not killed at ${point}: ${killed.stdout}${killed.stderr}`).toBe('SIGKILL');
  const retry = await cli(dir, args);
  const recorded = counted() - before;
  return { dir, retry, recorded };
}

describe.concurrent('a command killed after its journal write, then run again, is recorded once', () => {
  for (const s of SCENARIOS) {
    const variants = ['done', 'skip', 'decide'].includes(s.args[0]!) ? [false, true] : [false];
    for (const point of ['after-journal', 'after-pointer'] as const) {
      // `--step N` (the agent names the step it was handed) once per command: it only changes the aim.
      for (const withStep of point === 'after-journal' ? variants : [false]) {
        const name = `${s.name} · ${point}${withStep ? ` · --step ${s.step}` : ''}`;
        it(name, async () => {
          const { dir, retry, recorded } = await killAndRetry(s, point, withStep);
          const said = `retry answered exit ${retry.code}: ${retry.stdout.slice(0, 400)}`;
          expect(recorded, `${s.kind} events recorded by the command and its retry; ${said}`).toBe(1);
          expect(retry.code, said).toBe(s.exit);
          expect(retry.json?.outcome, said).toBe(s.outcome);
          if (s.leaseReleased) expect(existsSync(join(dir, LEASE)), 'the session boundary released the lease').toBe(false);
          // The retry left pointer and journal agreeing.
          const pointer = readPointerFile(dir)!;
          const list = entries(dir);
          expect(pointer.record?.seq).toBe(list[list.length - 1]!.seq);
        });
      }
    }
  }
});

describe('fail, killed at a random crash point and retried, 200 times', () => {
  const TRIALS = Math.max(200, Number(process.env.FAULT_TRIALS ?? 0) || 0);
  const seed = seedFromEnv();

  it(`${TRIALS} kills: step_failed count equals the attempts started (seed ${seed})`, { timeout: 120_000 }, async () => {
    const random = rng(seed);
    const killedAt: Record<string, number> = Object.fromEntries(CRASH_POINTS.map((p) => [p, 0]));
    let finished = 0;
    const lanes = Array.from({ length: LANES }, (_, i) => Math.floor(TRIALS / LANES) + (i < TRIALS % LANES ? 1 : 0));
    const results = await pool(
      lanes.map((count, lane) => async () => {
        const dir = freshDir();
        for (let i = 0; i < count; i++) {
          // Start an attempt (after three failures a person acknowledges first).
          let started = await next(dir);
          if (started.exit === 3) {
            await app.runStep(ctxOf(dir), { event: { type: 'ack' } });
            started = await next(dir);
          }
          expect(started.view.outcome?.kind).toBe('work');
          const point = CRASH_POINTS[Math.floor(random() * CRASH_POINTS.length)]!;
          const reason = `lane ${lane} attempt ${i}`;
          const killed = await cli(dir, ['fail', '--reason', reason, '--json'], { crashAt: point });
          if (killed.signal === 'SIGKILL') killedAt[point]!++;
          else finished++;
          // The agent runs the same command again.
          const retry = await fail(dir, reason);
          expect([0, 3]).toContain(retry.exit);
          const list = entries(dir);
          const failed = list.filter((e) => e.event === 'step_failed').length;
          const attempts = list.filter((e) => e.event === 'step_started').length;
          expect(failed, `after kill ${i} at ${point}: ${failed} step_failed for ${attempts} attempts`).toBe(attempts);
          expect(list.filter((e) => e.event === 'step_failed' && e.reason === reason)).toHaveLength(1);
        }
        const list = entries(dir);
        return { attempts: list.filter((e) => e.event === 'step_started').length, failed: list.filter((e) => e.event === 'step_failed').length };
      }),
      LANES,
    );
    const attempts = results.reduce((n, r) => n + r.attempts, 0);
    const failed = results.reduce((n, r) => n + r.failed, 0);
    console.log(
      `fail × ${TRIALS}: killed at ${Object.entries(killedAt)
        .map(([p, n]) => `${p} ${n}`)
        .join(', ')}; finished before its point ${finished}; ${attempts} attempts started, ${failed} step_failed`,
    );
    expect(failed).toBe(attempts);
    expect(attempts).toBe(TRIALS);
  });
});

/**
 * Killed half-way through its journal write: the batch's first lines may be
 * whole, the rest torn. Nothing of the command took effect, so the retry
 * applies it — and it must still be recorded once.
 */
describe.concurrent('a command killed half-way through its journal write, then run again, is recorded once', () => {
  const cases: { name: string; scenario: string; bug?: string }[] = [
    { name: 'fail (one-line batch)', scenario: 'fail (first attempt)' },
    { name: 'substep (one-line batch)', scenario: 'substep' },
    { name: 'ack (one-line batch)', scenario: 'ack (after three failures)' },
    { name: 'done at step 1 (one-line batch)', scenario: 'done (step 1, the work moves on)' },
    // A batch of several lines cut by a crash leaves its first line(s) whole but without the batch's
    // closing `pointer` record: no reader takes them as events (src/engine/journal-batches.ts).
    { name: 'done at step 2 (step_completed + decision_required)', scenario: 'done (step 2, stops at the research decision)' },
    { name: 'done at step 5 (step_completed + boundary_reached)', scenario: 'done (step 5, stops at the session boundary)' },
    { name: 'done at step 3 (step_completed + step 4 passed over)', scenario: 'done (step 3, Plan; UI Design passed over)' },
  ];
  for (const c of cases) {
    const s = SCENARIOS.find((x) => x.name === c.scenario)!;
    it(`${c.name} · mid-journal`, async () => {
      const { retry, recorded, dir } = await killAndRetry(s, 'mid-journal', false);
      const said = `retry answered exit ${retry.code}: ${retry.stdout.slice(0, 300)}`;
      expect(recorded, said).toBe(1);
      expect(retry.code, said).toBe(s.exit);
      // The torn line stays, followed by whole lines.
      const lines = journalLines(dir);
      const torn = lines.filter((l) => !l.entry);
      expect(torn).toHaveLength(1);
      expect(torn[0]!.line).toBeLessThan(lines.length);
    });
  }
});

describe('one attempt, one failure', () => {
  // A second `fail` while the step waits for its next attempt (no `next` between) reports the same
  // attempt again, whatever its wording: it answers duplicate and spends no second retry. Only an
  // attempt under way (after `next`) can fail again.
  it('a second fail of the same attempt, reworded, is a duplicate: the retry count moves once', async () => {
    const dir = freshDir();
    await walkTo(app, dir, 1);
    expect((await cli(dir, ['fail', '--reason', 'the build breaks', '--json'])).json).toMatchObject({ outcome: 'recorded', retry_count: 1 });
    const second = await cli(dir, ['fail', '--reason', 'the tests time out', '--json']);
    expect(second.json).toMatchObject({ outcome: 'duplicate', retry_count: 1 });
    expect(entries(dir).filter((e) => e.event === 'step_failed')).toHaveLength(1);
    expect((await cli(dir, ['next', '--json'])).json).toMatchObject({ action: 'retry' });
    expect((await cli(dir, ['fail', '--reason', 'the tests time out', '--json'])).json).toMatchObject({ outcome: 'recorded', retry_count: 2 });
  });
});

describe('a command aimed at a step the work has left', () => {
  it('fail --step 1 after step 1 was completed is refused (exit 2) naming both steps; nothing recorded', async () => {
    const dir = freshDir();
    await walkTo(app, dir, 2);
    const before = entries(dir).length;
    const r = await cli(dir, ['fail', '--step', '1', '--reason', 'late news', '--json']);
    expect(r.code).toBe(2);
    const message = String((r.json?.error as { message?: string } | undefined)?.message);
    expect(message).toMatch(/step 1 \(Problem\)/);
    expect(message).toMatch(/step 2 \(Research\)/);
    expect(entries(dir)).toHaveLength(before);
  });
});
