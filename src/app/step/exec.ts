/**
 * `autopilot exec`: runs the project's test command (`verify:`, pinned with
 * the run) for the current step, or `autopilot exec -- <command>` any
 * command (a build, a linter), and records what autopilot saw of it, so that
 * no report can type a result: the journal's `command_run` holds the
 * command, its exit code, the totals read from the runner's own summary
 * (`evidence/runners/`) and the work tree as the run began; `done`'s
 * `exit-code` check holds a report's `## Result` to the last run of the
 * project's tests in the step's attempt (docs/flow-format.md, "Outputs and
 * their checks"). A run without a pin pins the command the run would take
 * (the settings', else one found in the project's files), journaled with it.
 * The command's output goes to stderr as it comes (stdout stays the
 * answer's: `--json` prints one object), through a file of the cache (see
 * `run`); only its first `EXEC_OUTPUT_HEAD_BYTES` and last
 * `EXEC_OUTPUT_TAIL_BYTES` are kept, to read the totals from.
 */
import { closeSync, mkdirSync, openSync, readSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { readTotals, RUNNERS, totalsText, type Totals } from '../../evidence/index.js';
import { commandKey } from '../../evidence/exit-code.js';
import { InputError } from '../../errors.js';
import { entry, type JournalEntry } from '../../formats/journal-line.js';
import { LOOKED_AT } from '../../formats/test-command.js';
import { gatePath, openRepo } from '../../io/repo.js';
import { randomId } from '../../io/random.js';
import { EXEC_OUTPUT_HEAD_BYTES, EXEC_OUTPUT_TAIL_BYTES, FREE_TEXT_MAX_LENGTH } from '../../limits.js';
import type { Context } from '../transaction/context.js';
import { loadRepoFlows } from '../transaction/flows.js';
import { readState } from '../transaction/read-state.js';
import { readSettings } from '../transaction/settings.js';
import { pointerAt, transact } from '../transaction/transact.js';
import { NAME_IT, pinEntry, pinOf, verifyNow, workTreeNow, type VerifyNow } from '../transaction/verify.js';

export interface ExecResult {
  command: string;
  exitCode: number | null;
  signal?: string;
  totals?: Totals;
  /** The runner whose summary the totals were read from. */
  runner?: string;
  /** The run is of the project's test command, as the run pinned it: a report's Result may stand on it. */
  verify: boolean;
  /** The project's test command the run holds results to, when there is one. */
  tests?: string;
  /** The journal event that records the run. */
  seq: number;
  step: number;
  name: string;
}

/** A word as a shell would need it to read it back as one word. */
const quote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);

/** The command as the journal and a report's `Command:` line spell it. */
export const commandLine = (words: readonly string[]): string => (words.length === 1 ? words[0]!.trim() : words.map(quote).join(' '));

/** The command to run: the words given, else the project's test command; refused where the run cannot stand on it. */
function commandToRun(words: readonly string[], verify: VerifyNow): { words: readonly string[]; command: string } {
  if (words.length > 0 && words[0]!.trim() !== '') return { words, command: commandLine(words) };
  const pinned = verify.pinned?.command;
  if (verify.pinned && pinned === null)
    throw new InputError({
      message: `a person said this project has no tests (${verify.pinned.reason ?? 'no reason given'}): there is no test command to run`,
      expected: 'another command to run: `autopilot exec -- <command>`',
    });
  const command = pinned ?? verify.toTake?.command;
  if (command === undefined)
    throw new InputError(
      {
        message: `this project has no test command autopilot knows: none in .autopilot/config.yml (\`verify:\`), and none found (${LOOKED_AT})`,
        expected: "the project's test command, named by a person",
      },
      `Ask the person to name it: \`${NAME_IT}\`. Meanwhile \`autopilot exec -- <command>\` runs and records any command, but a report's Result counts only a run of the project's tests.`,
      'refused',
    );
  return { words: [command], command };
}

