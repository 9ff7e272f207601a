/**
 * The whole run (issue 22, point 10): each real client — Claude Code and Codex — carries a greenfield
 * project from an empty repository to the end of the flow, over at least five conversations, with
 * two hard kills (SIGKILL, mid-conversation) and a person answering the questions from one terminal
 * that stays open for the whole test (a `bash` process the test writes commands to).
 *
 * The agent is scripted (test/helpers/model-server.ts, test/helpers/responses-server.ts) and decides
 * only from autopilot's answers: it calls `next`, writes the files the answer names (`write`, else
 * `done_when`, a pattern's `*` made `01`) with real sections taken from the step's skill (the
 * answer's `skill` file: one heading a sub-step, and the Markdown examples its Outputs give), calls
 * `done`, and on a decision or a boundary ends the conversation showing the question. There is no
 * list of step files here. The project's tests are real (`verify: node --test`, the person's choice
 * before `init`): each Implement batch writes a module and its test, the agent runs the tests
 * through `autopilot exec` and copies the Result lines it prints into each report that holds one,
 * written after the run (issue 29, point 4: a result counts only as a run autopilot observed).
 *
 * At the end: every step reached (completed, or passed over by its rule), none lost (check clean,
 * every file written present and committed), none repeated, no wait (no exit 4, no `held`, no stale
 * take-over), a clean tree, and one progress commit a completed step holding that step's files.
 * The figures are printed for the closing note.
 *
 * Which assertions wait for whose work (issue 22):
 * - h1 (a person's `decide` never takes the lease): without it the person's decide takes the lease
 *   for the terminal's shell, which stays open, so the next conversation gets exit 4: `waits` > 0
 *   and the run stops short (`reached`, `commits`, `clean` fail after it).
 * - h2 (progress commits by default in a repository with a first commit, and a clean tree after
 *   each): without it no step is committed (`commits`), `_docs/` stays untracked (`clean`).
 * - h4 (`next` names the file to write for a pattern, `write`): without it the agent derives the
 *   name from the pattern and the `write named` figure is 0 (asserted).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  bashAnswer,
  BIN,
  claudeMissing,
  codexMissing,
  git,
  journal,
  mcpAnswer,
  newProject,
  personEnv,
  processEnded,
  questionOf,
  resultFor,
  sessionIn,
  showQuestion,
  Terminal,
  WORKSPACE_WRITE,
  writeScript,
  type Answer,
  type Decision,
  type Written,
} from '../helpers/agent-run.js';
import { claudeHome, startClaude, tempDir } from '../helpers/claude.js';
import { codexHome, runCodex, tempFolder } from '../helpers/codex.js';
import { workFor, type Project } from '../helpers/step-writer.js';
import { bash, startModelServer, toolUse, type Turn as ClaudeTurn } from '../helpers/model-server.js';
import { startResponsesServer, type InputItem, type ResponsesBody, type Turn as CodexTurn } from '../helpers/responses-server.js';

/** A whole run: five to seven conversations of a real client, each a few seconds to start on a loaded machine. */
const TIMEOUT = 420_000;

// ---------------------------------------------------------------------------
// One conversation's agent, whatever the client: what it does next, from the last answer.

type Move =
  | { kind: 'next' }
  | { kind: 'done'; step: number }
  | { kind: 'write'; step: number; files: Written[] }
  | { kind: 'run'; step: number; later: Written[] }
  | { kind: 'say'; text: string }
  | { kind: 'stall' };

/** A point where the test kills the client: before the agent calls `done` for a step, or before the `next` that follows a step's `done`. */
interface KillPoint {
  before: 'done' | 'next';
  step: number;
}

interface RunLog {
  answers: { conversation: number; call: string; answer: Answer }[];
  /** Each run of the project's tests through `autopilot exec`: the step, and the Result lines it printed. */
  runs: { step: number; result: string }[];
  written: Map<number, string[]>;
  counts: { named: number; derived: number };
}

