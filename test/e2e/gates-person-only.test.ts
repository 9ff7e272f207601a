/**
 * Person-only stays person-only (issue 29, points 12 and 13), the built
 * command line and MCP server in real folders:
 * - a person's command with an option before its command word (`autopilot
 *   --json decide B`, `-C . decide B`) is refused by the command line itself
 *   (exit 2, nothing written), since Codex's exec policy, which matches whole
 *   words with no wildcard, names no such line (the real `codex execpolicy
 *   check` says so); every form the command line accepts, the rules `init`
 *   wrote hold, for each launch it writes;
 * - the MCP tool list holds no person's command, and calling one by name
 *   answers nothing; what the agent reads tells it to ask the person;
 * - `uninstall --remove-docs` keeps a person's own notes under the docs
 *   folder, and lists them.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { COMMANDS, type AnyCommand } from '../../src/commands/index.js';
import { autopilot, snapshot, tempRepo, write, writeArtifacts, type NextJson } from '../helpers/cli.js';
import { ROOT } from '../helpers/engine.js';
import { codexDecision, codexPolicy } from '../helpers/permission-rules.js';

const BIN = join(ROOT, 'bin', 'autopilot.js');
const CODEX = join(ROOT, 'node_modules', '.bin', 'codex');
const codexMissing = !existsSync(CODEX) || spawnSync(CODEX, ['--version'], { encoding: 'utf8' }).status !== 0;

const persons = COMMANDS.filter((c): c is AnyCommand => 'run' in c && c.person === true);

/** The command line exactly as typed, in the repository (no `-C` added). */
function typed(dir: string, ...args: string[]) {
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, AUTOPILOT_SESSION: '' } });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A greenfield run at step 2's decision (research-round). */
function atResearchDecision(): string {
  const dir = tempRepo();
  autopilot(dir, 'init', '--flow', 'greenfield');
  autopilot(dir, 'next');
  write(dir, '_docs/00_problem/problem.md');
  write(dir, '_docs/00_problem/acceptance_criteria.md');
  expect(autopilot(dir, 'done').code).toBe(0);
  autopilot(dir, 'next');
  write(dir, '_docs/01_solution/solution_draft_01.md');
  expect(autopilot(dir, 'done').code).toBe(3);
  return dir;
}

/** The words a person's command needs after its name (`decide B`, `restore <id>`). */
const argsOf = (command: AnyCommand) => (command.arguments ?? []).map((a) => (a.choices ? 'B' : 'x'));

const BEFORE: readonly string[][] = [['--json'], ['-C', '.'], ['--session', 's'], ['--docs', '_docs'], ['--'], ['-C', '.', '--json']];

describe("a person's command takes its options after its command word", () => {
  it(`${persons.length} person's commands × ${BEFORE.length} options before the command word: all ${persons.length * BEFORE.length} refused (exit 2, saying where they go), the decision still waiting, nothing written`, () => {
    const dir = atResearchDecision();
    const before = snapshot(dir);
    let refused = 0;
    for (const command of persons)
      for (const options of BEFORE) {
        const line = [...options, command.name, ...argsOf(command)];
        const run = typed(dir, ...line, ...(line.includes('--json') ? [] : ['--json']));
        expect(run.code, line.join(' ')).toBe(2);
        const error = (JSON.parse(run.stdout) as { error: { code: string; message: string; expected: string } }).error;
        expect(error.code).toBe('bad_input');
        expect(error.message, line.join(' ')).toContain(`\`autopilot ${command.name}\` is a person's command: every option goes after the command word`);
        expect(error.expected, line.join(' ')).toMatch(new RegExp(`^\`autopilot ${command.name}\\b`));
        refused++;
      }
    expect(refused).toBe(persons.length * BEFORE.length);
    expect(snapshot(dir)).toEqual(before);
    expect(autopilot(dir, 'status', '--json').json()).toMatchObject({ pending: { kind: 'decision' } });
    // The person's own line, options after the command word, answers it.
    expect(typed(dir, 'decide', 'B', '--json', '-C', '.').code).toBe(0);
  });
});

/** A repository `init` set up: with autopilot installed in the project (its binary), or without (this copy by its path). */
function initialised(installed: boolean): string {
  const dir = tempRepo();
  if (installed) {
    mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(ROOT, join(dir, 'node_modules', 'md-autopilot'));
    symlinkSync('../md-autopilot/bin/autopilot.js', join(dir, 'node_modules', '.bin', 'autopilot'));
  }
  expect(typed(dir, 'init').code).toBe(0);
  return dir;
}

