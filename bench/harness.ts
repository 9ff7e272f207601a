/**
 * The bench's machinery: running Node child processes, timing them, measuring
 * their peak memory, alternating subject and baseline runs, statistics, and
 * the report. Node's standard library only.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** A broken setup: a command failed or printed something unexpected. The bench exits 1. */
export class BenchFailure extends Error {}

/** Stopped by a signal: the bench exits 130, as a shell would. */
export class Interrupted extends BenchFailure {}

/** Walks up from this module (dist/bench.js once bundled, bench/harness.ts from source) to the folder with package.json. */
export function findPackageRoot(from: string = import.meta.url): string {
  const start = dirname(fileURLToPath(from));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new BenchFailure(`no package.json in ${start} or above it`);
  }
}

// ---------------------------------------------------------------- interruption

let interrupted = false;

/** Ctrl-C (or SIGTERM) stops the bench at its next checkpoint, so the temp folders are still removed; a second one exits at once. */
export function stopOnSignals(): void {
  const stop = (signal: NodeJS.Signals) => {
    if (interrupted) process.exit(130);
    interrupted = true;
    process.stderr.write(`bench: ${signal}, stopping after this run (again to quit at once, leaving temp folders)\n`);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

/** Lets pending signals be handled; throws when the bench was asked to stop. */
export async function checkpoint(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  if (interrupted) throw new Interrupted('interrupted; the temp folders were removed');
}

// ---------------------------------------------------------------- statistics

export interface Stats {
  n: number;
  median: number;
  q1: number;
  q3: number;
  min: number;
  max: number;
  samples: number[];
}

function quantile(sorted: number[], p: number): number {
  const at = (sorted.length - 1) * p;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

export function stats(samples: number[]): Stats {
  if (samples.length === 0) throw new BenchFailure('no samples');
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    median: quantile(sorted, 0.5),
    q1: quantile(sorted, 0.25),
    q3: quantile(sorted, 0.75),
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
    samples,
  };
}

// ---------------------------------------------------------------- commands

/** One `node …` invocation. */
export interface Command {
  /** How the report names it, e.g. `status --json`. */
  label: string;
  /** Arguments after `node`. */
  args: string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Exit codes that count as success; anything else is a broken setup. Default: 0 only. */
  expect?: readonly number[];
  /** stdout must be exactly one JSON object. */
  json?: boolean;
}

export interface RunResult {
  ms: number;
  stdout: Buffer;
  status: number;
}

/** Runs a command once, timed with process.hrtime.bigint() around spawnSync; throws BenchFailure when it fails. */
export function runNode(cmd: Command): RunResult {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, cmd.args, {
    cwd: cmd.cwd,
    env: cmd.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const end = process.hrtime.bigint();
  const shown = `$ (cd ${cmd.cwd} && node ${cmd.args.join(' ')})`;
  if (r.error) throw new BenchFailure(`${cmd.label}: ${r.error.message}\n${shown}`);
  const expect = cmd.expect ?? [0];
  if (r.status === null || !expect.includes(r.status)) {
    const how = r.status === null ? `was killed by ${r.signal ?? 'a signal'}` : `exited with ${r.status}`;
    throw new BenchFailure(`${cmd.label} ${how} (expected ${expect.join(' or ')})\n${shown}\n${r.stderr.toString()}${r.stdout.toString()}`);
  }
  if (cmd.json) {
    try {
      JSON.parse(r.stdout.toString('utf8'));
    } catch {
      throw new BenchFailure(`${cmd.label}: stdout is not one JSON object\n${shown}\n${r.stdout.toString()}`);
    }
  }
  return { ms: Number(end - start) / 1e6, stdout: r.stdout, status: r.status };
}

/** Something measured once per call: milliseconds, megabytes, … A future probe may be async (e.g. 8 concurrent processes). */
export interface Probe {
  label: string;
  sample(): number | Promise<number>;
}

/** Wall-clock milliseconds of one run. */
export const timed = (cmd: Command): Probe => ({ label: cmd.label, sample: () => runNode(cmd).ms });

// ---------------------------------------------------------------- results

export type Unit = 'ms' | 'bytes' | 'MB' | 'KB' | 'packages';

export interface Target {
  /** `ratio`: the ratio of medians; `value`: the subject's own figure. */
  on: 'ratio' | 'value';
  op: '<=' | '<';
  limit: number;
  text: string;
}

export const atMost = (ratio: number): Target => ({ on: 'ratio', op: '<=', limit: ratio, text: `≤ ${String(ratio)}×` });
export const under = (limit: number, unit: Unit): Target => ({ on: 'value', op: '<', limit, text: `< ${limit} ${unit === 'bytes' ? 'B' : unit}` });

export interface Row {
  scenario: string;
  subject: string;
  baseline: string | null;
  unit: Unit;
  subjectStats: Stats;
  baselineStats: Stats | null;
  /** Ratio of medians, subject / baseline. */
  ratio: number | null;
  /** The subject's median. */
  value: number;
  target: Target | null;
  verdict: 'PASS' | 'MISS' | 'info';
  /** Anything else worth keeping in results.json (e.g. the output that was counted). */
  extra?: Record<string, unknown>;
}

function verdictOf(target: Target | null, ratio: number | null, value: number): Row['verdict'] {
  if (!target) return 'info';
  const figure = target.on === 'ratio' ? ratio : value;
  if (figure === null) throw new BenchFailure(`target ${target.text} needs a baseline`);
  return (target.op === '<=' ? figure <= target.limit : figure < target.limit) ? 'PASS' : 'MISS';
}

export interface CompareOptions {
  subject: Probe;
  baseline: Probe;
  unit: Unit;
  /** Measured pairs (baseline run, then subject run). */
  pairs: number;
  /** Pairs run first and discarded. */
  warmup: number;
  target?: Target;
}

export interface FigureOptions {
  subject: string;
  unit: Unit;
  value: number;
  target?: Target;
  extra?: Record<string, unknown>;
}

/** What a scenario's setup and measure get: the package, its CLI, temp copies of the example, and the measuring verbs. */
export class Bench {
  readonly cli: string;
  readonly example: string;
  readonly preload: string;
  private readonly tmp: string;

  constructor(
    readonly root: string,
    readonly log: (line: string) => void,
  ) {
    this.cli = join(root, 'bin', 'autopilot.js');
    this.example = join(root, '_docs-example');
    this.preload = join(root, 'bench', 'report-rss.mjs');
    for (const [what, path] of [
      ['the sample project', this.example],
      ['the built CLI (run `npm run build`)', join(root, 'dist', 'cli.cjs')],
      ['the memory preload', this.preload],
    ] as const) {
      if (!existsSync(path)) throw new BenchFailure(`${what} is missing: ${path}`);
    }
    this.tmp = mkdtempSync(join(os.tmpdir(), 'autopilot-bench-'));
  }

  /** A fresh folder for a scenario, under the bench's temp folder. */
  folder(name: string): string {
    const dir = join(this.tmp, name);
    mkdirSync(dir, { recursive: true });
    return dir;
  }

  /** A fresh copy of _docs-example at `<tmp>/<name>` (`name` may have slashes); the example itself is never touched. */
  copyExample(name: string): string {
    const dir = join(this.tmp, name);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dirname(dir), { recursive: true });
    cpSync(this.example, dir, { recursive: true });
    return dir;
  }

  /** Removes one scenario's folders (or, with no name, everything the bench made). */
  remove(name?: string): void {
    rmSync(name === undefined ? this.tmp : join(this.tmp, name), { recursive: true, force: true });
  }

  /**
   * `autopilot -C <dir> <args…>`, run as a user would: from inside the repository.
   * `next` may legitimately stop for a person (exit 3).
   */
  autopilot(dir: string, args: string[], options: { expect?: readonly number[] } = {}): Command {
    const event = args[0] !== 'status';
    return {
      label: args.join(' '),
      args: [this.cli, '-C', dir, ...args],
      cwd: dir,
      env: { ...process.env, AUTOPILOT_SESSION: 'bench' },
      expect: options.expect ?? (event ? [0, 3] : [0]),
      json: args.includes('--json'),
    };
  }

  /** `node -e 0`: the floor no Node CLI can go below. */
  floor(): Command {
    return { label: 'node -e 0', args: ['-e', '0'], cwd: this.root };
  }

  /** Peak resident memory (MB, 10^6 bytes) of one run, read through the bench/report-rss.mjs preload. */
  peakMemory(cmd: Command): Probe {
    const file = join(this.tmp, `rss-${process.pid}.txt`);
    const run: Command = {
      ...cmd,
      args: ['--import', pathToFileURL(this.preload).href, ...cmd.args],
      env: { ...(cmd.env ?? process.env), AUTOPILOT_BENCH_RSS_FILE: file },
    };
    return {
      label: cmd.label,
      sample: () => {
        rmSync(file, { force: true });
        runNode(run);
        const kib = existsSync(file) ? Number(readFileSync(file, 'utf8')) : NaN;
        if (!(kib > 0)) throw new BenchFailure(`${cmd.label}: the preload wrote no maxRSS to ${file}`);
        return (kib * 1024) / 1e6;
      },
    };
  }

  /** Alternating runs, baseline then subject, `warmup` pairs discarded: medians, spreads and the ratio of medians. */
  async compare(scenario: string, o: CompareOptions): Promise<Row> {
    const subject: number[] = [];
    const baseline: number[] = [];
    this.log(`  ${o.subject.label} vs ${o.baseline.label}: ${o.warmup} + ${o.pairs} pairs`);
    for (let i = 0; i < o.warmup + o.pairs; i++) {
      await checkpoint();
      const b = await o.baseline.sample();
      const s = await o.subject.sample();
      if (i >= o.warmup) {
        baseline.push(b);
        subject.push(s);
      }
    }
    const subjectStats = stats(subject);
    const baselineStats = stats(baseline);
    const ratio = subjectStats.median / baselineStats.median;
    const target = o.target ?? null;
    return {
      scenario,
      subject: o.subject.label,
      baseline: o.baseline.label,
      unit: o.unit,
      subjectStats,
      baselineStats,
      ratio,
      value: subjectStats.median,
      target,
      verdict: verdictOf(target, ratio, subjectStats.median),
    };
  }

  /** A plain figure with no baseline (e.g. bytes of output). */
  figure(scenario: string, o: FigureOptions): Row {
    const target = o.target ?? null;
    return {
      scenario,
      subject: o.subject,
      baseline: null,
      unit: o.unit,
      subjectStats: stats([o.value]),
      baselineStats: null,
      ratio: null,
      value: o.value,
      target,
      verdict: verdictOf(target, null, o.value),
      ...(o.extra ? { extra: o.extra } : {}),
    };
  }
}

// ---------------------------------------------------------------- scenarios

/** A scenario: `setup` makes its folders, `measure` returns its rows. */
export interface Scenario<F> {
  id: string;
  title: string;
  /** The targets, in words, for the report. */
  target: string;
  setup(bench: Bench, folder: string): F;
  measure(m: Measure, fixture: F): Promise<Row[]>;
}

/** The measuring verbs, bound to one scenario. */
export interface Measure {
  bench: Bench;
  compare(o: CompareOptions): Promise<Row>;
  figure(o: FigureOptions): Row;
}

export interface RunnableScenario {
  id: string;
  title: string;
  target: string;
  run(bench: Bench): Promise<{ rows: Row[]; setupSeconds: number; measureSeconds: number }>;
}

const seconds = (from: bigint) => Number(process.hrtime.bigint() - from) / 1e9;

/** Erases the fixture type so scenarios of different shapes share one list. Each scenario's folders are removed after it runs. */
export function scenario<F>(s: Scenario<F>): RunnableScenario {
  return {
    id: s.id,
    title: s.title,
    target: s.target,
    run: async (bench) => {
      try {
        const t0 = process.hrtime.bigint();
        const fixture = s.setup(bench, s.id);
        const setupSeconds = seconds(t0);
        await checkpoint();
        const t1 = process.hrtime.bigint();
        const rows = await s.measure({ bench, compare: (o) => bench.compare(s.id, o), figure: (o) => bench.figure(s.id, o) }, fixture);
        return { rows, setupSeconds, measureSeconds: seconds(t1) };
      } finally {
        bench.remove(s.id);
      }
    },
  };
}

// ---------------------------------------------------------------- report

function amount(value: number, unit: Unit): string {
  if (unit === 'bytes') return `${Math.round(value)} B`;
  return `${value.toFixed(1)} ${unit}`;
}

function withSpread(s: Stats | null, unit: Unit): string {
  if (!s) return '—';
  if (s.n === 1) return amount(s.median, unit);
  const digits = unit === 'bytes' ? 0 : 1;
  return `${amount(s.median, unit)} [${s.q1.toFixed(digits)}–${s.q3.toFixed(digits)}]`;
}

/** The figure a row's target is checked against, formatted. */
export function figureOf(row: Row): string {
  if (row.ratio === null) return amount(row.value, row.unit);
  if (row.target?.on === 'value') return `${amount(row.value, row.unit)} (${row.ratio.toFixed(2)}×)`;
  return `${row.ratio.toFixed(2)}×`;
}

/** The report as a Markdown table, ready to paste into docs/performance.md. */
export function table(rows: Row[]): string {
  const head = ['Scenario', 'Subject', 'Baseline', 'Subject median [IQR]', 'Baseline median [IQR]', 'Ratio / value', 'Target', 'Result'];
  const body = rows.map((r) => [
    r.scenario,
    `\`${r.subject}\``,
    r.baseline ? `\`${r.baseline}\`` : '—',
    withSpread(r.subjectStats, r.unit),
    withSpread(r.baselineStats, r.unit),
    figureOf(r),
    r.target?.text ?? '—',
    r.verdict === 'info' ? '(info)' : r.verdict,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

export interface Machine {
  cpu: string;
  cpus: number;
  memoryGiB: number;
  node: string;
  platform: string;
}

export function machine(): Machine {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cpus: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${os.platform()} ${os.release()} (${os.arch()})`,
  };
}