export async function runExec(ctx: Context, given: readonly string[]): Promise<ExecResult> {
  // A run is recorded for a step: refused before it runs when no step is under way, or the record could not be written.
  const repo = openRepo(ctx.repo);
  const settings = await readSettings(repo);
  const loaded = await readState(repo, await loadRepoFlows(repo, false));
  const before = loaded.reconciled.position;
  if (typeof before.step !== 'number')
    throw new InputError({ message: `no step is under way (${before.flow} is done): a run is recorded for a step`, expected: 'a run with a current step' });
  const verify = verifyNow(loaded, settings);
  const { words, command } = commandToRun(given, verify);
  if (command.length > FREE_TEXT_MAX_LENGTH)
    throw new InputError({
      message: `the command is ${command.length} characters long`,
      expected: `at most ${FREE_TEXT_MAX_LENGTH}`,
      received: `${command.slice(0, 40)}…`,
    });
  const tests = verify.pinned ? (verify.pinned.command ?? undefined) : verify.toTake?.command;
  const isTests = tests !== undefined && commandKey(command) === commandKey(tests);
  if (isTests && verify.changed.length > 0)
    throw new InputError(
      {
        message: `what \`${command}\` runs changed since the run pinned it: ${verify.changed.join('; ')}`,
        expected: 'the project’s test command as the run pinned it',
      },
      'Put those files back as they were, or ask the person to adopt the change: `autopilot repin` (a person’s command).',
      'refused',
    );

  const tree = await workTreeNow(repo);
  const scratch = join(repo.autopilotDir, 'cache', `exec-${process.pid}-${randomId().slice(0, 8)}.out`);
  gatePath(repo, scratch);
  const ran = await run(words, resolve(process.cwd(), ctx.repo.dir ?? '.'), scratch);
  const read = readTotals(ran.output);
  const totals = read?.totals;
  const { result } = await transact(ctx, { flows: 'read' }, async ({ state }) => {
    const now = await state();
    const position = now.reconciled.position;
    if (typeof position.step !== 'number') throw new InputError({ message: `no step is under way (${position.flow} is done): a run is recorded for a step` });
    const entries: JournalEntry[] = [];
    // The run takes its pin with this first run of it, unless another command pinned one meanwhile.
    if (isTests && !verify.pinned && verify.toTake && !pinOf(now))
      entries.push(pinEntry(repo, position, { command: verify.toTake.command, by: verify.toTake.by }));
    const details = { command, exit_code: ran.exitCode, totals, signal: ran.signal, tree };
    entries.push(entry('command_run', position, details));
    return {
      plan: { entries, pointer: pointerAt(now, position) },
      answer: (written) => ({ step: position.step as number, name: position.name, seq: written.entries.find((e) => e.event === 'command_run')?.seq ?? 0 }),
    };
  });
  return { command, exitCode: ran.exitCode, signal: ran.signal, totals, runner: read?.runner, verify: isTests, tests, ...result };
}

/**
 * Runs the command, its output passed on to stderr as it comes, its start and
 * end kept. One word with a space is a shell line. The command writes to a
 * file of autopilot's cache, read as it grows, not to a pipe: in an agent
 * client's sandbox (Codex's) a child's output through a pipe can be lost
 * whole, while a file in the work tree is written as anywhere else.
 */
function run(words: readonly string[], cwd: string, scratch: string): Promise<{ exitCode: number | null; signal?: string; output: string }> {
  return new Promise((done) => {
    const shell = words.length === 1 && /\s/.test(words[0]!);
    // child_process is loaded on the call: it brings net, dgram and the streams, which no other command pays for.
    const { spawn } = process.getBuiltinModule('node:child_process');
    mkdirSync(dirname(scratch), { recursive: true });
    const out = openSync(scratch, 'wx');
    let child: ReturnType<typeof spawn>;
    try {
      child = shell
        ? spawn(words[0]!, { cwd, shell: true, stdio: ['inherit', out, out] })
        : spawn(words[0]!, words.slice(1), { cwd, stdio: ['inherit', out, out] });
    } finally {
      closeSync(out);
    }
    const kept = keeper();
    const reader = openSync(scratch, 'r');
    const chunk = Buffer.alloc(64 * 1024);
    let at = 0;
    const drain = () => {
      for (let n = readSync(reader, chunk, 0, chunk.length, at); n > 0; n = readSync(reader, chunk, 0, chunk.length, at)) {
        at += n;
        process.stderr.write(Buffer.from(chunk.subarray(0, n)));
        kept.add(chunk.subarray(0, n));
      }
    };
    const timer = setInterval(drain, 100);
    let ended = false;
    const end = (result: { exitCode: number | null; signal?: string }) => {
      if (ended) return;
      ended = true;
      clearInterval(timer);
      drain();
      closeSync(reader);
      rmSync(scratch, { force: true });
      done({ ...result, output: kept.text() });
    };
    child.on('error', (error) => {
      process.stderr.write(`autopilot exec: ${words[0]} could not start: ${error.message}\n`);
      end({ exitCode: null, signal: 'not started' });
    });
    child.on('close', (code, signal) => end({ exitCode: code, signal: signal ?? undefined }));
  });
}

/** The start and the end of an output, as much of each as the limits keep. */
function keeper(): { add: (chunk: Buffer) => void; text: () => string } {
  let head = Buffer.alloc(0);
  let tail = Buffer.alloc(0);
  let cut = false;
  return {
    add: (given) => {
      let chunk = given;
      if (head.length < EXEC_OUTPUT_HEAD_BYTES) {
        const room = EXEC_OUTPUT_HEAD_BYTES - head.length;
        head = Buffer.concat([head, chunk.subarray(0, room)]);
        chunk = chunk.subarray(room);
      }
      if (chunk.length === 0) return;
      tail = Buffer.concat([tail, chunk]);
      if (tail.length > EXEC_OUTPUT_TAIL_BYTES) {
        tail = tail.subarray(tail.length - EXEC_OUTPUT_TAIL_BYTES);
        cut = true;
      }
    },
    // A line cut in two where the kept start and end meet would read as neither: a line of its own stands between them.
    text: () => (cut ? `${head.toString('utf8')}\n…\n${tail.toString('utf8')}` : Buffer.concat([head, tail]).toString('utf8')),
  };
}

/** The lines a report's `## Result` copies. */
export function resultLines(r: Pick<ExecResult, 'command' | 'exitCode' | 'totals'>): string[] {
  return [
    '## Result',
    '',
    `Command: ${r.command}`,
    `Exit code: ${r.exitCode ?? 'none (ended by a signal)'}`,
    `Totals: ${r.totals ? totalsText(r.totals) : `(none: autopilot reads the summary of ${RUNNERS})`}`,
  ];
}