/** Codex's own reading of an exec policy: its decision for the words, or undefined when no rule matches. */
function codexChecks(rules: string, lines: string[][]): Promise<(string | undefined)[]> {
  const one = (words: string[]) =>
    new Promise<string | undefined>((resolve, reject) => {
      const child = spawn(CODEX, ['execpolicy', 'check', '--rules', rules, ...words], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => {
        if (code !== 0) return reject(new Error(`codex execpolicy check ${words.join(' ')}: exit ${code}`));
        resolve((JSON.parse(out) as { decision?: string }).decision);
      });
    });
  // Two at a time: the machine is shared.
  const results: (string | undefined)[] = [];
  const run = async (from: number): Promise<void> => {
    for (let i = from; i < lines.length; i += 2) results[i] = await one(lines[i]!);
  };
  return Promise.all([run(0), run(1)]).then(() => results);
}

describe.skipIf(codexMissing)('the exec policy init writes, as the real Codex reads it (codex execpolicy check)', () => {
  for (const installed of [true, false])
    it(`${installed ? 'node_modules/.bin/autopilot' : 'node <this copy>/bin/autopilot.js'}: every person's command and option in the order autopilot runs asks first; the lines before the command word match no rule (the command line refuses them)`, async () => {
      const dir = initialised(installed);
      const rulesFile = join(dir, '.codex', 'rules', 'autopilot.rules');
      const launch = installed ? ['node_modules/.bin/autopilot'] : ['node', BIN];
      const accepted: string[][] = [];
      for (const command of persons)
        accepted.push([command.name, ...argsOf(command)], [command.name, ...argsOf(command), '--json'], [command.name, '--json', ...argsOf(command)]);
      accepted.push(
        ['done', '--force', '--reason', 'on paper'],
        ['done', '--accept-failures', '--reason', 'tracked'],
        ['next', '--take-over', '--json'],
        ['lease', '--take-over', '--remote', 'origin'],
      );
      const before = persons.flatMap((command) => [
        ['--json', command.name, ...argsOf(command)],
        ['-C', '.', command.name, ...argsOf(command)],
      ]);
      const lines = [...accepted, ...before].map((words) => [...launch, ...words]);
      const decisions = await codexChecks(rulesFile, lines);
      expect(
        decisions.slice(0, accepted.length).every((d) => d === 'prompt'),
        JSON.stringify(lines.filter((_, i) => decisions[i] !== 'prompt')),
      ).toBe(true);
      expect(decisions.slice(accepted.length)).toEqual(before.map(() => undefined));
      // The tests' own reading of the rules (test/unit/clients/person-rules.test.ts) agrees with Codex's on every line.
      const policy = codexPolicy(readFileSync(rulesFile, 'utf8'));
      expect(lines.map((words) => codexDecision(policy, words))).toEqual(decisions);
      console.log(
        `${lines.length} lines through codex execpolicy check: ${accepted.length} held (prompt), ${before.length} with an option before the command word matched by no rule`,
      );
    });
});

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

