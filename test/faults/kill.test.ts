/**
 * Kills at random moments. Each trial runs one step command of the real CLI
 * on a greenfield repository — one that fits where the work stands, most of
 * the time, and now and then one that will be refused — and kills it either
 * at a named crash point (AUTOPILOT_CRASH_AT) or with SIGKILL after a random
 * delay. Then, as an agent would, it runs the same command again, and checks
 * in-process what the files say:
 *
 * (a) the pointer always parses (never half-written); pointer temporaries
 *     are gone after the next write; every journal line parses, except a
 *     torn line left by a kill half-way through a journal write, which is
 *     followed by whole lines;
 * (b) after the next command that exits 0 or 3, pointer and journal agree:
 *     the pointer's marker names the journal's last seq, and the journal's
 *     last entry records the pointer's position;
 * (c) a command that exited 0 with an outcome other than `duplicate` or a
 *     resumed `next` wrote its event to the journal;
 * (d) no failed attempt is forgotten: the journal replayed gives the
 *     pointer's retry_count, and every attempt number follows the failures
 *     before it; right after a kill, `status` (which writes nothing) already
 *     gives the journal's count.
 *
 * The retry runs through `dist/app.js` in this process (as an MCP front end
 * would call it), which keeps 300 trials well inside the time budget;
 * FAULT_CLI_RETRY=1 retries with the CLI instead.
 *
 * FAULT_TRIALS raises the number of trials; FAULT_SEED repeats a run.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  builtFlow,
  cli,
  CRASH_POINTS,
  entries,
  freshDir,
  inProcess,
  loadApp,
  journalEndsWhole,
  journalLines,
  LANES,
  pointerRecordOf,
  positionOfRecord,
  pointerText,
  ctxOf,
  pool,
  readPointerFile,
  replayRetries,
  rng,
  seedFromEnv,
  tempFiles,
  writeStepFiles,
  type CrashAt,
  type Entry,
  type Spawned,
} from '../helpers/faults.js';

const app = await loadApp();
/** The retry runs through the command layer in this process (as an MCP front end would), unless FAULT_CLI_RETRY asks for the CLI. */
const again = (dir: string, args: string[]) => (process.env.FAULT_CLI_RETRY ? cli(dir, [...args, '--json']) : inProcess(app, dir, args));
const TRIALS = Math.max(300, Number(process.env.FAULT_TRIALS ?? 0) || 0);
const flow = builtFlow('greenfield');

/** The event each command records when it takes effect. */
const EVENT_OF: Record<string, string> = {
  next: 'step_started',
  substep: 'substep',
  done: 'step_completed',
  fail: 'step_failed',
  skip: 'step_skipped',
  decide: 'decision_answered',
  ack: 'failure_acknowledged',
};

interface Where {
  step: number | 'done';
  status: string;
}

/** Where the work stands, as the journal's last record says (the pointer may lag it after a kill). */
function where(list: Entry[]): Where {
  for (let i = list.length - 1; i >= 0; i--) {
    const p = list[i]!.pointer as { step: number | 'done'; status: string } | undefined;
    if (p) return { step: p.step, status: p.status };
  }
  return { step: 1, status: 'not_started' };
}

/** Whether every Done-when pattern of the step matches a file (a glob's `*` in the file name only). */
function hasFiles(dir: string, step: number): boolean {
  return flow.steps[step - 1]!.doneWhen.every((pattern) => {
    if (!pattern.includes('*')) return existsSync(join(dir, '_docs', pattern));
    const folder = join(dir, '_docs', dirname(pattern));
    const re = new RegExp(`^${basename(pattern).replace(/[.]/g, '\\.').replace(/\*/g, '.*')}$`);
    return existsSync(folder) && readdirSync(folder).some((name) => re.test(name));
  });
}

function pick<T>(random: () => number, weighted: [T, number][]): T {
  const total = weighted.reduce((n, [, w]) => n + w, 0);
  let r = random() * total;
  for (const [value, w] of weighted) {
    r -= w;
    if (r < 0) return value;
  }
  return weighted[weighted.length - 1]![0];
}

interface Tally {
  trials: number;
  killedAt: Record<CrashAt, number>;
  killedByTimer: number;
  finished: number;
  refusedOrStopped: Record<string, number>;
  checks: Record<'a' | 'b' | 'c' | 'd' | 'status', number>;
  repos: number;
  runsCompleted: number;
  followUps: number;
  strayTemps: Set<string>;
  /** Retries after a kill that recorded their event for another step than the one the command was for. */
  wrongStep: string[];
  problems: string[];
}

