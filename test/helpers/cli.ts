/** Runs the real, built command line in real temporary folders. */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { ROOT } from './engine.js';
import { inDir } from './line.js';
import { hasResult, stepEvidence, testProject } from './templates.js';

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
  return autopilotWith({}, dir, ...args);
}

/** The same with more environment (`FORCE_COLOR`, `NO_COLOR`); colour is off unless asked for, whatever the runner's terminal. */
export function autopilotWith(env: Record<string, string>, dir: string | undefined, ...args: string[]): Run {
  const run = spawnSync(process.execPath, [BIN, ...(dir === undefined ? args : inDir(dir, args))], {
    encoding: 'utf8',
    env: { ...process.env, AUTOPILOT_SESSION: '', FORCE_COLOR: undefined, NO_COLOR: undefined, ...env },
  });
  return {
    code: run.status ?? -1,
    stdout: run.stdout,
    stderr: run.stderr,
    json: <T>() => JSON.parse(run.stdout) as T,
  };
}

/**
 * Writes a file under `dir`. Without a text, a file a built-in skill declares
 * (`_docs/00_problem/problem.md`) is written as the skill says, its template
 * filled (with the task file beside a task index); any other gets a line.
 */
export function write(dir: string, rel: string, text?: string): void {
  const files = text === undefined ? stepEvidence([rel]) : { [rel]: text };
  for (const [path, filled] of Object.entries(files)) {
    const content = text === undefined ? namingCriteria(dir, path, filled) : filled;
    const file = join(dir, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
}

/**
 * A filled template names AC-01 where it traces criteria; a repository whose
 * problem step wrote more (the example: AC-01 to AC-07) gets the rest named
 * too, above the Self-check, as an agent covering each would.
 */
export function namingCriteria(dir: string, path: string, filled: string): string {
  // The run's docs folder (`_docs/`, or a named run's `_docs/_runs/NAME/`): what comes before the step's own folder.
  const docs = /^(.*?\/)\d\d_/.exec(path)?.[1] ?? path.slice(0, path.indexOf('/') + 1);
  let criteria: string;
  try {
    criteria = readFileSync(join(dir, docs, '00_problem/acceptance_criteria.md'), 'utf8');
  } catch {
    return filled;
  }
  if (!/\bAC-\d{2,}\b/.test(filled) || path.endsWith('acceptance_criteria.md')) return filled;
  const missing = [...new Set(criteria.match(/\bAC-\d{2,}\b/g) ?? [])].filter((id) => !filled.includes(id));
  if (missing.length === 0) return filled;
  const line = `Also covered here: ${missing.join(', ')}, each as its criterion says.\n\n`;
  const at = filled.search(/^## Self-check\s*$/m);
  return at < 0 ? `${filled}\n${line}` : filled.slice(0, at) + line + filled.slice(at);
}

export const read = (dir: string, rel: string) => readFileSync(join(dir, rel), 'utf8');

/** What the SessionStart hook gives the model as a new conversation (`conversation-2`) starts in Claude Code. */
export function sessionStart(dir: string): string {
  const env: NodeJS.ProcessEnv = { ...process.env, AUTOPILOT_SESSION: '', CLAUDE_PROJECT_DIR: dir };
  delete env.CLAUDE_ENV_FILE;
  const run = spawnSync(process.execPath, [BIN, 'hook', 'session-start'], {
    cwd: dir,
    input: JSON.stringify({ session_id: 'conversation-2', source: 'startup' }),
    encoding: 'utf8',
    env,
  });
  expect(run.status).toBe(0);
  return run.stdout;
}

/** Replaces `key: value` lines of the pointer, as a person does in an editor. */
export function editPointer(dir: string, edits: Record<string, string>): void {
  let text = read(dir, '_docs/_autopilot_state.md');
  for (const [key, value] of Object.entries(edits)) text = text.replace(new RegExp(`^${key}: .*$`, 'm'), `${key}: ${value}`);
  writeFileSync(join(dir, '_docs/_autopilot_state.md'), text);
}

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

let batchWork = 0;

/**
 * What an agent does with a step: write every file `next` asks for (globs
 * filled in) as its skill says, each from its template filled
 * (`helpers/templates.ts`), a source file beside each batch report (a
 * batch's work is code), and, when a report holds a Result, run the
 * project's tests (`testProject`) through `autopilot exec` (with `args`
 * before it, e.g. `--session`), so that
 * `done` accepts the work.
 */
export function writeArtifacts(dir: string, doneWhen: string[], ...args: string[]): void {
  const files = stepEvidence(doneWhen);
  for (const [path, text] of Object.entries(files)) write(dir, path, text);
  // A batch's work is code: a source file of its own beside its report (a batch's `done` needs code changed).
  for (const path of Object.keys(files).filter((p) => /\/batch_\d+\.md$/.test(p)))
    write(dir, `src/${path.replace(/\.md$/, '').replace(/[^\w]+/g, '_')}.js`, `// the work of ${path} (${++batchWork})\n`);
  if (Object.values(files).some(hasResult)) {
    testProject(dir);
    autopilot(dir, ...args, 'exec');
  }
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
