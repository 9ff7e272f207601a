/**
 * autopilot under the real Codex CLI (`codex exec --json`, @openai/codex
 * 0.169.0), as a user runs it: a git repository with autopilot installed in
 * `node_modules` (`node_modules/.bin/autopilot`), `autopilot init --hooks`
 * run in it, the project trusted in the user's CODEX_HOME, and a model —
 * here scripted (test/helpers/responses-server.ts) — that follows AGENTS.md:
 * shell commands through `exec_command` with the command line AGENTS.md
 * names, MCP tools in the `mcp__autopilot` namespace once `tool_search` has
 * found them. Nothing of Codex or autopilot is mocked. docs/sessions.md is
 * the design under test; docs/codex-facts.md the client's behaviour it
 * builds on.
 *
 * Codex runs with `sandbox_mode = "workspace-write"` (what `codex exec -s
 * workspace-write` sets; no approval_policy: `exec` asks nobody whatever it
 * says): the commands the agent runs may write the repository (the journal,
 * the lease), the MCP tools init approves run, and no tool is a person's
 * (the exec policy and autopilot's own order of words hold their commands). On Linux that sandbox runs each shell command in a PID namespace
 * of its own (pid 1 is `codex-linux-sandbox`): a command there cannot see the
 * codex process of its conversation, nor tell whether another conversation
 * still runs; the MCP server and the hooks, children of codex outside the
 * sandbox, can. One test runs `danger-full-access`, to
 * show what still holds there: Codex then asks no MCP approval at all.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { agentsSection } from '../../src/clients/instructions.js';
import { CODEX, codexHome, runCodex, tempFolder, trustHooks, type CodexRun } from '../helpers/codex.js';
import { ROOT } from '../helpers/engine.js';
import { stepEvidence } from '../helpers/templates.js';
import { itemText, startResponsesServer, type InputItem, type ResponsesBody, type ResponsesServer, type Turn } from '../helpers/responses-server.js';

// Real processes, several tests at a time: generous bounds for a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

/** Without the Codex binary (the dev dependency, or its native package for this platform, not installed) there is nothing to run. */
// In a CODEX_HOME of its own: with the user's, Codex writes its helper links under ~/.codex/tmp.
const codexMissing =
  !existsSync(CODEX) ||
  spawnSync(CODEX, ['--version'], { encoding: 'utf8', env: { ...cleanEnv(), CODEX_HOME: tempFolder('autopilot-codex-version-') } }).status !== 0;

/**
 * The workspace-write sandbox, with /tmp and $TMPDIR not among its writable roots: Codex guards the `.git` of
 * each writable root with a mount, and on /tmp it made an empty `/tmp/.git` that a killed Codex left behind
 * (every repository under /tmp then looked like a work tree to the other tests). The test repositories are
 * writable as the workspace itself.
 */
const WORKSPACE_WRITE = {
  topLevel: 'sandbox_mode = "workspace-write"',
  toml: ['[sandbox_workspace_write]', 'exclude_slash_tmp = true', 'exclude_tmpdir_env_var = true'].join('\n'),
};
const FULL_ACCESS = 'sandbox_mode = "danger-full-access"';
const BIN = 'node_modules/.bin/autopilot';

