/**
 * For the fault tests: the built CLI run asynchronously (so many can run at
 * once, and one can be killed at a chosen moment), the state files read
 * in-process, and the journal replayed independently of the engine.
 */
import { inDir } from './line.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll } from 'vitest';
import { readJournal } from '../../src/io/journal.js';
import { parsePointer, type ParsedPointer } from '../../src/formats/pointer/parse-pointer.js';
import { ROOT } from './engine.js';
import { write } from './cli.js';
import { hasResult, stepEvidence, testProject } from './templates.js';

const made: string[] = [];

/** A fresh empty folder, removed when the file's tests are over (safe for concurrent tests, unlike `tempRepo`). */
export function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'autopilot-fault-'));
  made.push(dir);
  return dir;
}

afterAll(() => {
  if (process.env.FAULT_KEEP) return console.log(`kept: ${made.join(' ')}`);
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export const BIN = join(ROOT, 'bin', 'autopilot.js');
export const POINTER = '_docs/_autopilot_state.md';
export const JOURNAL = '_docs/_autopilot/journal.jsonl';
export const LEASE = '_docs/_autopilot/lease.json';
export const LOCK = '_docs/_autopilot/lock';

export const CRASH_POINTS = ['after-lock', 'mid-journal', 'after-journal', 'after-pointer-temp', 'after-pointer', 'before-release'] as const;
export type CrashAt = (typeof CRASH_POINTS)[number];

export interface Spawned {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** stdout as the one JSON object `--json` promises; undefined when the process died before printing it. */
  json?: Record<string, unknown>;
}

export interface SpawnOptions {
  /** AUTOPILOT_CRASH_AT: the process kills itself there. */
  crashAt?: CrashAt;
  /** AUTOPILOT_STOP_AT: the process stops itself there (SIGSTOP), for the test to resume it (`onSpawn` gives the child). */
  stopAt?: CrashAt;
  /** SIGKILL this long after spawn. */
  killAfterMs?: number;
  env?: Record<string, string | undefined>;
  /** Run as this user (the tests run as root here, where permissions stop nobody). */
  uid?: number;
  /** Called with the child as soon as it is spawned. */
  onSpawn?: (child: ChildProcess) => void;
}

/** Runs the built CLI in `dir`; never throws on a non-zero exit or a signal. */
export function cli(dir: string, args: string[], options: SpawnOptions = {}): Promise<Spawned> {
  const env: Record<string, string | undefined> = { ...process.env, AUTOPILOT_SESSION: '', AUTOPILOT_CRASH_AT: '', ...options.env };
  if (options.crashAt) env.AUTOPILOT_CRASH_AT = options.crashAt;
  if (options.stopAt) env.AUTOPILOT_STOP_AT = options.stopAt;
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...inDir(dir, args)], {
      env: env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.uid }),
    });
    options.onSpawn?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = options.killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      let json: Record<string, unknown> | undefined;
      try {
        json = stdout.trim() ? (JSON.parse(stdout) as Record<string, unknown>) : undefined;
      } catch {
        json = undefined;
      }
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started, ...(json ? { json } : {}) });
    });
  });
}

/** Whether a process is stopped (SIGSTOP): its state in /proc is `T`. */
export function isStopped(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('T');
  } catch {
    return false;
  }
}

/** Waits until `test` holds, checking every 20 ms; throws after `ms`. */
export async function until(test: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Runs `tasks` with at most `limit` at once; results in the tasks' order. */
export async function pool<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < tasks.length; i = next++) results[i] = await tasks[i]!();
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, lane));
  return results;
}

/** How many lanes of child processes the machine takes without the test getting slower. */
export const LANES = 3;

/** The command layer as bundled (`dist/app.js`), typed by its source. */
export type App = typeof import('../../src/library.js');
export async function loadApp(): Promise<App> {
  return (await import(pathToFileURL(join(ROOT, 'dist', 'app.js')).href)) as App;
}

export interface JournalLine {
  /** 1-based line number in the file. */
  line: number;
  text: string;
  entry?: Entry;
}

export type Entry = Record<string, unknown> & { seq?: number; event: string; step: number | 'done'; flow: string; cycle: number };

