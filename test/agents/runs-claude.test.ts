/**
 * Two named runs driven at once by two real Claude Code conversations (issue 32, Done-when).
 *
 * A person sets a project up (`init --hooks`, committed) and starts two runs of the greenfield flow,
 * `autopilot init --run alpha` and `--run beta`, committing what init wrote. Two `claude -p '/autopilot'`
 * processes start together, one with `AUTOPILOT_RUN=alpha`, one with `beta`, each against its own
 * scripted model (test/helpers/model-server.ts). Each agent decides only from what autopilot tells it:
 * the SessionStart hook's context names its run (and `--run NAME` is added to every call, as that
 * context says), `next --json` by Bash, the files the answer names written with real sections from the
 * step's skill (test/helpers/step-writer.ts), `done --json`, `next` again, until autopilot stops for a
 * person (greenfield's research decision, exit 3): the agent shows the question and ends. Each
 * conversation stalls its first turn, and again after its first call, until the other has got as far:
 * both are alive at once and their calls interleave.
 *
 * Asserted and printed: no exit 4 and no `held` in either conversation; each hook context names its
 * run; each run's journal has Problem completed and the decision pending, and the default run has no
 * file; each progress commit whose trailers say `Autopilot-Run: alpha` holds only alpha's files (and
 * code), likewise beta ([r3]: commits that hold their run's files only, with the run in their
 * trailers); `autopilot runs --json` lists both waiting on the decision with the command that answers
 * it; a clean tree. Then the person types the commands `runs` printed and a second pair of
 * conversations goes on one step each, again with no wait.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  bashAnswer,
  BIN,
  claudeMissing,
  git,
  journal,
  newProject,
  personEnv,
  questionOf,
  resultFor,
  sessionIn,
  showQuestion,
  type Answer,
  type Written,
} from '../helpers/agent-run.js';
import { claudeHome, startClaude, tempDir, type ClaudeRun } from '../helpers/claude.js';
import { bash, startModelServer, toolUse, userText, type MessagesBody, type ModelServer, type Turn } from '../helpers/model-server.js';
import { workFor, type Project } from '../helpers/step-writer.js';

/** Two rounds of two conversations, each a few seconds to start on a loaded machine, and each stalled until the other catches up. */
const TIMEOUT = 900_000;
const RUNS = ['alpha', 'beta'] as const;

/** A meeting point for the two conversations: `arrive()` settles once both have arrived. */
function meeting(parties = RUNS.length) {
  let arrived = 0;
  let open!: () => void;
  const all = new Promise<void>((resolve) => (open = resolve));
  return {
    arrive(): Promise<void> {
      if (++arrived === parties) open();
      return all;
    },
  };
}

type Move = { kind: 'next' } | { kind: 'done'; step: number } | { kind: 'write'; files: Written[] } | { kind: 'say'; text: string };

/** What one conversation saw: its hook context, the run it named, each autopilot answer, and the files it wrote. */
interface Seen {
  run: string;
  hook: string;
  named: string | undefined;
  answers: { call: string; answer: Answer }[];
  written: string[];
  steps: number[];
}