function newTally(): Tally {
  return {
    trials: 0,
    killedAt: Object.fromEntries(CRASH_POINTS.map((p) => [p, 0])) as Record<CrashAt, number>,
    killedByTimer: 0,
    finished: 0,
    refusedOrStopped: {},
    checks: { a: 0, b: 0, c: 0, d: 0, status: 0 },
    repos: 0,
    runsCompleted: 0,
    followUps: 0,
    strayTemps: new Set(),
    wrongStep: [],
    problems: [],
  };
}

async function lane(count: number, seed: number, t: Tally): Promise<void> {
  const random = rng(seed);
  let dir = freshDir();
  t.repos++;
  let draft = 1;
  /** Kills half-way through a journal write in this repository: the torn lines it may hold. */
  let tornAllowed = 0;
  let pointIndex = Math.floor(random() * CRASH_POINTS.length);

  const fail = (message: string) => {
    t.problems.push(`${dir}: ${message}`);
    throw new Error(`${dir}: ${message}`);
  };

  /** (a): the pointer parses; the journal holds whole events, torn lines only where a mid-journal kill left them. */
  const checkFiles = (afterWrite: boolean) => {
    try {
      readPointerFile(dir);
    } catch (error) {
      fail(`the pointer does not parse: ${(error as Error).message}`);
    }
    const lines = journalLines(dir);
    const torn = lines.filter((l) => !l.entry);
    if (torn.length > tornAllowed)
      fail(`${torn.length} journal line(s) do not parse, after ${tornAllowed} mid-journal kill(s): line ${torn[0]!.line}: ${torn[0]!.text.slice(0, 120)}`);
    if (afterWrite) {
      const last = lines[lines.length - 1];
      if (last && !last.entry) fail(`the journal ends with a torn line after a successful write (line ${last.line})`);
      if (!journalEndsWhole(dir)) fail('the journal does not end with a newline after a successful write');
      const temps = tempFiles(dir);
      const pointerTemps = temps.filter((f) => f.startsWith('_docs/_autopilot_state.md.'));
      if (pointerTemps.length > 0) fail(`pointer temporaries left after a successful write: ${pointerTemps.join(', ')}`);
      for (const f of temps) t.strayTemps.add(`${dir}/${f}`);
    }
    t.checks.a++;
  };

  /** (b), (c), (d) after a command that exited 0 or 3. */
  const checkAgreement = (args: string[], run: Spawned, before: number, aimedAt: number, retried: boolean) => {
    checkFiles(true);
    const list = entries(dir);
    const pointer = readPointerFile(dir);
    if (!pointer) fail('no pointer after a command that exited 0 or 3');
    const last = list[list.length - 1];
    if (!last) fail('an empty journal after a command that exited 0 or 3');
    if (pointer!.record?.seq !== last!.seq) fail(`the pointer names event ${pointer!.record?.seq}, the journal's last is ${last!.seq}`);
    expect(positionOfRecord(last!.pointer), `${dir}: the journal's last entry records the pointer's position`).toEqual(pointerRecordOf(pointer!));
    t.checks.b++;

    const outcome = run.json?.outcome;
    const resumed = outcome === 'work' && run.json?.action === 'resume';
    if (run.code === 0 && outcome !== 'duplicate' && !resumed && !(args[0] === 'next' && outcome === 'complete')) {
      const written = list.filter((e) => typeof e.seq === 'number' && e.seq > before);
      // `decide` at a session boundary records the boundary's answer.
      const kind = args[0] === 'decide' && written.some((e) => e.event === 'boundary_answered') ? 'boundary_answered' : EVENT_OF[args[0]!]!;
      // In a step that walks its task index, `next` after a batch done begins the next batch: batch_started, not a new step_started.
      const alike = (e: Entry) => e.event === kind || (kind === 'step_started' && e.event === 'batch_started');
      if (!written.some(alike)) {
        fail(`\`${args.join(' ')}\` exited 0 (${String(outcome)}) but wrote no ${kind}: ${written.map((e) => e.event).join(', ') || 'nothing'}`);
      }
      if (args[0] === 'substep' && !written.some((e) => e.sub_step === args[1])) fail(`substep ${args[1]} is not in the journal`);
      if (args[0] === 'fail' && !written.some((e) => e.reason === args[2])) fail(`fail ${args[2]} is not in the journal`);
      // What the command recorded is about the step it was given for (a skip by the agent, not one by condition).
      // (`next` is aimed at no step: it acts where the work is, which a pointer behind the journal has not caught up with.)
      const elsewhere =
        args[0] === 'next' ? [] : written.filter((e) => e.event === kind && e.step !== aimedAt && (kind !== 'step_skipped' || e.by === 'agent'));
      if (elsewhere.length > 0) {
        const what = `\`${args.join(' ')}\` for step ${aimedAt} recorded ${kind} for step ${elsewhere.map((e) => e.step).join(', ')}`;
        // A known bug when it is a retry after a kill (see retry.test.ts); never otherwise.
        if (retried) t.wrongStep.push(what);
        else fail(what);
      }
      t.checks.c++;
    }

    const { retries, attemptProblems } = replayRetries(list);
    if (attemptProblems.length > 0) fail(`attempts out of order: ${attemptProblems.join('; ')}`);
    const p = pointer!.position;
    if (typeof p.step === 'number') {
      const replayed = retries.get(`${p.flow}/${p.cycle}/${p.step}`) ?? 0;
      if (replayed !== p.retryCount) fail(`retry_count ${p.retryCount} in the pointer, ${replayed} from the journal`);
    }
    t.checks.d++;
  };

  /** (d) before any repair: `status` reads the retry count the journal's record gives, and writes nothing. */
  const checkStatus = async () => {
    const before = { journal: journalLines(dir).length, pointer: pointerText(dir) };
    const status = await app.runStatus(ctxOf(dir));
    if (journalLines(dir).length !== before.journal || pointerText(dir) !== before.pointer) fail('status wrote');
    const list = entries(dir);
    // The journal up to its last record: a batch a kill cut short has no record, and is not the position yet.
    let end = list.length;
    while (end > 0 && !list[end - 1]!.pointer) end--;
    const p = status.view.position;
    if (typeof p.step === 'number') {
      const replayed = replayRetries(list.slice(0, end)).retries.get(`${p.flow}/${p.cycle}/${p.step}`) ?? 0;
      if (replayed !== p.retryCount) fail(`status says retry_count ${p.retryCount} after a kill, the journal ${replayed}`);
    }
    t.checks.status++;
  };

  const lastSeq = () => {
    const list = entries(dir);
    return list.length > 0 ? (list[list.length - 1]!.seq ?? 0) : 0;
  };

  for (let trial = 0; trial < count && t.problems.length === 0; trial++) {
    t.trials++;
    let now = where(entries(dir));
    if (now.step === 'done') {
      t.runsCompleted++;
      dir = freshDir();
      t.repos++;
      draft = 1;
      tornAllowed = 0;
      now = where([]);
    }
    const step = now.step as number;
    const spec = flow.steps[step - 1]!;
    const working = now.status === 'in_progress' || now.status === 'not_started';
    // Before some trials, the agent has done the work: the step's files.
    if (working && random() < 0.4) writeStepFiles(dir, spec.doneWhen, String(draft++).padStart(2, '0'));
    const files = hasFiles(dir, step);
    const optional = spec.runs.kind === 'optional';
    const unique = `${trial}-${Math.floor(random() * 1e6)}`;
    const substep = ['substep', `${1 + Math.floor(random() * 4)} — part ${unique}`];
    const failArgs = ['fail', '--reason', `trial ${unique}`];
    const skipArgs = ['skip', '--reason', `not needed ${unique}`];
    const decision = (now.status === 'completed' || now.status === 'skipped') && spec.then.kind === 'decision';
    let args: string[];
    if (decision) {
      args = pick(random, [
        [['decide', 'B'], 6],
        [['decide', 'A'], 3],
        [['done'], 0.5],
        [['ack'], 0.5],
        [['next'], 1],
      ]);
    } else if (now.status === 'failed') {
      args = pick(random, [
        [['ack'], 7],
        [['next'], 1],
        [failArgs, 1],
        [substep, 1],
      ]);
    } else {
      args = pick(random, [
        [['next'], now.status === 'not_started' ? 5 : 1],
        [['done'], files ? 5 : 0.7],
        [substep, 2],
        [failArgs, 1.5],
        [skipArgs, optional ? 2 : 0.3],
        [['decide', 'B'], 0.3],
        [['ack'], 0.3],
      ]);
    }

    const byPoint = random() < 0.5;
    const crashAt = byPoint ? CRASH_POINTS[pointIndex++ % CRASH_POINTS.length]! : undefined;
    const killAfterMs = byPoint ? undefined : Math.floor(random() * 151);
    const before = lastSeq();
    const run = await cli(dir, [...args, '--json'], { ...(crashAt ? { crashAt } : {}), ...(killAfterMs !== undefined ? { killAfterMs } : {}) });
    const killed = run.signal === 'SIGKILL';
    if (killed && crashAt) t.killedAt[crashAt]++;
    else if (killed) t.killedByTimer++;
    else t.finished++;
    if (killed && crashAt === 'mid-journal') tornAllowed++;
    if (!killed && run.code !== null && ![0, 2, 3].includes(run.code)) fail(`\`${args.join(' ')}\` exited ${run.code}: ${run.stdout}${run.stderr}`);

    checkFiles(false);

    if (!killed) {
      if (run.code === 0 || run.code === 3) checkAgreement(args, run, before, step, false);
      else t.refusedOrStopped[`exit ${run.code}`] = (t.refusedOrStopped[`exit ${run.code}`] ?? 0) + 1;
      continue;
    }
    // Killed. `status` (which never writes) already tells the retry count the journal gives.
    await checkStatus();
    // The agent runs the same command again; if that is refused, it asks `next`.
    let retryArgs = args;
    let retryBefore = lastSeq();
    let retry = await again(dir, retryArgs);
    if (retry.code === 0 || retry.code === 3) {
      checkAgreement(retryArgs, retry, retryBefore, step, true);
      continue;
    }
    if (retry.code !== 2) fail(`the retry of \`${args.join(' ')}\` exited ${retry.code}: ${retry.stdout}${retry.stderr}`);
    checkFiles(false);
    t.followUps++;
    retryArgs = ['next'];
    retryBefore = lastSeq();
    retry = await again(dir, ['next']);
    if (retry.code !== 0 && retry.code !== 3) fail(`next after a refused retry exited ${retry.code}: ${retry.stdout}${retry.stderr}`);
    checkAgreement(retryArgs, retry, retryBefore, where(entries(dir)).step as number, true);
  }
}