/** The environment of a person's shell: nothing of an agent client or of autopilot's session variables leaks in from whoever runs the tests. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (/^(CODEX_|OPENAI_|CLAUDE|AUTOPILOT_)/.test(key)) delete env[key];
  return env;
}

/** A person at a shell in the repository: `node_modules/.bin/autopilot <args>`. */
function person(repo: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(join(repo, BIN), args, { cwd: repo, encoding: 'utf8', env: cleanEnv() });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A git repository with autopilot installed as a user installs it, and `autopilot init --hooks` run in it. */
function installed(): string {
  const repo = tempFolder();
  spawnSync('git', ['init', '--quiet'], { cwd: repo });
  mkdirSync(join(repo, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(ROOT, join(repo, 'node_modules', 'md-autopilot'));
  symlinkSync('../md-autopilot/bin/autopilot.js', join(repo, BIN));
  const init = person(repo, 'init', '--hooks');
  expect(init.code, init.stderr).toBe(0);
  return repo;
}

function write(repo: string, rel: string, text: string): void {
  mkdirSync(dirname(join(repo, rel)), { recursive: true });
  writeFileSync(join(repo, rel), text);
}

interface JournalLine {
  seq: number;
  session: string;
  event: string;
  step: number | 'done';
  sub_step?: string;
  from?: string;
  reason?: string;
  option?: string;
}

const journal = (repo: string): JournalLine[] =>
  readFileSync(join(repo, '_docs/_autopilot/journal.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as JournalLine);

interface LeaseFile {
  session: string;
  conversation?: { pid: number; start: string };
}

const leaseOf = (repo: string): LeaseFile | undefined => {
  const file = join(repo, '_docs/_autopilot/lease.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as LeaseFile) : undefined;
};

// ---------------------------------------------------------------------------
// The scripted model: an agent that follows AGENTS.md.

/** A move that searches for the MCP tools until Codex shows the `mcp__autopilot` namespace (its servers start in the background). */
const FIND_TOOLS = 'find the autopilot MCP tools';
type Play = (body: ResponsesBody) => Turn | Promise<Turn>;
type Move = Turn | Play | typeof FIND_TOOLS;

/** The input items of the current run: those after the last user message (a resumed thread carries the earlier runs' items). */
function sinceLastPrompt(body: ResponsesBody): InputItem[] {
  const at = body.input.map((item) => item.type === 'message' && item.role === 'user').lastIndexOf(true);
  return body.input.slice(at + 1);
}

/** The AGENTS.md text Codex showed the model: the user message headed `# AGENTS.md instructions for <folder>`. */
function agentsMessage(body: ResponsesBody): string | undefined {
  return body.input
    .filter((item) => item.type === 'message' && item.role === 'user')
    .map(itemText)
    .find((text) => text.startsWith('# AGENTS.md instructions for '));
}

/** The command line AGENTS.md tells the agent to run: the `<bin>` of "run `<bin> <command> --json`". */
function binFromAgents(body: ResponsesBody): string {
  const bin = /`([^`\s]+) <command> --json`/.exec(agentsMessage(body) ?? '')?.[1];
  if (!bin) throw new Error('AGENTS.md names no command line');
  return bin;
}

/** A command as AGENTS.md spells it (`fail --reason "<why>"`), found in the text the model was shown, its placeholders filled in. */
function asWritten(body: ResponsesBody, spelled: string, fill: Record<string, string>): string {
  if (!agentsMessage(body)?.includes(`\`${spelled}\``)) throw new Error(`AGENTS.md does not spell \`${spelled}\``);
  return Object.entries(fill).reduce((text, [hole, value]) => text.replace(hole, value), spelled);
}

/**
 * An `exec_command` call. Codex waits `yield_time_ms` (10 s by default) for a command, then answers "Process
 * running with session ID …" with no exit code, and the command's item completes after the next turn's, or never
 * (killed when Codex exits). On a loaded machine a first autopilot call in a fresh sandbox has taken longer than
 * 10 s: the scripted model then went on to its next move, and a test read another command's exit code in the
 * place of this one's. So every call waits the longest Codex allows, and a command still running after that fails
 * the run by name (`scriptedModel`) instead of shifting what the test reads.
 */
const shell = (cmd: string, callId?: string) => ({ name: 'exec_command', arguments: { cmd, yield_time_ms: YIELD_MS }, ...(callId ? { callId } : {}) });
/** The longest wait Codex allows for a command (`exec_command`'s `yield_time_ms`: 250 to 30,000 ms). */
const YIELD_MS = 30_000;

/** A shell command the agent runs, the command line taken from AGENTS.md. */
const cli =
  (args: string, callId?: string): Play =>
  (body) => ({ calls: [shell(`${binFromAgents(body)} ${args}`, callId)] });
/** An autopilot MCP tool call. */
const tool =
  (name: string, args: Record<string, unknown>, callId?: string): Play =>
  () => ({ calls: [{ namespace: 'mcp__autopilot', name, arguments: args, ...(callId ? { callId } : {}) }] });
/** Several calls in one turn (Codex runs them in parallel). */
const together =
  (...plays: Play[]): Play =>
  async (body) => ({ calls: (await Promise.all(plays.map((play) => play(body)))).flatMap((turn) => turn.calls ?? []) });

interface Model {
  server: ResponsesServer;
  /** The moves of the next run, played one per model turn. */
  play: (moves: Move[]) => void;
  /** What Codex handed back for a call, from any request: a string for shell commands and structured MCP results. */
  output: (callId: string) => string;
}

// Closed when the file is done: the tests run concurrently, so a test's own teardown could not be told apart.
const servers: ResponsesServer[] = [];
afterAll(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function scriptedModel(): Promise<Model> {
  let moves: Move[] = [];
  let at = 0;
  const server = await startResponsesServer(async (body) => {
    const running = sinceLastPrompt(body).find(
      (item) => item.type === 'function_call_output' && /Process running with session ID/.test(JSON.stringify(item.output)),
    );
    if (running) throw new Error(`a command still ran after ${YIELD_MS} ms, so its exit code never came: ${JSON.stringify(running.output)}`);
    for (;;) {
      const move = moves[at];
      if (move === undefined) throw new Error(`the script has no move ${at}`);
      if (move !== FIND_TOOLS) {
        at++;
        return typeof move === 'function' ? move(body) : move;
      }
      const items = sinceLastPrompt(body);
      const last = items.at(-1);
      if (last?.type === 'tool_search_output' && JSON.stringify(last.tools).includes('"mcp__autopilot"')) {
        at++;
        continue;
      }
      // A bound of about a minute (250 ms between searches): a loaded machine starts the server in seconds.
      if (items.filter((item) => item.type === 'tool_search_output').length >= 240) throw new Error('the autopilot MCP server never showed up');
      if (last?.type === 'tool_search_output') await new Promise((resolve) => setTimeout(resolve, 250));
      return { toolSearch: 'autopilot next substep decide' };
    }
  });
  servers.push(server);
  return {
    server,
    play: (next) => {
      moves = next;
      at = 0;
    },
    output: (callId) => {
      const item = server
        .turns()
        .flatMap((body) => body.input)
        .find((input) => input.type === 'function_call_output' && input.call_id === callId);
      if (!item) throw new Error(`no output for ${callId}`);
      return typeof item.output === 'string' ? item.output : JSON.stringify(item.output);
    },
  };
}

// ---------------------------------------------------------------------------
// What a run shows.

/** The shell commands Codex ran: the command the model gave, its exit code and stdout. */
const commands = (run: CodexRun) =>
  run.items('command_execution').map((item) => ({
    cmd: String(item.command).replace(/^\/bin\/bash -lc '(.*)'$/, '$1'),
    exit: item.exit_code as number,
    json: jsonOf(String(item.aggregated_output)),
  }));

/** A command's output (stdout and stderr) as the one JSON object `--json` prints, or the raw text. */
function jsonOf(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { raw: text };
  }
}

/** The MCP calls Codex made: the tool, its status, the structured result or the error. */
const mcpCalls = (run: CodexRun) =>
  run.items('mcp_tool_call').map((item) => ({
    tool: item.tool as string,
    status: item.status as string,
    result: (item.result as { structured_content?: Record<string, unknown> } | null)?.structured_content,
    error: (item.error as { message?: string } | null)?.message,
  }));

/** A run that went through: exit 0, a thread id, and no error item (a warning Codex reports about the project's config would be one). */
function expectClean(run: CodexRun): string {
  expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(0);
  expect(run.items('error')).toEqual([]);
  expect(run.threadId).toMatch(/^[0-9a-f-]{36}$/);
  return run.threadId!;
}

/** No exit 4 and no `held` error anywhere: not in a command, not in an MCP result, not in what the model was handed. */
function expectNeverHeld(model: Model, ...runs: CodexRun[]): void {
  for (const run of runs) {
    expect(commands(run).filter((c) => c.exit !== 0 && c.exit !== 3)).toEqual([]);
    expect(mcpCalls(run).filter((c) => c.status !== 'completed')).toEqual([]);
  }
  const outputs = model.server.turns().flatMap((body) => body.input.filter((item) => item.type === 'function_call_output'));
  expect(outputs.filter((item) => /Process exited with code 4|"code":"held"/.test(JSON.stringify(item.output)))).toEqual([]);
}

/** The state letter /proc gives a pid (R, S, D, Z, X, …); '' when no process has it. */
function procState(pid: number): string {
  const file = `/proc/${pid}/stat`;
  let stat: string;
  try {
    stat = readFileSync(file, 'utf8');
  } catch {
    return '';
  }
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
}

/** Whether a killed process ends (gone, or a zombie not yet reaped) within `ms`: polled, as the kernel tears it down in its own time. */
async function processEnded(pid: number, ms = 15_000): Promise<boolean> {
  for (const until = Date.now() + ms; ;) {
    if (/^[ZX]?$/.test(procState(pid))) return true;
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const run = (repo: string, home: string, prompt: string, args: string[] = []) => runCodex({ cwd: repo, codexHome: home, prompt, args });

/** The documents of the first two steps, so that `next` finds them done and stops at the research-round decision. */
function toTheDecision(repo: string): void {
  const files = stepEvidence(['_docs/00_problem/problem.md', '_docs/00_problem/acceptance_criteria.md', '_docs/01_solution/solution_draft_01.md']);
  for (const [rel, text] of Object.entries(files)) write(repo, rel, text);
}

/** Step 1's files as its skill says, kept outside the repository for the scripted agent to copy in with one shell command. */
function problemFilesCopy(): string {
  const stage = tempFolder('autopilot-codex-stage-');
  const files = stepEvidence(['_docs/00_problem/problem.md', '_docs/00_problem/acceptance_criteria.md']);
  for (const [rel, text] of Object.entries(files)) write(stage, rel, text);
  return `mkdir -p _docs/00_problem && cp ${join(stage, '_docs', '00_problem')}/*.md _docs/00_problem/`;
}

describe.skipIf(codexMissing).concurrent('autopilot under codex exec (workspace-write)', () => {
  it('one session, and the AGENTS.md loop as written: a shell next ($CODEX_THREAD_ID), an MCP substep (_meta.threadId), shell substep, done, next, fail, next, status; every event the thread id; no npx', async () => {
    const repo = installed();
    const model = await scriptedModel();
    const home = codexHome({ baseUrl: model.server.baseUrl, trusted: [repo], ...WORKSPACE_WRITE });
    /** A command spelled as AGENTS.md spells it, with `--step N` and `--json` as it says. */
    const written =
      (spelled: string, fill: Record<string, string>, rest: string): Play =>
      (body) =>
        cli(`${asWritten(body, spelled, fill)} ${rest}`)(body);
    model.play([
      cli('next --json'),
      FIND_TOOLS,
      tool('substep', { step: 1, text: '1 — Interview' }),
      written('substep "<n — name>"', { '<n — name>': '2 — Restrictions' }, '--step 1 --json'),
      // The step's work: the files its done_when names.
      () => ({
        calls: [shell(problemFilesCopy())],
      }),
      cli('done --step 1 --json'),
      cli('next --json'),
      written('fail --reason "<why>"', { '<why>': 'the sources did not answer' }, '--step 2 --json'),
      cli('next --json'),
      (body) => ({
        calls: [shell(/`([^`]+ status)` shows where the work stands/.exec(agentsMessage(body) ?? '')![1]!)],
      }),
      { text: 'Step 2 is under way again.' },
    ]);
    const codex = await run(repo, home, 'Run /autopilot.');
    const thread = expectClean(codex);

    // The AGENTS.md section init wrote reached the model as it is, and it names the installed binary, never npx.
    const agents = agentsMessage(model.server.turns()[0]!);
    expect(agents).toContain(`# AGENTS.md instructions for ${repo}`);
    expect(agents).toContain(agentsSection());
    expect(agents).toContain(`\`${BIN} <command> --json\``);
    expect(agents).not.toMatch(/\bnpx\b/);

    const ran = commands(codex).filter((c) => c.cmd.startsWith(BIN));
    expect(ran.map((c) => [c.cmd, c.exit])).toEqual([
      [`${BIN} next --json`, 0],
      [`${BIN} substep "2 — Restrictions" --step 1 --json`, 0],
      [`${BIN} done --step 1 --json`, 0],
      [`${BIN} next --json`, 0],
      [`${BIN} fail --reason "the sources did not answer" --step 2 --json`, 0],
      [`${BIN} next --json`, 0],
      [`${BIN} status`, 0],
    ]);
    expect(ran.map((c) => [c.json.step, c.json.outcome, c.json.action])).toEqual([
      [1, 'work', 'start'],
      [1, 'recorded', undefined],
      [2, 'advanced', undefined],
      [2, 'work', 'start'],
      [2, 'recorded', undefined],
      [2, 'work', 'retry'],
      [undefined, undefined, undefined],
    ]);
    expect(ran.at(-1)!.json.raw).toMatch(/^Step +2 of 10 · Research$/m);
    expect(mcpCalls(codex)).toEqual([
      { tool: 'substep', status: 'completed', result: expect.objectContaining({ outcome: 'recorded', sub_step: '1 — Interview' }), error: undefined },
    ]);
    expectNeverHeld(model, codex);

    // Shell commands name the thread by $CODEX_THREAD_ID; the MCP server (whose environment has no id) by the call's _meta.threadId.
    expect(journal(repo).map((line) => [line.event, line.session, line.step])).toEqual([
      ['run_started', thread, 1],
      ['step_started', thread, 1],
      ['substep', thread, 1],
      ['substep', thread, 1],
      ['step_completed', thread, 1],
      ['step_started', thread, 2],
      ['step_failed', thread, 2],
      ['step_started', thread, 2],
    ]);
    expect(leaseOf(repo)?.session).toBe(thread);
  });

  it('codex exec resume <thread id> goes on as the same session, no take-over; once it has ended, a new thread takes the lease at once through the MCP server (which saw its codex process go)', async () => {
    const repo = installed();
    const model = await scriptedModel();
    const home = codexHome({ baseUrl: model.server.baseUrl, trusted: [repo], ...WORKSPACE_WRITE });

    model.play([cli('next --json'), FIND_TOOLS, tool('substep', { step: 1, text: '1 — Interview' }), { text: 'Paused.' }]);
    const first = await run(repo, home, 'Run /autopilot.');
    const thread = expectClean(first);
    expect(leaseOf(repo)?.session).toBe(thread);

    model.play([
      cli('next --json'),
      cli('substep --step 1 --json "2 — Restrictions"'),
      FIND_TOOLS,
      tool('substep', { step: 1, text: '3 — Acceptance criteria' }),
      { text: 'Going on.' },
    ]);
    const resumed = await run(repo, home, 'Continue /autopilot.', ['resume', thread]);
    expect(expectClean(resumed)).toBe(thread);
    expect(commands(resumed).map((c) => [c.exit, c.json.action ?? c.json.outcome, c.json.resume ?? c.json.sub_step])).toEqual([
      [0, 'resume', '1 — Interview'],
      [0, 'recorded', '2 — Restrictions'],
    ]);
    expect(mcpCalls(resumed).map((c) => [c.tool, c.status])).toEqual([['substep', 'completed']]);
    expectNeverHeld(model, first, resumed);
    const afterResume = journal(repo);
    expect(afterResume.map((line) => line.event)).toEqual(['run_started', 'step_started', 'substep', 'substep', 'substep']);
    expect(afterResume.every((line) => line.session === thread)).toBe(true);
    expect(leaseOf(repo)?.session).toBe(thread);

    // A new conversation, through the MCP server (outside the sandbox, it sees the machine's processes). The last call
    // was the MCP server's, which recorded the resumed run's codex process: gone now, so taken over at once.
    model.play([FIND_TOOLS, tool('next', {}), { text: 'Resumed the step.' }]);
    const fresh = await run(repo, home, 'Run /autopilot.');
    const next = expectClean(fresh);
    expect(next).not.toBe(thread);
    expect(mcpCalls(fresh).map((c) => [c.tool, c.status, c.result?.action, c.result?.resume])).toEqual([
      ['next', 'completed', 'resume', '3 — Acceptance criteria'],
    ]);
    expectNeverHeld(model, fresh);
    expect(journal(repo).slice(afterResume.length)).toEqual([
      expect.objectContaining({ event: 'lease_taken_over', session: next, from: thread, reason: 'gone' }),
    ]);
    expect(leaseOf(repo)?.session).toBe(next);
  });

  // Codex's workspace-write sandbox runs each shell command in a PID namespace of its own (its pid 1 is
  // codex-linux-sandbox): a command sees neither codex nor any process outside, so the lease a shell command
  // renews names no conversation, and only the heartbeat's age (10 minutes) frees it. With the hooks trusted,
  // SessionEnd releases it (next test); without them, the next conversation waits.
  it.fails('without the hooks, a new thread goes on at once after a thread whose last call was a shell command', async () => {
    const repo = installed();
    const model = await scriptedModel();
    const home = codexHome({ baseUrl: model.server.baseUrl, trusted: [repo], ...WORKSPACE_WRITE });
    model.play([cli('next --json'), cli('substep --step 1 --json "1 — Interview"'), { text: 'Paused.' }]);
    const thread = expectClean(await run(repo, home, 'Run /autopilot.'));
    model.play([cli('next --json'), { text: 'Going on.' }]);
    const fresh = await run(repo, home, 'Run /autopilot.');
    expect(expectClean(fresh)).not.toBe(thread);
    expect(commands(fresh).map((c) => c.exit)).toEqual([0]);
  });

  it('with the hooks trusted: SessionStart puts the status before the prompt, in words for Codex; SessionEnd releases the lease, so a new thread goes on with no take-over', async () => {
    const repo = installed();
    const model = await scriptedModel();
    const home = codexHome({ baseUrl: model.server.baseUrl, trusted: [repo], ...WORKSPACE_WRITE });
    const hooks = await trustHooks(home, repo);
    expect(hooks.map((hook) => [hook.eventName, hook.timeoutSec])).toEqual([
      ['sessionStart', 10],
      ['sessionEnd', 3],
    ]);

    model.play([cli('next --json'), cli('substep --step 1 --json "1 — Interview"'), { text: 'Paused.' }]);
    const first = await run(repo, home, 'Run /autopilot.');
    const thread = expectClean(first);
    expect(leaseOf(repo)).toBeUndefined();

    const turnsBefore = model.server.turns().length;
    model.play([cli('next --json'), FIND_TOOLS, tool('substep', { step: 1, text: '2 — Restrictions' }), { text: 'Going on.' }]);
    const second = await run(repo, home, 'Run /autopilot.');
    const other = expectClean(second);
    expect(other).not.toBe(thread);
    expect(commands(second).map((c) => [c.exit, c.json.action])).toEqual([[0, 'resume']]);
    expect(mcpCalls(second).map((c) => [c.tool, c.status])).toEqual([['substep', 'completed']]);
    expectNeverHeld(model, first, second);
    expect(journal(repo).map((line) => [line.event, line.session])).toEqual([
      ['run_started', thread],
      ['step_started', thread],
      ['substep', thread],
      ['substep', other],
    ]);
    expect(leaseOf(repo)).toBeUndefined();

    /** The SessionStart hook's text: a developer message of its own, after AGENTS.md and before the prompt. */
    const startText = (body: ResponsesBody) => {
      const messages = body.input.filter((item) => item.type === 'message');
      const at = messages.findIndex((item) => item.role === 'developer' && itemText(item).startsWith('autopilot session: '));
      expect(at).toBeGreaterThan(messages.findIndex((item) => item.role === 'user' && itemText(item).startsWith('# AGENTS.md instructions for ')));
      expect(at).toBe(messages.length - 2);
      return itemText(messages[at]!);
    };
    const continueLine = `Continue with the Autopilot section of AGENTS.md (\`${BIN} next --json\`).`;
    const atStart = startText(model.server.turns()[0]!);
    expect(atStart.split('\n')[0]).toBe(`autopilot session: ${thread}`);
    expect(atStart).toMatch(/^Step +1 of 10 · Problem$/m);
    expect(atStart).toMatch(/^Status +not_started$/m);
    const atSecond = startText(model.server.turns()[turnsBefore]!);
    // A status line past 80 columns wraps onto an indented line: read joined.
    expect(atSecond.replace(/\n {10}/g, ' ').split('\n')).toEqual([
      `autopilot session: ${other}`,
      'Autopilot · Greenfield — from a problem statement to a deployed product',
      expect.stringMatching(/^Step +1 of 10 · Problem$/),
      expect.stringMatching(/^Status +in_progress · sub-step 1 — Interview$/),
      expect.stringMatching(/^Retries +0 of 3$/),
      expect.stringMatching(/^Next +when done: step 2 Research$/),
      // The last action (seed 001's re-entry summary): what the thread before did.
      expect.stringMatching(/^Last +substep step 1 \(Problem\): 1 — Interview \(partial, /),
      continueLine,
    ]);
    // Words for Codex: no environment file (Codex has none), no /autopilot command (Claude Code's), no --session to pass.
    for (const text of [atStart, atSecond]) {
      expect(text.split('\n').at(-1)).toBe(continueLine);
      expect(text).not.toMatch(/CLAUDE|ENV_FILE|Continue with \/autopilot|--session/);
    }
  });

  it('a thread at work keeps the lease: a second thread is refused (exit 4, shell and MCP) and told to ask the person; a person at a shell answers the decision and leaves the lease as it was', async () => {
    const repo = installed();
    const model = await scriptedModel();
    const home = codexHome({ baseUrl: model.server.baseUrl, trusted: [repo], ...WORKSPACE_WRITE });
    let reached!: () => void;
    const waiting = new Promise<void>((resolve) => (reached = resolve));
    let goOn!: () => void;
    const released = new Promise<void>((resolve) => (goOn = resolve));
    model.play([
      // An agent that checks the exit code, as AGENTS.md asks: bash runs the command as a child, not in its place.
      cli('next --json; echo "exit $?"'),
      async () => {
        reached();
        await released;
        return { text: 'Working on step 1.' };
      },
    ]);
    const running = run(repo, home, 'Run /autopilot.');
    await waiting;
    const thread = leaseOf(repo)?.session;

    // A second conversation while the first one's codex runs, through both doors.
    const second = await scriptedModel();
    const secondHome = codexHome({ baseUrl: second.server.baseUrl, trusted: [repo], ...WORKSPACE_WRITE });
    second.play([cli('next --json'), FIND_TOOLS, tool('next', {}), { text: 'Another session holds the repository; over to you.' }]);
    const refused = await run(repo, secondHome, 'Run /autopilot.');
    const other = person(repo, 'next', '--json');
    goOn();
    const codex = await running;
    expect(expectClean(codex)).toBe(thread);
    expect(expectClean(refused)).not.toBe(thread);

    const shell = commands(refused);
    expect(shell.map((c) => c.exit)).toEqual([4]);
    const error = (shell[0]!.json as { error: { code: string; message: string; decision: { id: string; question: string; options: unknown[] } } }).error;
    expect(error).toMatchObject({ code: 'held', decision: { id: 'take-over' } });
    expect(error.message).toContain(thread);
    // The person decides: the decision the agent is to show says so, and AGENTS.md tells the agent to stop on exit 4.
    expect(JSON.stringify(error.decision)).toMatch(/person/i);
    expect(agentsMessage(second.server.turns()[0]!)).toContain(
      '| another session holds it | 4 | `held` `lease_moved` | show `error.message`, `error.decision`; stop, ask the person |',
    );
    const mcp = mcpCalls(refused);
    expect(mcp.map((c) => c.tool)).toEqual(['next']);
    const mcpOutput = JSON.stringify(
      second.server
        .turns()
        .at(-1)!
        .input.filter((item) => item.type === 'function_call_output')
        .at(-1)!.output,
    );
    expect(mcpOutput).toMatch(/held/);
    expect(mcpOutput).toMatch(/take-over/);

    expect(other.code, other.stdout).toBe(4);
    expect(JSON.parse(other.stdout)).toMatchObject({ error: { code: 'held', decision: { id: 'take-over' } } });
    expect(journal(repo).map((line) => [line.event, line.session])).toEqual([
      ['run_started', thread],
      ['step_started', thread],
    ]);
    expect(leaseOf(repo)?.session).toBe(thread);
  });

  // Known flaky (1 failure in 3 runs alone, 1 in 5 full CI runs): the next thread's shell command is sometimes missing
  // from Codex's items. One retry until its cause is found (the closing note of issues 23-25 says so); a real regression fails both.
  it(
    'a killed thread is taken over at once by the MCP call of the next thread, journaled as gone (the MCP server recorded the codex process that died); its shell command cannot tell, and waits',
    { retry: 1 },
    async () => {
      const repo = installed();
      const model = await scriptedModel();
      const home = codexHome({ baseUrl: model.server.baseUrl, trusted: [repo], ...WORKSPACE_WRITE });
      let reached!: () => void;
      const waiting = new Promise<void>((resolve) => (reached = resolve));
      model.play([
        cli('next --json'),
        FIND_TOOLS,
        tool('substep', { step: 1, text: '1 — Interview' }),
        () => {
          reached();
          return new Promise<Turn>(() => {});
        },
      ]);
      let pid = 0;
      const running = runCodex({ cwd: repo, codexHome: home, prompt: 'Run /autopilot.', onStart: (started) => (pid = started) });
      await waiting;
      const held = leaseOf(repo)!;
      expect(held.conversation).toBeDefined();
      process.kill(-pid, 'SIGKILL');
      const killed = await running;
      expect(killed.signal).toBe('SIGKILL');
      const thread = killed.threadId!;
      expect(held.session).toBe(thread);
      // Ended: no such process, or a zombie its new parent has not reaped yet. SIGKILL ends a process when the kernel
      // has torn it down, which on a loaded machine comes after its pipes closed (what `running` waited for): until
      // then /proc still shows it running, so this waits for the end, as the next conversation would have.
      expect(await processEnded(held.conversation!.pid), `codex (pid ${held.conversation!.pid}) still runs 15 s after SIGKILL`).toBe(true);

      // The next thread: a shell command, in the sandbox, cannot see whether that codex runs, so it does not take over
      // (exit 4, saying so); the MCP tool, outside, sees it gone and goes on at once.
      model.play([cli('next --json'), FIND_TOOLS, tool('next', {}), { text: 'Resumed step 1.' }]);
      const fresh = await run(repo, home, 'Run /autopilot.');
      const next = expectClean(fresh);
      const shell = commands(fresh);
      expect(shell.map((c) => c.exit)).toEqual([4]);
      expect(JSON.stringify(shell[0]!.json)).toContain('cannot be told from here');
      expect(mcpCalls(fresh).map((c) => [c.tool, c.status, c.result?.action, c.result?.resume])).toEqual([['next', 'completed', 'resume', '1 — Interview']]);
      expect(journal(repo).map((line) => [line.event, line.session, line.from, line.reason])).toEqual([
        ['run_started', thread, undefined, undefined],
        ['step_started', thread, undefined, undefined],
        ['substep', thread, undefined, undefined],
        ['lease_taken_over', next, thread, 'gone'],
      ]);
      expect(leaseOf(repo)?.session).toBe(next);
    },
  );

  it('what only a person decides is refused in exec: decide and ack through exec_command (exec policy), `--json decide A` by autopilot itself (exit 2: an option before the command word); no MCP tool of theirs to call; the journal records none', async () => {
    const repo = installed();
    toTheDecision(repo);
    const model = await scriptedModel();
    const home = codexHome({ baseUrl: model.server.baseUrl, trusted: [repo], ...WORKSPACE_WRITE });
    model.play([
      cli('next --json'),
      FIND_TOOLS,
      // An agent that answers the decision itself, and acknowledges a failure, every way it can think of.
      together(
        cli('decide A --json', 'shell_decide'),
        cli('--json decide A', 'shell_before'),
        cli('ack --json', 'shell_ack'),
        tool('decide', { option: 'A' }, 'mcp_decide'),
        tool('ack', {}, 'mcp_ack'),
      ),
      { text: 'I could not answer it: the person decides.' },
    ]);
    const codex = await run(repo, home, 'Run /autopilot.');
    const thread = expectClean(codex);

    expect(commands(codex)).toEqual([
      {
        cmd: `${BIN} next --json`,
        exit: 3,
        json: expect.objectContaining({ outcome: 'decision', decision: expect.objectContaining({ id: 'research-round' }) }),
      },
      // No prefix rule can name an option before the command word (Codex matches whole words): autopilot refuses it.
      {
        cmd: `${BIN} --json decide A`,
        exit: 2,
        json: { error: expect.objectContaining({ code: 'bad_input', expected: `\`autopilot decide A --json\`` }) },
      },
    ]);
    // The shell decide and ack never ran: the exec policy init wrote asks first, and exec asks nobody.
    for (const call of ['shell_decide', 'shell_ack']) expect(model.output(call)).toContain('approval required by policy, but AskForApproval is set to Never');
    // Neither is an MCP tool: the calls reach no server.
    expect(mcpCalls(codex).filter((c) => c.status === 'completed')).toEqual([]);
    for (const call of ['mcp_decide', 'mcp_ack']) expect(model.output(call)).toMatch(/^unsupported call: mcp__autopilot/);
    // next found the first two steps done on disk, each judged, and stopped on the decision after them; nothing after that.
    const lines = journal(repo);
    expect(lines.map((line) => [line.event, line.session])).toEqual([
      ['run_started', thread],
      ['step_completed', thread],
      ['step_completed', thread],
      ['decision_required', thread],
    ]);

    // The decision was there to answer: the person answers it at a shell (rule 6). A person's answer acts on the
    // run, not as a driver: it is not refused for the thread's lease, and it leaves that lease as it was.
    const held = readFileSync(join(repo, '_docs/_autopilot/lease.json'), 'utf8');
    const answered = person(repo, 'decide', 'A', '--json');
    expect(answered.code, answered.stdout).toBe(0);
    expect(journal(repo).slice(lines.length)).toEqual([
      expect.objectContaining({ event: 'decision_answered', session: 'local', actor: 'person', option: 'A' }),
    ]);
    expect(readFileSync(join(repo, '_docs/_autopilot/lease.json'), 'utf8')).toBe(held);
  });

  it('an agent in exec cannot take the repository over from a live session, nor force a step: --take-over and --force right after the command word are refused like decide; anywhere else autopilot refuses them (exit 2)', async () => {
    const repo = installed();
    // A person's session holds the lease; its process (this test's) is alive.
    expect(person(repo, 'next', '--json', '--session', 'person').code).toBe(0);
    const model = await scriptedModel();
    const home = codexHome({ baseUrl: model.server.baseUrl, trusted: [repo], ...WORKSPACE_WRITE });
    model.play([
      cli('next --json'),
      together(
        cli('next --take-over --json', 'take_over'),
        cli('done --force --step 1 --json', 'force'),
        cli('next --json --take-over', 'take_over_late'),
        cli('decide A; echo "exit $?"', 'probe'),
      ),
      { text: 'Took it.' },
    ]);
    const codex = await run(repo, home, 'Run /autopilot.');
    expectClean(codex);
    expect(commands(codex)[0]).toMatchObject({ exit: 4, json: { error: expect.objectContaining({ code: 'held' }) } });

    for (const call of ['take_over', 'force']) expect(model.output(call)).toContain('approval required by policy, but AskForApproval is set to Never');
    // After another option no rule names it: autopilot refuses the line itself, saying where the option goes.
    expect(commands(codex).find((c) => c.cmd === `${BIN} next --json --take-over`)).toMatchObject({
      exit: 2,
      json: { error: expect.objectContaining({ code: 'bad_input', expected: `\`autopilot next --take-over --json\`` }) },
    });
    // A gap: a script Codex cannot split into plain commands (here for `$?`) is judged as one command, which no
    // prefix rule names, and runs. A person's answer is never refused for the lease (rule 6), so what stops this
    // decide is that no decision waits (exit 2, nothing written); the texts never spell it so.
    expect(model.output('probe')).toMatch(/Process exited with code 0[\s\S]*no decision is waiting[\s\S]*exit 2/);
    expect(journal(repo).map((line) => [line.event, line.session])).toEqual([
      ['run_started', 'person'],
      ['step_started', 'person'],
    ]);
    expect(leaseOf(repo)?.session).toBe('person');
  });
});

describe.skipIf(codexMissing).concurrent('autopilot under codex exec (danger-full-access)', () => {
  it('the exec policy still refuses decide through exec_command; Codex asks no MCP approval in this mode, but no MCP tool is a person’s: the decision stays the person’s', async () => {
    const repo = installed();
    toTheDecision(repo);
    const model = await scriptedModel();
    const home = codexHome({ baseUrl: model.server.baseUrl, trusted: [repo], topLevel: FULL_ACCESS });
    model.play([cli('next --json'), FIND_TOOLS, cli('decide A --json', 'shell_decide'), tool('decide', { option: 'A' }, 'mcp_decide'), { text: 'Answered.' }]);
    const codex = await run(repo, home, 'Run /autopilot.');
    expectClean(codex);

    expect(commands(codex).map((c) => [c.cmd, c.exit])).toEqual([[`${BIN} next --json`, 3]]);
    expect(model.output('shell_decide')).toContain('approval required by policy, but AskForApproval is set to Never');
    // Before, Codex ran the MCP decide here although its approval_mode was "prompt" (docs/codex-facts.md): the agent answered the person's decision.
    expect(mcpCalls(codex).filter((c) => c.status === 'completed')).toEqual([]);
    expect(model.output('mcp_decide')).toMatch(/^unsupported call: mcp__autopilot/);
    expect(journal(repo).filter((line) => line.event === 'decision_answered')).toEqual([]);
  });
});