/** The agent of one conversation: a queue of moves refilled from each answer. `stalled` settles when it reaches a kill point. */
function agent(project: Project, log: RunLog, conversation: number, kills: KillPoint[]) {
  const queue: Move[] = [{ kind: 'next' }];
  let lastStep = 0;
  let lastDone = 0;
  let ended: Answer | undefined;
  let reachStall!: () => void;
  const stalled = new Promise<void>((resolve) => (reachStall = resolve));

  const killHere = (before: 'done' | 'next', step: number) => {
    const at = kills.findIndex((k) => k.before === before && k.step === step);
    if (at < 0) return false;
    kills.splice(at, 1);
    return true;
  };

  /** The move after an autopilot answer. */
  const react = (call: string, answer: Answer) => {
    log.answers.push({ conversation, call, answer });
    const json = answer.json as { outcome?: string; step?: number | 'done'; action?: string; error?: { code?: string; message?: string; decision?: Decision } };
    if (answer.exit === 4 || json.error) {
      ended = answer;
      const decision = json.error?.decision;
      queue.push({ kind: 'say', text: `${json.error?.message ?? 'autopilot refused'}\n${decision ? showQuestion(decision) : ''}` });
      return;
    }
    switch (json.outcome) {
      case 'work': {
        const step = json.step as number;
        lastStep = step;
        const files = workFor(answer, project, log.counts);
        if (files.length) log.written.set(step, [...(log.written.get(step) ?? []), ...files.map((f) => f.path)]);
        // A report with a Result is written after the tests run through `autopilot exec`, with the lines it printed.
        const later = files.filter((f) => /^## Result\s*$/m.test(f.text));
        const now = files.filter((f) => !later.includes(f));
        if (now.length) queue.push({ kind: 'write', step, files: now });
        if (later.length) queue.push({ kind: 'run', step, later });
        else queue.push({ kind: 'done', step });
        return;
      }
      case 'advanced':
      case 'recorded':
        lastDone = lastStep;
        queue.push({ kind: 'next' });
        return;
      case 'decision':
      case 'boundary':
        ended = answer;
        queue.push({ kind: 'say', text: showQuestion(questionOf(answer)!) });
        return;
      case 'complete':
        ended = answer;
        queue.push({ kind: 'say', text: 'The workflow is complete: every step is done.' });
        return;
      default:
        ended = answer;
        queue.push({ kind: 'say', text: `Stopped: ${JSON.stringify(answer.json)}` });
    }
  };

  /** The next move; a kill point makes it a stall (the model never answers: the test kills the client). */
  const move = (): Move => {
    const next = queue.shift();
    if (!next) throw new Error(`conversation ${conversation}: the agent has nothing to do`);
    if ((next.kind === 'done' && killHere('done', next.step)) || (next.kind === 'next' && lastDone > 0 && killHere('next', lastDone))) {
      queue.unshift(next);
      reachStall();
      return { kind: 'stall' };
    }
    return next;
  };

  /** What `autopilot exec` printed: its Result lines go into the reports held back for them, then `done`. */
  const ran = (run: Extract<Move, { kind: 'run' }>, output: string) => {
    const lines = /^Command: .*\nExit code: .*\nTotals: .*$/m.exec(output)?.[0];
    if (!lines) throw new Error(`conversation ${conversation}: autopilot exec printed no Result lines:\n${output}`);
    const [command, exit, totals] = lines.split('\n');
    const files = run.later.map((f) => ({
      ...f,
      text: f.text
        .replace(/^Command: .*$/m, command!)
        .replace(/^Exit code: .*$/m, exit!)
        .replace(/^Totals: .*$/m, totals!),
    }));
    log.runs.push({ step: run.step, result: lines });
    queue.push({ kind: 'write', step: run.step, files }, { kind: 'done', step: run.step });
  };

  return { react, ran, move, stalled, ended: () => ended };
}

// ---------------------------------------------------------------------------
// The figures of a whole run.

interface StepCommit {
  sha: string;
  step: number;
  files: string[];
}

/** Progress commits of completed steps (trailers `Autopilot-Step`, `Autopilot-Status: completed`), with the files each holds. */
function stepCommits(repo: string): { all: number; steps: StepCommit[] } {
  const log = git(
    repo,
    'log',
    '--format=%H%x09%(trailers:key=Autopilot-Step,valueonly,separator=%x2C)%x09%(trailers:key=Autopilot-Status,valueonly,separator=%x2C)',
  );
  const rows = log
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t'));
  const progress = rows.filter((row) => row[1]);
  const steps = progress
    .filter((row) => row[2] === 'completed' && /^\d+$/.test(row[1]!))
    .map(([sha, step]) => ({ sha: sha!, step: Number(step), files: git(repo, 'show', '--name-only', '--format=', sha!).split('\n').filter(Boolean) }));
  return { all: progress.length, steps };
}

interface Figures {
  client: string;
  conversations: number;
  kills: number;
  answersTyped: number;
  completed: number[];
  passedOver: number[];
  reached: number;
  flowComplete: boolean;
  repeated: number[];
  /** Files the agent wrote that are gone from the work tree. */
  lost: string[];
  /** Files the agent wrote that HEAD does not hold. */
  uncommitted: string[];
  terminalAlive: boolean;
  waits: number;
  checkOk: boolean;
  commits: number;
  stepsCommitted: number;
  stepsWithTheirFiles: number;
  clean: string;
  namedByWrite: number;
  derived: number;
  /** Runs of the project's tests the agent made through `autopilot exec`, and those autopilot journaled green with at least one test. */
  testRuns: number;
  observedGreen: number;
  /** The test command the run was pinned to. */
  pinned: string | null | undefined;
  seconds: number;
}

function figures(
  client: string,
  project: Project,
  log: RunLog,
  terminal: Terminal,
  counts: { conversations: number; kills: number },
  started: number,
): Figures {
  const { repo } = project;
  const lines = journal(repo);
  const byStep = (event: string) => {
    const seen = new Map<number, number>();
    for (const line of lines) if (line.event === event && typeof line.step === 'number') seen.set(line.step, (seen.get(line.step) ?? 0) + 1);
    return seen;
  };
  const completed = byStep('step_completed');
  const skipped = byStep('step_skipped');
  const started_ = byStep('step_started');
  const repeated = [...completed.entries()].filter(([, n]) => n > 1).map(([step]) => step);
  for (const [step, n] of started_) if (n > 1 && !repeated.includes(step)) repeated.push(step);
  const heldAnswers = log.answers.filter((a) => a.answer.exit === 4 || (a.answer.json.error as { code?: string } | undefined)?.code === 'held').length;
  const staleTakeOvers = lines.filter((line) => line.event === 'lease_taken_over' && line.reason !== 'gone').length;
  const check = spawnSync(join(repo, BIN), ['check', '--json'], { cwd: repo, encoding: 'utf8', env: personEnv() });
  const writtenAll = [...log.written.values()].flat();
  const head = new Set(git(repo, 'ls-tree', '-r', '--name-only', 'HEAD').split('\n'));
  const lost = writtenAll.filter((path) => !existsSync(join(repo, path)));
  const uncommitted = writtenAll.filter((path) => !head.has(path));
  const commits = stepCommits(repo);
  const withFiles = [...log.written.entries()].filter(([step, files]) => {
    const mine = commits.steps.filter((c) => c.step === step);
    return mine.length === 1 && files.every((file) => mine[0]!.files.includes(file));
  });
  const passedOver = [...skipped.keys()].filter((step) => !completed.has(step));
  return {
    client,
    conversations: counts.conversations,
    kills: counts.kills,
    answersTyped: terminal.typed.length,
    completed: [...completed.keys()].sort((a, b) => a - b),
    passedOver,
    reached: new Set([...completed.keys(), ...passedOver]).size,
    flowComplete: lines.some((line) => line.event === 'flow_completed'),
    repeated,
    lost,
    uncommitted,
    terminalAlive: terminal.alive,
    waits: heldAnswers + staleTakeOvers,
    checkOk: check.status === 0,
    commits: commits.all,
    stepsCommitted: new Set(commits.steps.map((c) => c.step)).size,
    stepsWithTheirFiles: withFiles.length,
    clean: git(repo, 'status', '--porcelain'),
    namedByWrite: log.counts.named,
    derived: log.counts.derived,
    testRuns: log.runs.length,
    observedGreen: lines.filter((l) => l.event === 'command_run' && l.command === 'node --test' && l.exit_code === 0 && (l.totals?.passed ?? 0) > 0).length,
    pinned: lines.find((l) => l.event === 'verify_pinned')?.command,
    seconds: Math.round((Date.now() - started) / 1000),
  };
}

function report(f: Figures): void {
  console.log(
    [
      `whole run (${f.client}): steps reached ${f.reached}/10 (${f.completed.length} completed, ${f.passedOver.length} passed over by their rule${f.passedOver.length ? `: ${f.passedOver.join(', ')}` : ''}), flow complete ${f.flowComplete ? 'yes' : 'no'}`,
      `  lost ${f.lost.length}${f.lost.length ? ` (${f.lost.join(', ')})` : ''}, not in HEAD ${f.uncommitted.length}, check ${f.checkOk ? 'clean' : 'NOT clean'}, repeated ${f.repeated.length}, waits ${f.waits}`,
      `  conversations ${f.conversations}, hard kills ${f.kills}, answers typed in one open terminal ${f.answersTyped}`,
      `  progress commits ${f.commits}, completed steps committed ${f.stepsCommitted}/${f.completed.length}, each holding its files ${f.stepsWithTheirFiles}/${f.completed.length}, tree ${f.clean ? `NOT clean:\n${f.clean}` : 'clean'}`,
      `  the project's tests (${f.pinned ?? 'none pinned'}) run through autopilot exec ${f.testRuns} times, ${f.observedGreen} journaled green with at least one test`,
      `  file names from next's write ${f.namedByWrite}, derived from a pattern ${f.derived}; ${f.seconds} s`,
    ].join('\n'),
  );
}

/** The issue's targets, each assertion marked with the helper whose work it waits for. */
function expectTargets(f: Figures): void {
  expect(f.terminalAlive, 'the person’s terminal stayed open').toBe(true);
  // The run's shape; without h1 it stops at the first exit 4, before the kills.
  expect.soft(f.conversations, 'conversations [h1]').toBeGreaterThanOrEqual(5);
  expect.soft(f.kills, 'hard kills [h1]').toBe(2);
  expect.soft(f.answersTyped, 'answers the person typed [h1]').toBeGreaterThanOrEqual(2);
  // h1: a person's decide leaves the lease to the conversations: no exit 4, and the run goes on to the end.
  expect.soft(f.waits, 'waits (exit 4, held, stale take-overs) [h1]').toBe(0);
  expect.soft(f.reached, 'steps reached [h1]').toBe(10);
  expect.soft(f.flowComplete, 'flow complete [h1]').toBe(true);
  // Holds today.
  expect.soft(f.repeated, 'steps repeated').toEqual([]);
  expect.soft(f.lost, 'files lost').toEqual([]);
  expect.soft(f.checkOk, 'autopilot check').toBe(true);
  // h2: every completed step committed by default, its files in its commit, nothing left modified.
  expect.soft(f.uncommitted, 'written files HEAD does not hold [h2]').toEqual([]);
  expect.soft(f.stepsCommitted, 'completed steps with a progress commit [h2]').toBe(f.completed.length);
  expect.soft(f.stepsWithTheirFiles, 'steps whose one commit holds their files [h2]').toBe(f.completed.length);
  expect.soft(f.clean, 'git status --porcelain [h2]').toBe('');
  // h4: next names the file to write for a pattern.
  expect.soft(f.derived, 'file names the agent had to derive from a pattern [h4]').toBe(0);
  // g3 (issue 29, point 4): the reports' results are runs of the project's own tests that autopilot observed.
  expect.soft(f.pinned, 'the test command the run is pinned to [g3]').toBe('node --test');
  expect.soft(f.testRuns, 'runs of the project’s tests (Implement, Run Tests at least) [g3]').toBeGreaterThanOrEqual(2);
  expect.soft(f.observedGreen, 'runs autopilot journaled green with at least one test [g3]').toBeGreaterThanOrEqual(f.testRuns);
}

// ---------------------------------------------------------------------------
// The run, client by client.

/** The plan every run follows: two kills, one before a step's done (it is resumed), one between a done and the next call. */
const KILLS = (): KillPoint[] => [
  { before: 'done', step: 3 },
  { before: 'next', step: 7 },
];
/** More conversations than the plan needs would mean the run is stuck: stop there. */
const MAX_CONVERSATIONS = 9;

interface Conversation {
  /** Settles when the client exits. */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; detail: string }>;
  /** SIGKILL the client and everything it started. */
  kill: () => void;
}