/** Every line of the journal: parsed when it is JSON, raw text when it is not (a torn line). */
export function journalLines(dir: string): JournalLine[] {
  const file = join(dir, JOURNAL);
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((t, i) => {
    try {
      const value = JSON.parse(t) as Entry;
      return typeof value === 'object' && value !== null && typeof value.event === 'string' ? { line: i + 1, text: t, entry: value } : { line: i + 1, text: t };
    } catch {
      return { line: i + 1, text: t };
    }
  });
}

/** The events on record, as every reader of the engine sees them (a batch a crash cut short is not on record). */
export const entries = (dir: string): Entry[] => readJournal(join(dir, JOURNAL), JOURNAL).entries as unknown as Entry[];

/** Whether the journal file ends with a newline (or is absent / empty). */
export function journalEndsWhole(dir: string): boolean {
  const file = join(dir, JOURNAL);
  if (!existsSync(file)) return true;
  const text = readFileSync(file, 'utf8');
  return text === '' || text.endsWith('\n');
}

export function pointerText(dir: string): string | undefined {
  const file = join(dir, POINTER);
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/** The pointer as the engine reads it; throws (naming the line) when it does not parse. */
export function readPointerFile(dir: string): ParsedPointer | undefined {
  const text = pointerText(dir);
  return text === undefined ? undefined : parsePointer(text, POINTER);
}

/** The pointer's position in the journal's `pointer` record shape. */
export function pointerRecordOf(p: ParsedPointer): Record<string, unknown> {
  const q = p.position;
  return { flow: q.flow, step: q.step, name: q.name, status: q.status, sub_step: q.subStep, retry_count: q.retryCount, cycle: q.cycle };
}

/** A journal `pointer` record without the hashes of the pinned flow and skills, to compare with `pointerRecordOf`. */
export function positionOfRecord(record: unknown): Record<string, unknown> {
  const { flow_hash: _hash, skills_hash: _skills, ...rest } = record as Record<string, unknown>;
  return rest;
}

/** Temporary files an interrupted atomic write left, anywhere in the repository (relative paths). */
export function tempFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path);
      else if (e.name.includes('.autopilot-tmp-')) out.push(path);
    }
  };
  walk('');
  return out;
}

const RESETS = new Set(['failure_acknowledged', 'step_completed', 'step_skipped', 'decision_answered']);

/**
 * The retry count of every step, from the journal alone: failed attempts
 * since the step last started afresh (attempt 1), was acknowledged, finished
 * or was answered. Also checks that each `step_started` numbers its attempt
 * after the failures before it (a forgotten failure shows up there).
 */
export function replayRetries(list: Entry[]): { retries: Map<string, number>; attemptProblems: string[] } {
  const retries = new Map<string, number>();
  const attemptProblems: string[] = [];
  for (const e of list) {
    if (typeof e.step !== 'number') continue;
    const key = `${e.flow}/${e.cycle}/${e.step}`;
    const r = retries.get(key) ?? 0;
    if (e.event === 'step_failed') retries.set(key, r + 1);
    else if (RESETS.has(e.event)) retries.set(key, 0);
    else if (e.event === 'step_started') {
      if (e.attempt === 1) retries.set(key, 0);
      else if (e.attempt !== r + 1) attemptProblems.push(`seq ${e.seq}: step_started attempt ${String(e.attempt)} after ${r} failed attempt(s)`);
    }
  }
  return { retries, attemptProblems };
}

interface FlowJson {
  entries: Record<
    string,
    { flow?: { id: string; steps: { number: number; name: string; doneWhen: string[]; runs: { kind: string }; then: { kind: string } }[] } }
  >;
}

/** The built-in flow as `dist/flows.json` holds it. */
export function builtFlow(id: 'greenfield' | 'existing-code') {
  const data = JSON.parse(readFileSync(join(ROOT, 'dist', 'flows.json'), 'utf8')) as FlowJson;
  const flow = Object.values(data.entries)
    .map((e) => e.flow)
    .find((f) => f?.id === id);
  if (!flow) throw new Error(`dist/flows.json has no ${id}`);
  return flow;
}

