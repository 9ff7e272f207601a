/**
 * autopilot under the real Claude Code (the dev dependency), driven by a scripted model
 * (test/helpers/model-server.ts) that acts as an agent following the /autopilot text: one
 * conversation, one session (docs/sessions.md), for Bash and MCP calls alike; the next conversation
 * goes on after the last ended or crashed, and one that comes while another lives is sent to the
 * person; resume, continue and fork drive as the right session; what only a person decides
 * (decide, ack, --take-over) is refused in -p, and is no MCP tool; the command and the SessionStart hook put the status
 * in front of the model.
 *
 * Claude Code starts slowly on a loaded machine (seconds a conversation), so the tests are few and
 * each plays several conversations in one repository, in order, as a person's day would.
 *
 * Each test installs autopilot in a temporary git repository as a user does
 * (`node_modules/.bin/autopilot` → this checkout), runs `autopilot init --hooks`, allows what a user
 * would allow (`.claude/settings.local.json`), and checks the outcome in the journal, the lease, the
 * tool results Claude Code sent back to the model, and the result event's `permission_denials`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLAUDE, claudeHome, put, startClaude, tempDir, type ClaudeProcess, type ClaudeRun } from '../helpers/claude.js';
import { bash, startModelServer, toolUse, userText, type MessagesBody, type ModelServer, type ToolResult, type Turn } from '../helpers/model-server.js';
import { stepEvidence } from '../helpers/templates.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = 'node_modules/.bin/autopilot';
/** What a user allows so that -p runs the agent's ordinary calls; init's ask rules in .claude/settings.json must still win. */
const ALLOW = { permissions: { allow: [`Bash(${BIN}:*)`, 'mcp__autopilot'] } };
// Each test starts Claude Code one to four times; on a loaded machine one start takes seconds.
const TIMEOUT = 120_000;

const servers: ModelServer[] = [];
const running: ClaudeProcess[] = [];
afterEach(async () => {
  for (const claude of running.splice(0)) claude.kill();
  for (const server of servers.splice(0)) await server.close();
});

/** A git repository with autopilot installed as a user installs it, then `autopilot init --hooks` run in it; nothing here commits. */
function project(): string {
  const dir = realpathSync(tempDir('autopilot-agents-'));
  execFileSync('git', ['init', '-q'], { cwd: dir });
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(ROOT, join(dir, 'node_modules', 'md-autopilot'));
  symlinkSync('../md-autopilot/bin/autopilot.js', join(dir, 'node_modules', '.bin', 'autopilot'));
  cli(dir, ['init', '--hooks']);
  put(dir, '.claude/settings.local.json', ALLOW);
  return dir;
}

/** The installed command line, as a person runs it in the project (no session of any client in its environment); it must exit `expected`. */
function cli(dir: string, args: string[], options: { input?: string; expected?: number } = {}): string {
  const run = spawnSync(join(dir, BIN), args, {
    cwd: dir,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir },
    input: options.input,
  });
  expect(run.status, `autopilot ${args.join(' ')}: ${run.stdout}${run.stderr}`).toBe(options.expected ?? 0);
  return run.stdout;
}

interface JournalLine {
  seq: number;
  session: string;
  event: string;
  [key: string]: unknown;
}