describe('kills at random moments', () => {
  const seed = seedFromEnv();
  it(
    `${TRIALS} trials, killed at each of ${CRASH_POINTS.length} crash points or by a timer (seed ${seed})`,
    { timeout: Math.max(180_000, TRIALS * 400) },
    async () => {
      const t = newTally();
      const shares = Array.from({ length: LANES }, (_, i) => Math.floor(TRIALS / LANES) + (i < TRIALS % LANES ? 1 : 0));
      const started = Date.now();
      await pool(
        shares.map((count, i) => () => lane(count, seed * 31 + i, t)),
        LANES,
      );
      const killed = Object.values(t.killedAt).reduce((a, b) => a + b, 0);
      const checks = t.checks.a + t.checks.b + t.checks.c + t.checks.d + t.checks.status;
      console.log(
        [
          `kill: ${t.trials} trials in ${t.repos} repositories (${t.runsCompleted} walked to the end) in ${((Date.now() - started) / 1000).toFixed(1)} s, seed ${seed}`,
          `  killed at a crash point ${killed}: ${CRASH_POINTS.map((p) => `${p} ${t.killedAt[p]}`).join(', ')}`,
          `  killed by the timer ${t.killedByTimer}; finished normally ${t.finished} (${Object.entries(t.refusedOrStopped)
            .map(([k, n]) => `${k}: ${n}`)
            .join(', ')}); refused retries followed by next: ${t.followUps}`,
          `  checks passed ${checks}: (a) files whole ${t.checks.a}, (b) pointer = journal ${t.checks.b}, (c) recorded ${t.checks.c}, (d) retries replayed ${t.checks.d}, and by status right after the kill ${t.checks.status}`,
          `  retries after a kill that recorded their event for another step (known bug): ${t.wrongStep.length}${t.wrongStep.length ? ` e.g. ${t.wrongStep.slice(0, 3).join('; ')}` : ''}`,
          `  other temporaries left behind (not the pointer's): ${t.strayTemps.size}${t.strayTemps.size ? ` e.g. ${[...t.strayTemps].slice(0, 3).join(', ')}` : ''}`,
        ].join('\n'),
      );
      expect(t.problems).toEqual([]);
      expect(t.trials).toBe(TRIALS);
      for (const p of CRASH_POINTS) expect(t.killedAt[p], `killed at ${p}`).toBeGreaterThan(0);
      expect(t.killedByTimer).toBeGreaterThan(0);
    },
  );
});