/** Writes a step's Done-when files under `_docs/`, a glob's `*` filled with `fill`. */
export function writeStepFiles(dir: string, doneWhen: string[], fill = '01'): void {
  for (const pattern of doneWhen) write(dir, `_docs/${pattern.replace(/\*/g, fill)}`);
}

/** A pseudo-random generator with a seed, so a failing run can be repeated (FAULT_SEED). */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x1_0000_0000;
  };
}

export const seedFromEnv = (): number => (process.env.FAULT_SEED ? Number(process.env.FAULT_SEED) : Date.now() % 1_000_000);

/** A context for the command layer, as the CLI builds one. */
export const ctxOf = (dir: string, session = 'local', lockWaitMs?: number) => ({
  repo: { dir },
  session,
  now: () => new Date(),
  ...(lockWaitMs === undefined ? {} : { lockWaitMs }),
});

/**
 * Walks a greenfield repository in-process (fast) until `next` hands out step
 * `target`: writes each step's files, finishes it, answers B to the research
 * decision, goes on past the session boundary.
 */
export async function walkTo(app: App, dir: string, target: number): Promise<void> {
  const flow = builtFlow('greenfield');
  for (let guard = 0; guard < 40; guard++) {
    const r = await app.runStep(ctxOf(dir), { event: { type: 'next' } });
    const p = r.view.position;
    if (r.view.outcome?.kind === 'decision' || r.view.outcome?.kind === 'boundary') {
      await app.runStep(ctxOf(dir), { event: { type: 'decide', option: 'B' } });
      continue;
    }
    if (p.step === target) return;
    if (typeof p.step !== 'number' || p.step > target) throw new Error(`walked past step ${target}: at ${p.step}`);
    const doneWhen = flow.steps[p.step - 1]!.doneWhen;
    writeStepFiles(dir, doneWhen);
    // A report with a Result is held to the run autopilot exec recorded in the attempt.
    if (Object.values(stepEvidence(doneWhen.map((pattern) => `_docs/${pattern}`))).some(hasResult)) {
      testProject(dir);
      await cli(dir, ['exec']);
    }
    await app.runStep(ctxOf(dir), { event: { type: 'done' } });
  }
  throw new Error(`never reached step ${target}`);
}

/** CLI arguments of a step command as the command layer's request (what the CLI's parser makes of them). */
export function requestOf(args: string[]): Parameters<App['runStep']>[1] {
  const [command, ...rest] = args;
  const flags = new Map<string, string | true>();
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '--json') continue;
    if (a === '--take-over' || a === '--force') flags.set(a, true);
    else if (a.startsWith('--')) flags.set(a, rest[++i]!);
    else positional.push(a);
  }
  const reason = String(flags.get('--reason') ?? '');
  const event = (() => {
    switch (command) {
      case 'next':
        return { type: 'next' } as const;
      case 'substep':
        return { type: 'substep', text: positional.join(' ') } as const;
      case 'done':
        return flags.has('--force') ? ({ type: 'done', force: { reason } } as const) : ({ type: 'done' } as const);
      case 'fail':
        return { type: 'fail', reason } as const;
      case 'skip':
        return { type: 'skip', reason } as const;
      case 'decide':
        return { type: 'decide', option: positional[0] ?? '' } as const;
      case 'ack':
        return { type: 'ack' } as const;
      default:
        throw new Error(`not a step command: ${command}`);
    }
  })();
  return { event, ...(flags.has('--step') ? { step: Number(flags.get('--step')) } : {}), ...(flags.has('--take-over') ? { takeOver: true } : {}) };
}

/** The same step command through `dist/app.js` in this process: the answer in the CLI's shape (exit code, `--json` object). */
export async function inProcess(app: App, dir: string, args: string[], session = 'local'): Promise<Spawned> {
  const started = Date.now();
  try {
    const result = await app.runStep(ctxOf(dir, session), requestOf(args));
    const json = app.viewJson(result.view);
    return { code: result.exit, signal: null, stdout: JSON.stringify(json), stderr: '', ms: Date.now() - started, json };
  } catch (error) {
    const json = app.errorJson(error);
    return { code: app.exitCodeOfError(error), signal: null, stdout: JSON.stringify(json), stderr: '', ms: Date.now() - started, json };
  }
}