/**
 * Drives conversations until the flow completes (or the run is stuck), killing the client at each
 * kill point and having the person answer, from their open terminal, each question a conversation
 * ended on (the recommended option, as `autopilot decide <option>`).
 */
async function wholeRun(
  client: string,
  project: Project,
  start: (conversation: number, brain: ReturnType<typeof agent>) => Promise<Conversation>,
): Promise<Figures> {
  const started = Date.now();
  const terminal = new Terminal(project.repo);
  const log: RunLog = { answers: [], runs: [], written: new Map(), counts: { named: 0, derived: 0 } };
  const kills = KILLS();
  const counts = { conversations: 0, kills: 0 };
  let stuck = 0;
  try {
    while (counts.conversations < MAX_CONVERSATIONS && !journal(project.repo).some((line) => line.event === 'flow_completed')) {
      const number = ++counts.conversations;
      const before = journal(project.repo).length;
      const brain = agent(project, log, number, kills);
      const conversation = await start(number, brain);
      const first = await Promise.race([conversation.done.then(() => 'ended' as const), brain.stalled.then(() => 'stalled' as const)]);
      if (first === 'stalled') {
        // Mid-conversation: the model has been asked for its next move; the client dies with everything it started.
        const leaseFile = join(project.repo, '_docs/_autopilot/lease.json');
        const holder = existsSync(leaseFile) ? (JSON.parse(readFileSync(leaseFile, 'utf8')) as { conversation?: { pid: number } }).conversation : undefined;
        conversation.kill();
        const killed = await conversation.done;
        expect(killed.signal, killed.detail).toBe('SIGKILL');
        counts.kills++;
        // SIGKILL ends a process once the kernel has torn it down: wait for that (not a sleep), as the next conversation would find it.
        if (holder) expect(await processEnded(holder.pid), `the killed conversation (pid ${holder.pid}) ended`).toBe(true);
        continue;
      }
      const ended = await conversation.done;
      expect(ended.code, ended.detail).toBe(0);
      const last = brain.ended();
      const question = last && questionOf(last);
      if (question && last.exit !== 4 && !last.json.error) {
        const lines = journal(project.repo).length;
        const typed = await terminal.type(`${BIN} decide ${question.recommendation.option}`);
        // A decision's answer exits 0. A boundary's recommended A (a new conversation) exits 3 with the block that
        // says to start one: the answer is journaled either way, which is what the next conversation goes on from.
        const answered = journal(project.repo)
          .slice(lines)
          .map((line) => line.event);
        expect(
          answered.some((event) => event === 'decision_answered' || event === 'boundary_answered'),
          typed.output,
        ).toBe(true);
        expect([0, 3], typed.output).toContain(typed.code);
      }
      stuck = journal(project.repo).length === before ? stuck + 1 : 0;
      if (stuck >= 2) break;
    }
    const result = figures(client, project, log, terminal, counts, started);
    report(result);
    return result;
  } finally {
    terminal.close();
  }
}