function journal(dir: string): JournalLine[] {
  const file = join(dir, '_docs', '_autopilot', 'journal.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as JournalLine);
}

const leaseFile = (dir: string) => join(dir, '_docs', '_autopilot', 'lease.json');
const lease = (dir: string) => (existsSync(leaseFile(dir)) ? (JSON.parse(readFileSync(leaseFile(dir), 'utf8')) as { session: string }) : undefined);

/** `session event` for each journal line: what the test names show. */
const events = (lines: JournalLine[]) => lines.map((line) => `${line.session} ${line.event}`);

/** The conversation's id as the expanded /autopilot text carries it (`--session <id>`), the newest expansion's when a resumed request holds several. */
function sessionIn(body: MessagesBody): string {
  const ids = [...userText(body).matchAll(/--session ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/g)].map((m) => m[1]!);
  if (ids.length === 0) throw new Error('no --session <id> in the request');
  return ids.at(-1)!;
}

/** The exit code and the one JSON object of an autopilot command run through the Bash tool (Claude Code prefixes `Exit code N` when it is not 0). */
function bashAnswer(result: ToolResult | undefined): { exit: number; json: Record<string, unknown> } {
  if (!result) throw new Error('no tool result');
  const failed = /^Exit code (\d+)\n/.exec(result.text);
  const text = failed ? result.text.slice(failed[0].length) : result.text;
  return { exit: failed ? Number(failed[1]) : result.is_error ? -1 : 0, json: JSON.parse(text) as Record<string, unknown> };
}

/** A turn the script answers from the request: the session id read there, and the turn's index. */
type Step = (request: MessagesBody, index: number) => Turn | Promise<Turn>;

interface Conversation {
  claude: ClaudeProcess;
  server: ModelServer;
  /** The conversation's id, from the requests Claude Code sent (header `x-claude-code-session-id`). */
  id: () => string;
}

/** Starts `claude -p <prompt>` against a model that plays `steps` in order. */
async function converse(dir: string, prompt: string, steps: Step[], options: { home?: string; args?: string[] } = {}): Promise<Conversation> {
  const server = await startModelServer((request, index) => steps[index]?.(request, index));
  servers.push(server);
  const claude = startClaude({ cwd: dir, prompt, baseUrl: server.url, home: options.home, args: options.args, timeoutMs: TIMEOUT - 10_000 });
  running.push(claude);
  const id = () => {
    const header = server.requests.find((r) => r.kind === 'main')?.headers['x-claude-code-session-id'];
    if (typeof header !== 'string') throw new Error('no request named the conversation');
    return header;
  };
  return { claude, server, id };
}

/** A conversation run to its end; it must end cleanly. */
async function ended(conversation: Conversation): Promise<ClaudeRun> {
  const run = await conversation.claude.done;
  expect(run.timedOut, run.stderr).toBe(false);
  expect(run.code, run.stderr).toBe(0);
  expect(conversation.server.errors).toEqual([]);
  expect(run.result!.session_id).toBe(conversation.id());
  return run;
}

/** A turn that never comes until `release` is called: the model stalls. `reached` settles when Claude Code has asked for it. */
function stall(then: Turn = 'released') {
  let reach!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const step: Step = async () => {
    reach();
    await released;
    return then;
  };
  return { step, reached, release };
}

/** The SessionStart hook's context, as the first request of a conversation carries it. */
function hookContext(server: ModelServer): string {
  const context = /<system-reminder>\nSessionStart:startup hook success: ([\s\S]*?)<\/system-reminder>/.exec(userText(server.main()[0]!))?.[1];
  if (context === undefined) throw new Error('no SessionStart context in the first request');
  return context;
}

const say =
  (value: Turn): Step =>
  () =>
    value;

const t0 = () => {
  const start = Date.now();
  return () => `${((Date.now() - start) / 1000).toFixed(1)} s`;
};

// Skipped only when the dev dependency's binary is not installed; any other trouble fails.
describe.skipIf(!existsSync(CLAUDE))('autopilot under the real Claude Code', { concurrent: false }, () => {
  it(
    'one conversation is one session, and the next goes on: SessionStart puts the status in context, /autopilot expands with it inlined; MCP and Bash writes (next unnamed and named, substep by Bash and MCP, fail by Bash) never exit 4; SessionEnd releases the lease; a second conversation next exit 0 and substep, no take-over',
    // Two conversations, six autopilot calls: 63 s at a load of 10 on 2 cores.
    { timeout: 2 * TIMEOUT },
    async () => {
      const took = t0();
      const dir = project();
      // The /autopilot text asks for `session: "<id>"`; this agent forgets it once, first.
      const conversation = await converse(dir, '/autopilot please continue', [
        say(toolUse('mcp__autopilot__next', {}, 'next-unnamed')),
        (request) => toolUse('mcp__autopilot__next', { session: sessionIn(request) }, 'next-named'),
        say(bash(`${BIN} substep "1 — Interview" --json`, 'substep-bash')),
        say(toolUse('mcp__autopilot__substep', { text: '2 — Restrictions' }, 'substep-mcp')),
        say(bash(`${BIN} fail --reason x --json`, 'fail-bash')),
        say('done'),
      ]);
      const run = await ended(conversation);
      const id = conversation.id();

      // The SessionStart hook put the status in the first request's context, and told the agent to go on.
      const hook = hookContext(conversation.server);
      expect(hook.split('\n').slice(0, 4)).toEqual([
        `autopilot session: ${id}`,
        'Autopilot · Greenfield — from a problem statement to a deployed product',
        'Step      1 of 10 · Problem',
        'Status    not_started',
      ]);
      expect(hook).toContain(`Continue with /autopilot (\`${BIN} next --json\`).`);
      expect(run.events.find((e) => e.subtype === 'hook_response' && e.hook_name === 'SessionStart:startup')).toMatchObject({
        exit_code: 0,
        outcome: 'success',
      });
      // /autopilot expanded: its ! line inlined the status, $ARGUMENTS and ${CLAUDE_SESSION_ID} filled in.
      const blocks = conversation.server.main()[0]!.messages.at(-1)!.content as { type: string; text?: string }[];
      const [args = '', body = ''] = blocks.slice(-2).map((block) => block.text ?? '');
      expect(args).toContain('<command-name>/autopilot</command-name>\n<command-args>please continue</command-args>');
      expect(body).toMatch(/^Where the work stands:\nAutopilot · Greenfield — .*\nStep {6}1 of 10 · Problem\nStatus {4}not_started\n/);
      expect(body).toContain('\nThe person said: please continue\n');
      expect(body).toContain(`session: "${id}"`);
      expect(body).toContain(`${BIN} <command> --json --session ${id}`);
      expect(body).not.toMatch(/\$ARGUMENTS|\$\{CLAUDE_SESSION_ID\}|!`/);

      const results = conversation.server.toolResults();
      expect(results.map((r) => r.tool_use_id)).toEqual(['next-unnamed', 'next-named', 'substep-bash', 'substep-mcp', 'fail-bash']);
      for (const result of results) {
        expect(result.is_error, result.text).toBe(false);
        expect(result.text).not.toMatch(/"held"|Exit code 4/);
      }
      expect(JSON.parse(conversation.server.toolResult('substep-mcp')!.text)).toMatchObject({ sub_step: '2 — Restrictions', outcome: 'recorded' });
      expect(bashAnswer(conversation.server.toolResult('fail-bash')).json).toMatchObject({ retry_count: 1, reason: 'x', outcome: 'recorded' });
      // The first call named nobody: it took the lease as `local`; the first named call of the same
      // conversation (its process) renewed it under the name, and every later call, named by the
      // SessionStart hook's $AUTOPILOT_SESSION (Bash) or by nothing (MCP), drove as that session.
      const first = [`local run_started`, 'local step_started', `${id} substep`, `${id} substep`, `${id} step_failed`];
      expect(events(journal(dir))).toEqual(first);
      expect(run.result!.permission_denials).toEqual([]);
      // The conversation ended: the SessionEnd hook released the lease.
      expect(lease(dir)).toBeUndefined();
      const one = took();

      // A new conversation, its calls named by nothing but the SessionStart hook's $AUTOPILOT_SESSION: no exit 4, no take-over.
      const second = await converse(dir, 'go on with the workflow', [
        say(bash(`${BIN} next --json`, 'next-2')),
        say(bash(`${BIN} substep "3 — Retry" --json`, 'substep-2')),
        say('done'),
      ]);
      await ended(second);
      const two = second.id();
      expect(two).not.toBe(id);
      expect(bashAnswer(second.server.toolResult('next-2'))).toMatchObject({ exit: 0, json: { step: 1 } });
      expect(bashAnswer(second.server.toolResult('substep-2'))).toMatchObject({ exit: 0, json: { sub_step: '3 — Retry' } });
      expect(events(journal(dir)).slice(first.length)).not.toContainEqual(expect.stringContaining('lease_taken_over'));
      expect(events(journal(dir)).at(-1)).toBe(`${two} substep`);
      expect(lease(dir)).toBeUndefined();
      console.log(`scenario 1: conversation ${id}, 5 tool calls, ${one}; then ${two}, journal ${events(journal(dir)).join(', ')}, ${took()}`);
    },
  );
  it(
    'a conversation that dies is taken over at once; resume, continue and fork drive as the right session: while A lives (its model stalled) B is told to ask the person, its next is exit 4 with the decision, its --take-over by Bash denied and MCP has none; A killed (no SessionEnd); --resume A and --continue drive as A without a take-over; a new conversation C is told A has ended and its next takes over at once (reason gone); --resume A --fork-session drives as its own F',
    // Six conversations in one repository, the longest test: 83 s at a load of 10 on 2 cores.
    { timeout: 2 * TIMEOUT },
    async () => {
      const took = t0();
      const dir = project();
      const home = claudeHome();
      /** The agent follows the /autopilot text: next, then a substep naming the run, each with `--session <the id it shows>`. */
      const drive = (label: string): Step[] => [
        (request) => bash(`${BIN} next --json --session ${sessionIn(request)}`, `next-${label}`),
        (request) => bash(`${BIN} substep "${label}" --json --session ${sessionIn(request)}`, `substep-${label}`),
      ];
      /** A run whose commands ran and whose model then stalls: it lives until killed. */
      const living = async (label: string, args: string[]) => {
        const stalled = stall();
        const conversation = await converse(dir, '/autopilot', [...drive(label), stalled.step], { home, args });
        await stalled.reached;
        for (const id of [`next-${label}`, `substep-${label}`]) expect(bashAnswer(conversation.server.toolResult(id)).exit, id).toBe(0);
        return conversation;
      };
      /** It dies with everything under it (a crash: no SessionEnd), so its lease stays behind for the next run to judge. */
      const kill = async (conversation: Conversation) => {
        conversation.claude.kill();
        expect((await conversation.claude.done).signal).toBe('SIGKILL');
        return conversation.id();
      };
      const seen = (from: number) =>
        journal(dir)
          .filter((line) => line.seq > from)
          .map((line) => `${line.session} ${line.event}${typeof line.sub_step === 'string' ? ` ${line.sub_step}` : ''}`);
      const last = () => journal(dir).at(-1)?.seq ?? 0;

      const first = await living('new', []);
      const a = first.id();
      expect(seen(0)).toEqual([`${a} run_started`, `${a} step_started`, `${a} substep new`]);
      expect(lease(dir)).toMatchObject({ session: a });

      // While A lives, another conversation is refused, and the person's choice comes with the refusal;
      // the agent then tries to take over itself: by Bash it is denied (init's ask rule), by MCP there is no way.
      let from = last();
      const second = await converse(dir, 'drive the workflow', [
        say(bash(`${BIN} next --json`, 'next-b')),
        say([bash(`${BIN} next --take-over --json`, 'take-over-bash'), toolUse('mcp__autopilot__next', { take_over: true }, 'take-over-mcp')]),
        say('I asked the person.'),
      ]);
      const secondRun = await ended(second);
      const b = second.id();
      expect(hookContext(second.server)).toContain(`Another session holds this repository (${a} on `);
      expect(hookContext(second.server)).toContain('ask the person before you run autopilot; only they may take it over.');
      const refused = bashAnswer(second.server.toolResult('next-b'));
      expect(refused.exit).toBe(4);
      expect(refused.json).toMatchObject({
        error: {
          code: 'held',
          holder: { session: a },
          decision: {
            id: 'take-over',
            options: [
              { option: 'A', then: 'wait' },
              { option: 'B', then: 'take-over' },
            ],
            recommendation: { option: 'A' },
          },
        },
      });
      expect(secondRun.result!.permission_denials.map((denial) => [denial.tool_name, denial.tool_use_id])).toEqual([['Bash', 'take-over-bash']]);
      expect(second.server.toolResult('take-over-bash')).toMatchObject({
        is_error: true,
        text: "Claude requested permissions to use Bash, but you haven't granted it yet.",
      });
      const offered = second.server.main()[0]!.tools!.find((tool) => tool.name === 'mcp__autopilot__next')!;
      expect(JSON.stringify(offered.input_schema)).not.toMatch(/take_over|force/);
      const mcpTry = second.server.toolResult('take-over-mcp')!;
      expect(mcpTry.is_error, mcpTry.text).toBe(true);
      // The key is not the tool's: the call is an ordinary next, refused like B's first.
      expect(mcpTry.text).toMatch(/^held: /);
      expect(seen(from)).toEqual([]);
      expect(lease(dir)).toMatchObject({ session: a });

      // A dies: its lease stays behind. Resumed and continued, A drives as itself, no take-over.
      await kill(first);
      expect(lease(dir)).toMatchObject({ session: a });
      from = last();
      expect(await kill(await living('resume', ['--resume', a]))).toBe(a);
      expect(seen(from)).toEqual([`${a} substep resume`]);
      from = last();
      expect(await kill(await living('continue', ['--continue']))).toBe(a);
      expect(seen(from)).toEqual([`${a} substep continue`]);
      expect(lease(dir)).toMatchObject({ session: a });

      // A new conversation: its SessionStart context does not send the agent to the person (A's conversation is gone), and its next takes over at once.
      from = last();
      const third = await converse(dir, 'drive the workflow', [say(bash(`${BIN} next --json`, 'next-c')), say('done')]);
      await ended(third);
      const c = third.id();
      const context = hookContext(third.server);
      expect(context).toContain(`The session that held this repository (${a} on `);
      expect(context).toContain('has ended: `next` takes it over (journaled). Continue with /autopilot');
      expect(context).not.toContain('ask the person');
      const taken = bashAnswer(third.server.toolResult('next-c'));
      expect(taken).toMatchObject({ exit: 0, json: { step: 1, action: 'resume' } });
      expect(seen(from)).toEqual([`${c} lease_taken_over`]);
      expect(journal(dir).at(-1)).toMatchObject({ from: a, reason: 'gone' });
      expect(lease(dir)).toBeUndefined();

      // A fork of A is a conversation of its own: it drives as F, not as A.
      from = last();
      const fork = await converse(dir, '/autopilot', [...drive('fork'), say('done')], { home, args: ['--resume', a, '--fork-session'] });
      await ended(fork);
      const f = fork.id();
      expect(f).not.toBe(a);
      expect(bashAnswer(fork.server.toolResult('next-fork'))).toMatchObject({ exit: 0, json: { action: 'resume' } });
      expect(seen(from)).toEqual([`${f} substep fork`]);
      expect(lease(dir)).toBeUndefined();
      console.log(
        `scenario 2: A ${a} (new, killed, --resume, --continue); B ${b} exit ${refused.exit} while A lived; C ${c} exit ${taken.exit}; fork F ${f}; journal ${seen(0).join(', ')}, ${took()}`,
      );
    },
  );

  it(
    'what only a person decides is refused in -p: Bash decide and ack, and decide with an option before its command word, all 3 in permission_denials (ask beats allow); no MCP tool of theirs is offered, so those 2 calls find none; none journaled though a decision waits',
    { timeout: TIMEOUT },
    async () => {
      const took = t0();
      const dir = project();
      // A person brings the run to the Research decision, then ends their session: `decide A` would be taken if it ran.
      const person = ['--session', 'person', '--json'];
      cli(dir, ['next', ...person]);
      const put1 = (paths: string[]) => Object.entries(stepEvidence(paths)).forEach(([rel, text]) => put(dir, rel, text));
      put1(['_docs/00_problem/problem.md', '_docs/00_problem/acceptance_criteria.md']);
      cli(dir, ['done', '--step', '1', ...person]);
      cli(dir, ['next', ...person]);
      put1(['_docs/01_solution/solution_draft_01.md']);
      cli(dir, ['done', '--step', '2', ...person], { expected: 3 });
      expect(cli(dir, ['hook', 'session-end'], { input: '{"session_id":"person"}' })).toBe('autopilot: the lease is released.\n');
      expect(lease(dir)).toBeUndefined();
      const before = journal(dir);
      expect(before.at(-1)).toMatchObject({ event: 'decision_required', decision: 'research-round' });

      const conversation = await converse(dir, 'drive the workflow', [
        say(bash(`${BIN} next --json`, 'next')),
        say([
          bash(`${BIN} decide A --json`, 'decide-bash'),
          bash(`${BIN} ack`, 'ack-bash'),
          bash(`${BIN} --json decide A`, 'decide-before-bash'),
          toolUse('mcp__autopilot__decide', { option: 'A' }, 'decide-mcp'),
          toolUse('mcp__autopilot__ack', {}, 'ack-mcp'),
          // The same server's other tools run: the allow rule is there, the ask rules beat it.
          toolUse('mcp__autopilot__status', {}, 'status-mcp'),
        ]),
        say('I asked the person.'),
      ]);
      const run = await ended(conversation);
      expect(bashAnswer(conversation.server.toolResult('next'))).toMatchObject({ exit: 3, json: { outcome: 'decision', decision: { id: 'research-round' } } });
      const denied = ['decide-bash', 'ack-bash', 'decide-before-bash'];
      expect(run.result!.permission_denials.map((denial) => denial.tool_use_id)).toEqual(denied);
      expect(run.result!.permission_denials.map((denial) => denial.tool_name)).toEqual(['Bash', 'Bash', 'Bash']);
      for (const id of denied) {
        const result = conversation.server.toolResult(id)!;
        expect(result.is_error).toBe(true);
        expect(result.text).toBe("Claude requested permissions to use Bash, but you haven't granted it yet.");
      }
      // No tool of a person's is offered to the model: a call by its name finds none.
      const offered = conversation.server.main()[0]!.tools!.map((tool) => tool.name);
      expect(offered).toContain('mcp__autopilot__next');
      expect(offered.filter((name) => /^mcp__autopilot__(decide|ack|restore|repin|reset)$/.test(name))).toEqual([]);
      for (const id of ['decide-mcp', 'ack-mcp']) {
        const result = conversation.server.toolResult(id)!;
        expect(result.is_error, result.text).toBe(true);
        expect(result.text).toMatch(/No such tool available: mcp__autopilot__(decide|ack)/);
      }
      expect(conversation.server.toolResult('status-mcp')).toMatchObject({ is_error: false });
      expect(journal(dir)).toEqual(before);
      expect(lease(dir)).toBeUndefined();
      console.log(
        `scenario 3: ${conversation.id()}: ${denied.length} denied (${denied.join(', ')}), 2 MCP calls with no such tool, journal still ${before.length} lines, ${took()}`,
      );
    },
  );
});
