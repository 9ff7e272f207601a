/**
 * What the whole-run tests share (test/agents/whole-run.test.ts, the honest agent, and
 * test/agents/cheating-run.test.ts, its twin that takes every shortcut): a new project as a person
 * starts one (autopilot installed in node_modules, `init --hooks` run and committed, the project's
 * tests `node --test`), the person's terminal that stays open, the journal as a test reads it, and
 * how each real client hands an autopilot answer back to the scripted model (Claude Code's Bash and
 * tool results, Codex's MCP output and shell).
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CLAUDE, put } from './claude.js';
import { CODEX, tempFolder } from './codex.js';
import { ROOT } from './engine.js';
import { userText, withoutReminders, type MessagesBody } from './model-server.js';

export const BIN = 'node_modules/.bin/autopilot';

/** The environment of a person's terminal: nothing of an agent client or of autopilot's session variables. */
export function personEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (/^(CODEX_|OPENAI_|CLAUDE|AUTOPILOT_|ANTHROPIC_)/.test(key)) delete env[key];
  return env;
}

export function git(repo: string, ...args: string[]): string {
  const run = spawnSync('git', args, { cwd: repo, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

/**
 * A new project as a person starts one: a repository with a first commit, autopilot installed
 * (`node_modules/.bin/autopilot` → this checkout, ignored), `autopilot init --hooks` run and its files
 * committed, and what a user allows Claude Code to do (`.claude/settings.local.json`).
 */
export function newProject(folder: string): string {
  const repo = realpathSync(folder);
  git(repo, 'init', '--quiet');
  git(repo, 'config', 'user.name', 'Person');
  git(repo, 'config', 'user.email', 'person@example.com');
  writeFileSync(join(repo, 'README.md'), '# Reading list\n\nA small tool to keep track of the books a team reads.\n');
  writeFileSync(join(repo, '.gitignore'), 'node_modules/\n');
  // The project's tests: node's test runner over test/ (the person's choice; init keeps it and says so).
  mkdirSync(join(repo, '.autopilot'), { recursive: true });
  writeFileSync(join(repo, '.autopilot', 'config.yml'), 'verify: node --test\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '--quiet', '-m', 'First commit');
  mkdirSync(join(repo, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(ROOT, join(repo, 'node_modules', 'md-autopilot'));
  symlinkSync('../md-autopilot/bin/autopilot.js', join(repo, BIN));
  const init = spawnSync(join(repo, BIN), ['init', '--hooks'], { cwd: repo, encoding: 'utf8', env: personEnv() });
  if (init.status !== 0) throw new Error(`init: ${init.stdout}${init.stderr}`);
  put(repo, '.claude/settings.local.json', { permissions: { allow: [`Bash(${BIN}:*)`, 'mcp__autopilot', 'Write'] } });
  git(repo, 'add', '-A');
  git(repo, 'commit', '--quiet', '-m', 'Set up autopilot');
  return repo;
}

/**
 * The person's terminal: one `bash` that stays open for the whole test. Each command line is written
 * to its stdin, followed by a marker line carrying the exit code; the shell never exits in between.
 */
export class Terminal {
  private readonly shell: ChildProcessWithoutNullStreams;
  private output = '';
  private count = 0;
  private waiter: (() => void) | undefined;
  readonly pid: number;
  readonly typed: { line: string; code: number; output: string }[] = [];

  constructor(cwd: string) {
    this.shell = spawn('bash', ['--norc', '--noprofile'], { cwd, env: personEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    this.pid = this.shell.pid!;
    const take = (chunk: string) => {
      this.output += chunk;
      this.waiter?.();
    };
    this.shell.stdout.setEncoding('utf8').on('data', take);
    this.shell.stderr.setEncoding('utf8').on('data', take);
  }

  get alive(): boolean {
    return this.shell.exitCode === null && this.shell.signalCode === null;
  }

  /** Types a command line and waits for it to finish: its exit code and what it printed (stdout and stderr). */
  async type(line: string): Promise<{ code: number; output: string }> {
    if (!this.alive) throw new Error('the person closed their terminal');
    const marker = `__typed_${++this.count}__`;
    const from = this.output.length;
    this.shell.stdin.write(`${line}\necho "${marker} $?"\n`);
    const pattern = new RegExp(`${marker} (\\d+)\\n`);
    for (;;) {
      const found = pattern.exec(this.output.slice(from));
      if (found) {
        const typed = { line, code: Number(found[1]), output: this.output.slice(from, from + found.index) };
        this.typed.push(typed);
        return typed;
      }
      if (!this.alive) throw new Error(`the terminal ended while running ${line}`);
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
        setTimeout(resolve, 1000);
      });
    }
  }

  close(): void {
    this.shell.stdin.end();
  }
}

/** One autopilot answer as the agent received it: the exit code (MCP: 0, or 4 for `held`, 3 for a question) and its JSON. */
export interface Answer {
  exit: number;
  json: Record<string, unknown>;
}

export interface Decision {
  id: string;
  question: string;
  options: { option: string; choice: string }[];
  recommendation: { option: string; reason: string };
}

/** The question a decision or a boundary answer asks a person. */
export function questionOf(answer: Answer): Decision | undefined {
  const json = answer.json as { decision?: Decision; boundary?: { decision?: Decision } };
  return json.decision ?? json.boundary?.decision;
}

/** What the agent shows the person on exit 3: the question, each option, the recommendation with its reason. */
export function showQuestion(decision: Decision): string {
  return [
    decision.question,
    ...decision.options.map((o) => `${o.option}: ${o.choice}`),
    `Recommended: ${decision.recommendation.option} (${decision.recommendation.reason})`,
    'Please answer it with autopilot decide in your terminal.',
  ].join('\n');
}

/** One file the agent writes: the path and its text. */
export interface Written {
  path: string;
  text: string;
}

export interface JournalLine {
  seq: number;
  session: string;
  event: string;
  step: number | 'done';
  reason?: string;
  option?: string;
  actor?: string;
  command?: string | null;
  exit_code?: number | null;
  totals?: { passed: number; failed: number };
  batch?: number;
  forced?: true;
  accepted_failures?: true;
}

/** The run's journal, one object a line; none yet: empty. `docs`: the run's docs folder (a named run's `_docs/_runs/NAME`). */
export function journal(repo: string, docs = '_docs'): JournalLine[] {
  const file = join(repo, docs, '_autopilot/journal.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as JournalLine);
}

/** Whether a process ends (no such pid, or a zombie) within `ms`, polled. */
export async function processEnded(pid: number, ms = 15_000): Promise<boolean> {
  for (const until = Date.now() + ms; ;) {
    let state: string;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    } catch {
      state = '';
    }
    if (/^[ZX]?$/.test(state)) return true;
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The conversation's id as the expanded /autopilot text carries it. */
export function sessionIn(body: MessagesBody): string {
  const ids = [...userText(body).matchAll(/--session ([0-9a-f-]{36})/g)].map((m) => m[1]!);
  if (ids.length === 0) throw new Error('no --session <id> in the request');
  return ids.at(-1)!;
}

/** An autopilot Bash call's answer: Claude Code prefixes `Exit code N` when it is not 0. */
export function bashAnswer(text: string): Answer {
  const failed = /^Exit code (\d+)\n/.exec(text);
  const body = failed ? text.slice(failed[0].length) : text;
  try {
    return { exit: failed ? Number(failed[1]) : 0, json: JSON.parse(body) as Record<string, unknown> };
  } catch {
    return { exit: failed ? Number(failed[1]) : -1, json: { error: { code: 'not_json', message: body } } };
  }
}

/** The text of the tool_result for a tool_use id in the request's last user message. */
export function resultFor(body: MessagesBody, id: string): string | undefined {
  const last = body.messages.at(-1);
  if (!last || typeof last.content === 'string') return undefined;
  const block = last.content.find((b) => b.type === 'tool_result' && b.tool_use_id === id);
  if (!block) return undefined;
  const content = block.content;
  return withoutReminders(typeof content === 'string' ? content : (content ?? []).map((c) => c.text ?? '').join('\n'));
}

export const claudeMissing = !existsSync(CLAUDE);
export const codexMissing =
  !existsSync(CODEX) ||
  spawnSync(CODEX, ['--version'], { encoding: 'utf8', env: { ...personEnv(), CODEX_HOME: tempFolder('autopilot-codex-version-') } }).status !== 0;

/** The JSON object a text holds (a command's output, an MCP error after its first line); none: empty. */
export function jsonIn(text: string): Record<string, unknown> {
  const from = text.indexOf('{');
  const to = text.lastIndexOf('}');
  if (from < 0 || to < from) return {};
  try {
    return JSON.parse(text.slice(from, to + 1)) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/**
 * The JSON an MCP call's output carries: Codex hands the model `Wall time: …\nOutput:\n<structuredContent>` (or a
 * list of texts); an error is `<code>: <its first line>` and then the command's whole JSON answer. The exit code is
 * the command line's for the same answer: 4 held, 2 any other error, 3 a stop for a person.
 */
export function mcpAnswer(output: unknown): Answer {
  const text = typeof output === 'string' ? output : (output as { text?: string }[]).map((part) => part.text ?? '').join('\n');
  const body = text.slice(text.indexOf('Output:\n') + 'Output:\n'.length).trim();
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(body) as Record<string, unknown>;
  } catch {
    const [first = '', ...rest] = body.split('\n');
    json = { error: { code: /^([\w ]+?): /.exec(first)?.[1] ?? 'not_json', message: first }, ...jsonIn(rest.join('\n')) };
  }
  const code = (json.error as { code?: string } | undefined)?.code;
  const stops = ['decision', 'boundary', 'failed', 'fork'];
  const exit = code === 'held' ? 4 : code ? 2 : stops.includes(String(json.outcome)) ? 3 : 0;
  return { exit, json };
}

/** A file's bytes as a shell command writes them: a here-document, or `printf` for a text with no last newline (a here-document adds one). */
const writeOne = (file: Written) =>
  file.text.endsWith('\n')
    ? `cat > '${file.path}' <<'AUTOPILOT_EOF'\n${file.text}AUTOPILOT_EOF`
    : `printf '%s' '${file.text.replace(/'/g, "'\\''")}' > '${file.path}'`;

/** A shell script that writes the files, each byte for byte. */
export function writeScript(files: Written[]): string {
  const dirs = [...new Set(files.map((file) => dirname(file.path)))];
  return [`mkdir -p ${dirs.map((d) => `'${d}'`).join(' ')}`, ...files.map(writeOne)].join('\n');
}

export const WORKSPACE_WRITE = {
  topLevel: 'sandbox_mode = "workspace-write"',
  toml: ['[sandbox_workspace_write]', 'exclude_slash_tmp = true', 'exclude_tmpdir_env_var = true'].join('\n'),
};