// ---------------------------------------------------------------------------
// Claude Code: Bash for autopilot (named `--session <id>` as /autopilot says), the Write tool for files.

describe.skipIf(claudeMissing)('the whole run under the real Claude Code', () => {
  it(
    'a greenfield project from the first conversation to the end: 5+ conversations, 2 hard kills, a person answering from one open terminal; 10/10 steps reached, 0 lost, 0 repeated, 0 waits, a clean tree, one commit a completed step holding its files',
    { timeout: TIMEOUT },
    async () => {
      const project: Project = { repo: newProject(tempDir('autopilot-whole-claude-')), ui: false, name: 'the reading-list command-line tool' };
      const home = claudeHome();
      const servers: { close: () => Promise<void> }[] = [];
      const f = await wholeRun('Claude Code', project, async (_number, brain) => {
        let pending: { id: string; call: string; run?: Extract<Move, { kind: 'run' }> } | undefined;
        let n = 0;
        const server = await startModelServer(async (request): Promise<ClaudeTurn> => {
          if (pending) {
            const text = resultFor(request, pending.id);
            if (pending.call === 'run' && /^Exit code/.test(text ?? '')) throw new Error(`autopilot exec failed: ${text ?? ''}`);
            if (pending.run) brain.ran(pending.run, text ?? '');
            else if (pending.call !== 'write') brain.react(pending.call, bashAnswer(text ?? ''));
            pending = undefined;
          }
          const move = brain.move();
          const id = `toolu_whole_${String(++n).padStart(4, '0')}`;
          switch (move.kind) {
            case 'stall':
              return new Promise<ClaudeTurn>(() => {});
            case 'say':
              return move.text;
            case 'next':
              pending = { id, call: 'next' };
              return bash(`${BIN} next --json --session ${sessionIn(request)}`, id);
            case 'done':
              pending = { id, call: 'done' };
              return bash(`${BIN} done --step ${move.step} --json --session ${sessionIn(request)}`, id);
            case 'run':
              pending = { id, call: 'run', run: move };
              return bash(`${BIN} exec --session ${sessionIn(request)}`, id);
            case 'write': {
              // One Write a file, in one turn; the last one's id is the one waited on.
              const blocks = move.files.map((file, i) => toolUse('Write', { file_path: join(project.repo, file.path), content: file.text }, `${id}_${i}`));
              pending = { id: blocks.at(-1)!.id, call: 'write' };
              return blocks;
            }
          }
        });
        servers.push(server);
        const claude = startClaude({ cwd: project.repo, prompt: '/autopilot', baseUrl: server.url, home, timeoutMs: 150_000 });
        return {
          kill: claude.kill,
          done: claude.done.then((run) => ({
            code: run.code,
            signal: run.signal,
            detail: `${run.stderr}\n${server.errors.join('\n')}\n${run.result?.result ?? ''}\ndenied: ${JSON.stringify(run.result?.permission_denials ?? [])}`,
          })),
        };
      });
      for (const server of servers) await server.close();
      expectTargets(f);
    },
  );
});

