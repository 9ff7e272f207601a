/** Runs the real, built command line in real temporary folders. */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';
import { ROOT } from './engine.js';

const BIN = join(ROOT, 'bin', 'autopilot.js');
const made: string[] = [];

/** A fresh empty folder, removed after the test. */
export function tempRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'autopilot-test-'));
  made.push(dir);
  return dir;
}

/** A copy of the bundled example, removed after the test. */
export function exampleCopy(): string {
  const dir = tempRepo();
  cpSync(join(ROOT, '_docs-example'), dir, { recursive: true });
  return dir;
}

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout as the one JSON object it must be. */
  json: <T = Record<string, unknown>>() => T;
}

export function autopilot(dir: string, ...args: string[]): Run {
  const run = spawnSync(process.execPath, [BIN, '-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, AUTOPILOT_SESSION: '' } });
  return {
    code: run.status ?? -1,
    stdout: run.stdout,
    stderr: run.stderr,
    json: <T>() => JSON.parse(run.stdout) as T,
  };
}

export function write(dir: string, rel: string, text = `written for ${rel}\n`): void {
  const file = join(dir, rel);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

export const read = (dir: string, rel: string) => readFileSync(join(dir, rel), 'utf8');

export interface NextJson {
  flow: string;
  step: number | 'done';
  name: string;
  status: string;
  sub_step: string;
  retry_count: number;
  cycle: number;
  source: string;
  drift: { kind: string; message: string }[];
  outcome: string;
  action?: string;
  skill?: string;
  done_when?: string[];
  decision?: { question: string; options: { option: string; choice: string }[]; recommendation: { option: string; reason: string } };
  boundary?: { after: { step: number }; next: { step: number } };
  error?: { message: string };
}

export { GREENFIELD_1_TO_7 } from './greenfield.js';

/** What an agent does with a step: write every file `next` asks for (globs filled in). */
export function writeArtifacts(dir: string, doneWhen: string[]): void {
  for (const pattern of doneWhen) write(dir, pattern.replace(/\*/g, '01'));
}

/** Every file under `dir` with its content and modification time: to prove a command wrote nothing. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel))) {
      const path = rel ? `${rel}/${name}` : name;
      const stat = statSync(join(dir, path));
      if (stat.isDirectory()) walk(path);
      else out[path] = `${stat.mtimeMs}:${readFileSync(join(dir, path), 'utf8')}`;
    }
  };
  walk('');
  return out;
}

export function journal(dir: string): Record<string, unknown>[] {
  return read(dir, '_docs/_autopilot/journal.jsonl')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