describe('temporaries of an interrupted write', () => {
  it('a pointer temporary left by a kill is removed by the next write', async () => {
    const dir = freshDir();
    await inProcess(app, dir, ['next']);
    const killed = await cli(dir, ['substep', 'two', '--json'], { crashAt: 'after-pointer-temp' });
    expect(killed.signal).toBe('SIGKILL');
    // The temporary file, and the old pointer the commit kept beside it to put back on a failure (`io/undo.ts`).
    expect(tempFiles(dir).sort()).toEqual([
      expect.stringMatching(/^_docs\/_autopilot_state\.md\.autopilot-tmp-\d/),
      expect.stringMatching(/^_docs\/_autopilot_state\.md\.autopilot-tmp-kept-/),
    ]);
    expect((await cli(dir, ['substep', 'two', '--json'])).code).toBe(0);
    expect(tempFiles(dir)).toEqual([]);
  });

  // BUG (src/app/transaction/commit.ts: removeLeftovers runs for the pointer only): a `next` that resumes
  // writes no pointer, only the lease, so a kill inside that atomic write (AUTOPILOT_CRASH_AT=
  // after-pointer-temp fires in the first atomic write, or any SIGKILL between create and rename)
  // leaves `_docs/_autopilot/lease.json.autopilot-tmp-*`, and no later write ever removes it.
  it('a lease temporary left by a kill is removed by the next write', async () => {
    const dir = freshDir();
    await inProcess(app, dir, ['next']);
    const killed = await cli(dir, ['next', '--json'], { crashAt: 'after-pointer-temp' });
    expect(killed.signal).toBe('SIGKILL');
    // The temporary file alone: a renewal that is the commit's only write keeps no old lease beside it (`app/transaction/commit.ts`).
    expect(tempFiles(dir).sort()).toEqual([expect.stringMatching(/^_docs\/_autopilot\/lease\.json\.autopilot-tmp-\d/)]);
    for (const args of [['next'], ['substep', 'two'], ['next']]) expect((await cli(dir, [...args, '--json'])).code).toBe(0);
    expect(tempFiles(dir)).toEqual([]);
  });

  const INIT_KILLS = 25;
  it(
    `${INIT_KILLS} kills of \`init --hooks\` (at the n-th file's write, or by a timer), then one \`next\`: 0 leftovers in any folder`,
    { timeout: 120_000 },
    async () => {
      const dir = freshDir();
      // A person's own files, which init adds its lines to: each rewrite keeps the old version beside it until the commit is whole.
      const theirs: Record<string, string> = {
        '.gitignore': 'node_modules/\n',
        'AGENTS.md': '# Agents\n\nRun the tests before a commit.\n',
        'CLAUDE.md': '# Notes\n',
        '.mcp.json': '{ "mcpServers": {} }\n',
        '.claude/settings.json': '{}\n',
        '.codex/config.toml': '# mine\n',
      };
      const restore = () => {
        for (const [file, text] of Object.entries(theirs)) {
          mkdirSync(dirname(join(dir, file)), { recursive: true });
          writeFileSync(join(dir, file), text);
        }
      };
      restore();
      expect((await cli(dir, ['init', '--flow', 'greenfield', '--json'])).code).toBe(0);
      const random = rng(seedFromEnv());
      let killed = 0;
      let most = 0;
      const where = new Set<string>();
      for (let i = 0; i < INIT_KILLS; i++) {
        restore();
        // Every other kill at the n-th of the files init rewrites (the last kill at the second, so the next command has something to find); the rest by a timer.
        const atWrite = i % 2 === 0 || i === INIT_KILLS - 1;
        const run = await cli(
          dir,
          ['init', '--hooks', '--json'],
          atWrite
            ? {
                crashAt: 'after-pointer-temp',
                env: { AUTOPILOT_CRASH_NTH: String(i === INIT_KILLS - 1 ? 2 : 1 + Math.floor(random() * Object.keys(theirs).length)) },
              }
            : { killAfterMs: 60 + Math.floor(random() * 200) },
        );
        if (run.signal === 'SIGKILL') killed++;
        const left = tempFiles(dir);
        most = Math.max(most, left.length);
        for (const f of left) where.add(dirname(f));
      }
      // The kills left copies behind, in the root and in the client folders; then one command finds every one.
      expect(killed).toBeGreaterThanOrEqual(INIT_KILLS / 2);
      expect(tempFiles(dir).length).toBeGreaterThan(0);
      expect(where.has('.')).toBe(true);
      console.log(`init --hooks: ${killed} of ${INIT_KILLS} killed, up to ${most} leftovers at once, in ${[...where].sort().join(', ')}`);
      expect((await cli(dir, ['next', '--json'])).code).toBe(0);
      expect(tempFiles(dir)).toEqual([]);
    },
  );
});