async function connect(dir: string): Promise<Client> {
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, '-C', dir, 'mcp'],
    env: { ...env, AUTOPILOT_SESSION: 'mcp-agent' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'autopilot-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

describe('what an agent is handed', () => {
  it(`the MCP tool list: 0 of the ${persons.length} person's commands among its tools; each called by name anyway answers nothing (${persons.length} of ${persons.length} errors), the decision still waiting`, async () => {
    const dir = atResearchDecision();
    const client = await connect(dir);
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(5);
    expect(tools.map((t) => t.name).filter((name) => persons.some((p) => p.name === name))).toEqual([]);
    const before = snapshot(dir);
    for (const command of persons) {
      const r = await client
        .callTool({ name: command.name, arguments: Object.fromEntries((command.arguments ?? []).map((a) => [a.key, a.choices ? 'B' : 'x'])) })
        .catch((error: Error) => ({ isError: true, content: [{ type: 'text', text: error.message }] }));
      expect(r.isError, command.name).toBe(true);
    }
    expect(snapshot(dir)).toEqual(before);
    // The question, as the agent reads it over MCP: ask the person, never answer it.
    const again = await client.callTool({ name: 'next', arguments: {} });
    const text = (again.content as { text: string }[])[0]!.text;
    expect(text).toContain('Answer: ask the person: only they answer (autopilot decide <A|B>); never answer it yourself');
    expect((again.structuredContent as NextJson & { decision: { answer_with: string } }).decision.answer_with).toMatch(/^ask the person/);
  });

  it('the /autopilot text and AGENTS.md say: ask the person, never run their command yourself; and tell no tool of theirs', () => {
    const dir = initialised(true);
    for (const file of ['.claude/commands/autopilot.md', '.cursor/commands/autopilot.md', 'AGENTS.md']) {
      const text = readFileSync(join(dir, file), 'utf8').replace(/\s+/g, ' ');
      expect(text, file).toContain('ask them; never run that command yourself');
      expect(Buffer.byteLength(readFileSync(join(dir, file))), file).toBeLessThan(2048);
    }
    const settings = JSON.parse(readFileSync(join(dir, '.claude/settings.json'), 'utf8')) as { permissions: { ask: string[] } };
    expect(settings.permissions.ask.filter((rule) => rule.startsWith('mcp__'))).toEqual([]);
    expect(readFileSync(join(dir, '.codex/config.toml'), 'utf8')).not.toContain('prompt');
  });
});

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string, at = ''): string[] {
  return readdirSync(join(dir, at), { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? filesUnder(dir, at ? `${at}/${d.name}` : d.name) : [at ? `${at}/${d.name}` : d.name],
  );
}

describe('uninstall --remove-docs', () => {
  it("after a walk to Run Tests (task files, a batch report): autopilot's files and the step outputs go; 4 of 4 of a person's notes stay, listed, byte for byte", () => {
    const dir = tempRepo();
    expect(autopilot(dir, 'init', '--flow', 'greenfield').code).toBe(0);
    for (let i = 0; i < 20; i++) {
      const next = autopilot(dir, 'next', '--json').json<NextJson>();
      if (next.step === 7) break;
      if (next.outcome === 'work') writeArtifacts(dir, next.done_when!);
      const done = autopilot(dir, next.outcome === 'work' ? 'done' : 'status');
      if (done.code === 3) expect(autopilot(dir, 'decide', 'B').code).toBe(0);
    }
    expect(autopilot(dir, 'status', '--json').json()).toMatchObject({ step: 7 });
    const docs = filesUnder(join(dir, '_docs'));
    expect(docs.filter((f) => /^02_tasks\/.+_.+\.md$/.test(f) && !f.endsWith('_index.md')).length, docs.join('\n')).toBeGreaterThan(0);
    expect(
      docs.some((f) => /^03_implementation\/batch_\d+\.md$/.test(f)),
      docs.join('\n'),
    ).toBe(true);
    const notes: Record<string, string> = {
      '_docs/notes.md': '# My notes\n\nCall Dana about the rollout.\n',
      '_docs/00_problem/interview-transcript.md': '# Interview, 3 March\n\nThe users want exports.\n',
      '_docs/01_solution/reading-list.md': '- the paper on leases\n',
      '_docs/ideas/later/backlog.md': '# Later\n\n- dark mode\n',
    };
    for (const [file, text] of Object.entries(notes)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), text);
    }
    const r = typed(dir, 'uninstall', '--remove-docs', '--json');
    expect(r.code, r.stderr).toBe(0);
    const out = (JSON.parse(r.stdout) as { docs: { state: string; removed: string[]; kept: string[] } }).docs;
    expect(out.state).toBe('kept');
    expect(out.kept.sort()).toEqual(Object.keys(notes).sort());
    expect(out.removed.length).toBe(docs.length);
    for (const [file, text] of Object.entries(notes)) expect(readFileSync(join(dir, file), 'utf8'), file).toBe(text);
    expect(
      filesUnder(join(dir, '_docs'))
        .map((f) => `_docs/${f}`)
        .sort(),
    ).toEqual(Object.keys(notes).sort());
    // Folders left empty go; the ones holding a note stay.
    expect(existsSync(join(dir, '_docs', '_autopilot'))).toBe(false);
    expect(existsSync(join(dir, '_docs', '02_tasks'))).toBe(false);
    console.log(`uninstall --remove-docs: ${out.removed.length} files of autopilot's removed, ${out.kept.length} of a person's kept`);
  });

  it("names the kept notes in its text too; with nothing of a person's, the docs folder goes", () => {
    const dir = atResearchDecision();
    writeFileSync(join(dir, '_docs', 'notes.md'), '# Mine\n');
    const text = typed(dir, 'uninstall', '--remove-docs');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/Kept under _docs\/, not autopilot's \(1 file, yours to keep or remove\):\n {2}_docs\/notes\.md/);
    expect(readFileSync(join(dir, '_docs', 'notes.md'), 'utf8')).toBe('# Mine\n');
    const clean = atResearchDecision();
    const gone = typed(clean, 'uninstall', '--remove-docs', '--json');
    expect((JSON.parse(gone.stdout) as { docs: { state: string; kept: string[] } }).docs).toMatchObject({ state: 'removed', kept: [] });
    expect(existsSync(join(clean, '_docs'))).toBe(false);
  });
});
