/**
 * `autopilot exec -- <command>`: runs a command (the tests) for the current
 * step and records what autopilot saw of it, so that no report can type a
 * zero: the journal's `command_run` holds the command, its exit code and the
 * totals read from its closing lines (`evidence/totals.ts`), and `done`'s
 * `exit-code` check holds a report's `## Result` to the last such run of its
 * command in the step's attempt. The command's output goes to stderr as it
 * comes (stdout stays the answer's: `--json` prints one object); only its
 * last `EXEC_OUTPUT_TAIL_BYTES` are kept, to read the totals from.
 */
import { resolve } from 'node:path';
import { readTotals, totalsText, type Totals } from '../evidence/index.js';
import { InputError } from '../errors.js';
import { entry } from '../formats/journal-line.js';
import { openRepo } from '../io/repo.js';
import { EXEC_OUTPUT_TAIL_BYTES, FREE_TEXT_MAX_LENGTH } from '../limits.js';
import type { Context } from './context.js';
import { loadRepoFlows } from './flows.js';
import { readState } from './read-state.js';
import { readSettings } from './settings.js';
import { pointerAt, transact } from './transaction.js';

export interface ExecResult {
  command: string;
  exitCode: number | null;
  signal?: string;
  totals?: Totals;
  /** The journal event that records the run. */
  seq: number;
  step: number;
  name: string;
}

/** A word as a shell would need it to read it back as one word. */
const quote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);

/** The command as the journal and a report's `Command:` line spell it. */
export const commandLine = (words: readonly string[]): string => (words.length === 1 ? words[0]!.trim() : words.map(quote).join(' '));

export async function runExec(ctx: Context, words: readonly string[]): Promise<ExecResult> {
  if (words.length === 0 || words[0]!.trim() === '')
    throw new InputError({ message: 'exec needs the command to run', expected: '`autopilot exec -- npm test`', received: 'no command' });
  const command = commandLine(words);
  if (command.length > FREE_TEXT_MAX_LENGTH)
    throw new InputError({
      message: `the command is ${command.length} characters long`,
      expected: `at most ${FREE_TEXT_MAX_LENGTH}`,
      received: `${command.slice(0, 40)}…`,
    });
  // A run is recorded for a step: refused before it runs when no step is under way, or the record could not be written.
  const repo = openRepo(ctx.repo);
  await readSettings(repo);
  const before = (await readState(repo, await loadRepoFlows(repo, false))).reconciled.position;
  if (typeof before.step !== 'number')
    throw new InputError({ message: `no step is under way (${before.flow} is done): a run is recorded for a step`, expected: 'a run with a current step' });

  const ran = await run(words, resolve(process.cwd(), ctx.repo.dir ?? '.'));
  const totals = readTotals(ran.tail)?.totals;
  const { result } = await transact(ctx, { flows: 'read' }, async ({ state }) => {
    const loaded = await state();
    const position = loaded.reconciled.position;
    if (typeof position.step !== 'number') throw new InputError({ message: `no step is under way (${position.flow} is done): a run is recorded for a step` });
    const details = { command, exit_code: ran.exitCode, ...(totals ? { totals } : {}), ...(ran.signal ? { signal: ran.signal } : {}) };
    return {
      plan: { entries: [entry('command_run', position, details)], pointer: pointerAt(loaded, position) },
      answer: (written) => ({ step: position.step as number, name: position.name, seq: written.entries.find((e) => e.event === 'command_run')?.seq ?? 0 }),
    };
  });
  return { command, exitCode: ran.exitCode, ...(ran.signal ? { signal: ran.signal } : {}), ...(totals ? { totals } : {}), ...result };
}

/** Runs the command, its output passed on to stderr as it comes and its end kept. One word with a space is a shell line. */
function run(words: readonly string[], cwd: string): Promise<{ exitCode: number | null; signal?: string; tail: string }> {
  return new Promise((done) => {
    const shell = words.length === 1 && /\s/.test(words[0]!);
    // child_process is loaded on the call: it brings net, dgram and the streams, which no other command pays for.
    const { spawn } = process.getBuiltinModule('node:child_process');
    const child = shell
      ? spawn(words[0]!, { cwd, shell: true, stdio: ['inherit', 'pipe', 'pipe'] })
      : spawn(words[0]!, words.slice(1), { cwd, stdio: ['inherit', 'pipe', 'pipe'] });
    let tail = Buffer.alloc(0);
    const keep = (chunk: Buffer) => {
      process.stderr.write(chunk);
      tail = Buffer.concat([tail, chunk]);
      if (tail.length > EXEC_OUTPUT_TAIL_BYTES) tail = tail.subarray(tail.length - EXEC_OUTPUT_TAIL_BYTES);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (error) => {
      process.stderr.write(`autopilot exec: ${words[0]} could not start: ${error.message}\n`);
      done({ exitCode: null, signal: 'not started', tail: '' });
    });
    child.on('close', (code, signal) => done({ exitCode: code, ...(signal ? { signal } : {}), tail: tail.toString('utf8') }));
  });
}

/** The lines a report's `## Result` copies. */
export function resultLines(r: Pick<ExecResult, 'command' | 'exitCode' | 'totals'>): string[] {
  return [
    '## Result',
    '',
    `Command: ${r.command}`,
    `Exit code: ${r.exitCode ?? 'none (ended by a signal)'}`,
    `Totals: ${r.totals ? totalsText(r.totals) : '(none read from the output: write them as `<p> passed, <f> failed`)'}`,
  ];
}