// ---------------------------------------------------------------------------
// Codex: the autopilot MCP tools (the shell's commands run in a sandbox that cannot see a killed
// conversation end, docs/codex-facts.md), exec_command for files.

describe.skipIf(codexMissing)('the whole run under the real Codex', () => {
  it(
    'a greenfield project from the first conversation to the end: 5+ conversations, 2 hard kills, a person answering from one open terminal; 10/10 steps reached, 0 lost, 0 repeated, 0 waits, a clean tree, one commit a completed step holding its files',
    { timeout: TIMEOUT },
    async () => {
      const project: Project = { repo: newProject(tempFolder('autopilot-whole-codex-')), ui: true, name: 'the reading-list web app' };
      let script: ((body: ResponsesBody) => Promise<CodexTurn>) | undefined;
      const server = await startResponsesServer((body) => script!(body));
      const home = codexHome({ baseUrl: server.baseUrl, trusted: [project.repo], ...WORKSPACE_WRITE });
      try {
        const f = await wholeRun('Codex', project, (_number, brain) => {
          let pending: { id: string; call: string; run?: Extract<Move, { kind: 'run' }> } | undefined;
          let n = 0;
          let toolsFound = false;
          let searches = 0;
          script = async (body) => {
            const since = body.input.slice(body.input.map((i) => i.type === 'message' && i.role === 'user').lastIndexOf(true) + 1);
            const last: InputItem | undefined = since.at(-1);
            if (!toolsFound) {
              if (last?.type === 'tool_search_output' && JSON.stringify(last.tools).includes('"mcp__autopilot"')) toolsFound = true;
              else {
                // Codex starts MCP servers in the background: search until the autopilot tools show.
                if (++searches > 240) throw new Error('the autopilot MCP server never showed up');
                if (last?.type === 'tool_search_output') await new Promise((resolve) => setTimeout(resolve, 250));
                return { toolSearch: 'autopilot next done substep' };
              }
            }
            if (pending) {
              const output = since.find((item) => item.type === 'function_call_output' && item.call_id === pending!.id)?.output;
              if (pending.call === 'write' || pending.call === 'run') {
                if (!/Process exited with code 0/.test(String(output))) throw new Error(`${pending.call} failed: ${String(output)}`);
                if (pending.run) brain.ran(pending.run, String(output));
              } else brain.react(pending.call, mcpAnswer(output));
              pending = undefined;
            }
            const move = brain.move();
            const id = `call_whole_${++n}`;
            switch (move.kind) {
              case 'stall':
                return new Promise<CodexTurn>(() => {});
              case 'say':
                return { text: move.text };
              case 'next':
                pending = { id, call: 'next' };
                return { calls: [{ namespace: 'mcp__autopilot', name: 'next', arguments: {}, callId: id }] };
              case 'done':
                pending = { id, call: 'done' };
                return { calls: [{ namespace: 'mcp__autopilot', name: 'done', arguments: { step: move.step }, callId: id }] };
              case 'run':
                pending = { id, call: 'run', run: move };
                return { calls: [{ name: 'exec_command', arguments: { cmd: 'node_modules/.bin/autopilot exec', yield_time_ms: 30_000 }, callId: id }] };
              case 'write':
                pending = { id, call: 'write' };
                return { calls: [{ name: 'exec_command', arguments: { cmd: writeScript(move.files), yield_time_ms: 30_000 }, callId: id }] };
            }
          };
          let pid = 0;
          const running = runCodex({
            cwd: project.repo,
            codexHome: home,
            prompt: 'Run /autopilot.',
            timeoutMs: 150_000,
            onStart: (started) => (pid = started),
          });
          return Promise.resolve({
            kill: () => process.kill(-pid, 'SIGKILL'),
            done: running.then((run) => ({ code: run.code, signal: run.signal, detail: `${run.stderr}\n${run.stdout.slice(-4000)}` })),
          });
        });
        expectTargets(f);
      } finally {
        await server.close();
      }
    },
  );
});