/** The run the SessionStart hook says this conversation drives, from the first request's context. */
function hookOf(body: MessagesBody): { hook: string; run: string | undefined } {
  const hook = /<system-reminder>\nSessionStart:startup hook success: ([\s\S]*?)<\/system-reminder>/.exec(userText(body))?.[1] ?? '';
  return { hook, run: /^autopilot run: (\S+) \(/m.exec(hook)?.[1] };
}

/**
 * One agent: a queue of moves refilled from each answer. It stops at a person's question, at a refusal, or (with
 * `steps`) once that many steps have been completed in this conversation.
 */
function agent(project: Project, seen: Seen, steps: number | undefined) {
  const queue: Move[] = [{ kind: 'next' }];
  const counts = { named: 0, derived: 0 };
  /** The step of the last `done` the agent called: the one an `advanced` answer completed. */
  let doing = 0;
  const react = (call: string, answer: Answer) => {
    seen.answers.push({ call, answer });
    const json = answer.json as { outcome?: string; step?: number; error?: { message?: string } };
    if (answer.exit === 4 || json.error) return queue.push({ kind: 'say', text: `autopilot refused: ${json.error?.message ?? answer.exit}` });
    if (json.outcome === 'work') {
      const files = workFor(answer, project, counts);
      seen.written.push(...files.map((f) => f.path));
      if (files.length) queue.push({ kind: 'write', files });
      return queue.push({ kind: 'done', step: json.step! });
    }
    if (json.outcome === 'advanced' || json.outcome === 'recorded') {
      seen.steps.push(doing);
      if (steps !== undefined && seen.steps.length >= steps) return queue.push({ kind: 'say', text: `Step done; stopping here as asked.` });
      return queue.push({ kind: 'next' });
    }
    const question = questionOf(answer);
    return queue.push({ kind: 'say', text: question ? showQuestion(question) : `Stopped: ${JSON.stringify(answer.json)}` });
  };
  const move = (): Move => {
    const next = queue.shift() ?? { kind: 'say', text: 'Nothing more to do.' };
    if (next.kind === 'done') doing = next.step;
    return next;
  };
  return { react, move };
}

/** One conversation of Claude Code on one run: its model server's script, the process, what it saw. */
async function converse(project: Project, run: string, steps: number | undefined, start: ReturnType<typeof meeting>, firstCall: ReturnType<typeof meeting>) {
  const seen: Seen = { run, hook: '', named: undefined, answers: [], written: [], steps: [] };
  const brain = agent(project, seen, steps);
  let pending: { id: string; call: string } | undefined;
  let n = 0;
  const server = await startModelServer(async (request, index): Promise<Turn> => {
    if (index === 0) {
      ({ hook: seen.hook, run: seen.named } = hookOf(request));
      // Both conversations alive before either calls autopilot.
      await start.arrive();
    }
    if (pending) {
      const text = resultFor(request, pending.id) ?? '';
      if (pending.call !== 'write') brain.react(pending.call, bashAnswer(text));
      else if (!/success|created|updated/i.test(text)) throw new Error(`${run}: a Write failed: ${text}`);
      // Each has made its first call before either makes its second.
      if (pending.call === 'next' && seen.answers.length === 1) await firstCall.arrive();
      pending = undefined;
    }
    const move = brain.move();
    const id = `toolu_${run}_${String(++n).padStart(4, '0')}`;
    const named = seen.named && seen.named !== 'default' ? ` --run ${seen.named}` : '';
    switch (move.kind) {
      case 'say':
        return move.text;
      case 'next':
        pending = { id, call: 'next' };
        return bash(`${BIN} next --json${named} --session ${sessionIn(request)}`, id);
      case 'done':
        pending = { id, call: 'done' };
        return bash(`${BIN} done --step ${move.step} --json${named} --session ${sessionIn(request)}`, id);
      case 'write': {
        const blocks = move.files.map((file, i) => toolUse('Write', { file_path: join(project.repo, file.path), content: file.text }, `${id}_${i}`));
        pending = { id: blocks.at(-1)!.id, call: 'write' };
        return blocks;
      }
    }
  });
  const claude = startClaude({
    cwd: project.repo,
    prompt: '/autopilot',
    baseUrl: server.url,
    home: claudeHome(),
    env: { AUTOPILOT_RUN: run },
    timeoutMs: 400_000,
  });
  return { seen, server, done: claude.done };
}

/** Two conversations started at the same time, one a run; settles when both have ended. */
async function pair(project: Project, steps: number | undefined) {
  const start = meeting();
  const firstCall = meeting();
  const sides = await Promise.all(RUNS.map((run) => converse(project, run, steps, start, firstCall)));
  const ended = await Promise.all(sides.map((side) => side.done));
  for (const side of sides) await side.server.close();
  return sides.map((side, i) => ({ ...side, run: ended[i]! }));
}

/** Exit 4, or a `held` error, in a conversation's answers or in any tool result Claude Code handed back. */
function waitsOf(side: { seen: Seen; server: ModelServer }): number {
  const answers = side.seen.answers.filter((a) => a.answer.exit === 4 || (a.answer.json.error as { code?: string } | undefined)?.code === 'held').length;
  const results = side.server.toolResults().filter((r) => /^Exit code 4\b|"code":\s*"held"/.test(r.text)).length;
  return answers + results;
}

/** Commits with an `Autopilot-Run` trailer, by run, with the files each holds. */
function runCommits(repo: string): Map<string, { sha: string; files: string[] }[]> {
  const out = new Map<string, { sha: string; files: string[] }[]>();
  const log = git(repo, 'log', '--format=%x00%H%n%(trailers:key=Autopilot-Run,valueonly)', '--name-only');
  for (const chunk of log.split('\0').filter(Boolean)) {
    const [sha, run, ...files] = chunk.split('\n').map((l) => l.trim());
    if (!run) continue;
    out.set(run, [...(out.get(run) ?? []), { sha: sha!, files: files.filter(Boolean) }]);
  }
  return out;
}

/** The default run's files: every file under the docs folder but the named runs' (`init` leaves an empty `_docs/_autopilot/`, no file). */
function defaultRunFiles(repo: string): string[] {
  return readdirSync(join(repo, '_docs'), { recursive: true, withFileTypes: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => relative(repo, join(entry.parentPath, entry.name)))
    .filter((path) => !path.startsWith('_docs/_runs/'));
}

/** Progress commits: those with an `Autopilot-Step` trailer. */
const progressCommits = (repo: string) =>
  git(repo, 'log', '--format=%(trailers:key=Autopilot-Step,valueonly,separator=%x2C)').split('\n').filter(Boolean).length;

/** A person's command in their own terminal (no agent's or autopilot's variables). */
function person(repo: string, line: string) {
  const run = spawnSync('bash', ['-c', line], { cwd: repo, encoding: 'utf8', env: personEnv() });
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}

interface RunEntry {
  run: string;
  step?: number;
  status?: string;
  waits_for?: { kind: string; question?: string; command: string };
}

/** What each of a conversation's answers said of its progress commit (`commit`, and any notice): shown where the tree is not clean. */
const commitsSaid = (seen: Seen) =>
  seen.answers
    .map(({ call, answer }) => {
      const json = answer.json as { commit?: string; notices?: string[] };
      return `    ${seen.run} ${call}: ${json.commit ?? 'no commit'}${json.notices?.length ? `; ${json.notices.join('; ')}` : ''}`;
    })
    .join('\n');

const detail = (side: { seen: Seen; server: ModelServer; run: ClaudeRun }) =>
  `${side.seen.run}: exit ${side.run.code}${side.run.timedOut ? ' (timed out)' : ''}\n${side.run.stderr}\n${side.server.errors.join('\n')}\n${side.run.result?.result ?? ''}\ndenied: ${JSON.stringify(side.run.result?.permission_denials ?? [])}`;

describe.skipIf(claudeMissing)('two named runs under two real Claude Code conversations at once', () => {
  it(
    '2 conversations at once on 2 runs (alpha, beta): each hook names its run, 0 waits, Problem completed and the decision pending in each, 0 default-run files, each run’s commits hold its files only, runs --json shows both decisions; the person answers both, 2 more conversations go on 1 step each with 0 waits',
    { timeout: TIMEOUT },
    async () => {
      const started = Date.now();
      const project: Project = { repo: newProject(tempDir('autopilot-runs-claude-')), ui: false, name: 'the reading-list command-line tool' };
      const { repo } = project;
      for (const run of RUNS) {
        const init = person(repo, `${BIN} init --run ${run} --flow greenfield`);
        expect(init.code, init.output).toBe(0);
      }
      git(repo, 'add', '-A');
      git(repo, 'commit', '--quiet', '-m', 'Start runs alpha and beta');

      // Round 1: both conversations at once, each until the person must answer.
      const first = await pair(project, undefined);
      for (const side of first) expect(side.run.code, detail(side)).toBe(0);
      const calls1 = first.map((s) => s.seen.answers.length);
      const waits1 = first.map(waitsOf);
      const lines = Object.fromEntries(RUNS.map((run) => [run, journal(repo, `_docs/_runs/${run}`)]));
      const defaultFiles = defaultRunFiles(repo);
      const commits = runCommits(repo);
      const foreign = Object.fromEntries(
        RUNS.map((run) => [
          run,
          (commits.get(run) ?? []).flatMap((c) => c.files.filter((f) => f.startsWith('_docs/') && !f.startsWith(`_docs/_runs/${run}/`))),
        ]),
      );
      const listed = spawnSync(join(repo, BIN), ['runs', '--json'], { cwd: repo, encoding: 'utf8', env: personEnv() });
      const entries = (JSON.parse(listed.stdout) as { runs: RunEntry[] }).runs;
      const clean1 = git(repo, 'status', '--porcelain');
      console.log(
        [
          `2 conversations at once on 2 runs: ${calls1.join(' + ')} autopilot calls, ${waits1.reduce((a, b) => a + b, 0)} waits`,
          ...first.map(
            (s) =>
              `  ${s.seen.run}: hook names run ${s.seen.named ?? 'none'}, steps completed ${s.seen.steps.join(', ') || 'none'}, last answer exit ${s.seen.answers.at(-1)?.answer.exit}, journal ${lines[s.seen.run]!.map((l) => `${l.event}@${l.step}`).join(' ')}`,
          ),
          `  default-run files ${defaultFiles.length}${defaultFiles.length ? ` (${defaultFiles.join(', ')})` : ''}`,
          `  progress commits ${progressCommits(repo)}`,
          ...RUNS.map(
            (run) => `  commits with Autopilot-Run: ${run}: ${(commits.get(run) ?? []).length}, holding another run's files: ${foreign[run]!.length}`,
          ),
          ...entries.map(
            (e) => `  runs --json: ${e.run} step ${e.step} ${e.status} waits for ${e.waits_for?.kind ?? 'nothing'}: ${e.waits_for?.command ?? ''}`,
          ),
          `  tree ${clean1 ? `NOT clean:\n${clean1}${first.map((s) => commitsSaid(s.seen)).join('\n')}` : 'clean'}`,
        ].join('\n'),
      );

      for (const side of first) {
        expect.soft(side.seen.hook, `${side.seen.run}: the SessionStart context names the run`).toContain(`autopilot run: ${side.seen.run} (`);
        expect.soft(side.seen.named, `${side.seen.run}: the run the agent drives`).toBe(side.seen.run);
        expect.soft(waitsOf(side), `${side.seen.run}: exit 4 or held`).toBe(0);
        expect.soft(side.seen.steps, `${side.seen.run}: steps completed`).toEqual([1]);
        expect.soft(side.seen.answers.at(-1)?.answer.exit, `${side.seen.run}: the last answer is a stop for a person`).toBe(3);
        expect.soft(side.seen.answers.at(-1)?.answer.json.outcome, `${side.seen.run}: the last answer`).toBe('decision');
        const events = lines[side.seen.run]!;
        expect
          .soft(
            events.some((l) => l.event === 'step_completed' && l.step === 1),
            `${side.seen.run}: Problem completed in its journal`,
          )
          .toBe(true);
        const asked = events.findLastIndex((l) => l.event === 'decision_required');
        expect
          .soft(asked >= 0 && !events.slice(asked).some((l) => l.event === 'decision_answered'), `${side.seen.run}: a decision pending in its journal`)
          .toBe(true);
      }
      expect.soft(defaultFiles, 'files of the default run').toEqual([]);
      for (const run of RUNS) {
        expect.soft((commits.get(run) ?? []).length, `progress commits with Autopilot-Run: ${run} [r3]`).toBeGreaterThanOrEqual(1);
        expect.soft(foreign[run], `files of another run in ${run}'s commits [r3]`).toEqual([]);
      }
      expect(listed.status, listed.stderr).toBe(0);
      expect.soft(entries.map((e) => e.run)).toEqual([...RUNS]);
      for (const run of RUNS) {
        const entry = entries.find((e) => e.run === run);
        expect.soft(entry?.waits_for?.kind, `${run} waits for`).toBe('decision');
        expect.soft(entry?.waits_for?.command, `${run}'s answering command`).toMatch(new RegExp(`^autopilot decide \\S+ --run ${run}$`));
      }
      expect.soft(clean1, 'git status --porcelain after round 1').toBe('');

      // The person answers both, typing the commands `runs` printed (autopilot is the project's node_modules/.bin/autopilot).
      for (const entry of entries) {
        const typed = person(repo, entry.waits_for!.command.replace(/^autopilot /, `${BIN} `));
        expect(typed.code, `${entry.waits_for!.command}: ${typed.output}`).toBe(0);
      }

      // Round 2: two new conversations, one step each.
      const second = await pair(project, 1);
      for (const side of second) expect(side.run.code, detail(side)).toBe(0);
      const waits2 = second.map(waitsOf);
      const clean2 = git(repo, 'status', '--porcelain');
      console.log(
        [
          `2 more conversations at once: ${second.map((s) => s.seen.answers.length).join(' + ')} autopilot calls, ${waits2.reduce((a, b) => a + b, 0)} waits`,
          ...second.map(
            (s) =>
              `  ${s.seen.run}: hook names run ${s.seen.named ?? 'none'}, steps completed ${s.seen.steps.join(', ') || 'none'}, last answer ${JSON.stringify(s.seen.answers.at(-1)?.answer.json.outcome)}`,
          ),
          `  tree ${clean2 ? `NOT clean:\n${clean2}${second.map((s) => commitsSaid(s.seen)).join('\n')}` : 'clean'}; ${Math.round((Date.now() - started) / 1000)} s`,
        ].join('\n'),
      );
      for (const side of second) {
        expect.soft(side.seen.named, `${side.seen.run}: the run the agent drives (round 2)`).toBe(side.seen.run);
        expect.soft(waitsOf(side), `${side.seen.run}: exit 4 or held (round 2)`).toBe(0);
        // One step: the one after the step the decision closed (runs --json named it), completed in the run's journal.
        const after = entries.find((e) => e.run === side.seen.run)!.step! + 1;
        expect.soft(side.seen.steps, `${side.seen.run}: steps completed (round 2)`).toEqual([after]);
        expect
          .soft(
            journal(repo, `_docs/_runs/${side.seen.run}`).some((l) => l.event === 'step_completed' && l.step === after),
            `${side.seen.run}: step ${after} completed in its journal`,
          )
          .toBe(true);
      }
      expect.soft(defaultRunFiles(repo), 'files of the default run (round 2)').toEqual([]);
      expect.soft(clean2, 'git status --porcelain after round 2').toBe('');
    },
  );
});
