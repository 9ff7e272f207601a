/**
 * The `autopilot` command line. Each command returns what to print and the
 * exit code; this file only parses arguments and prints. With `--json`,
 * stdout carries exactly one JSON object, errors included.
 */
import { Command, CommanderError } from 'commander';
import { EXIT, InputError } from '../errors.js';
import type { Event } from '../engine/transitions.js';
import type { RepoOptions } from '../io/repo.js';
import { runCheck } from './commands/check.js';
import { runInit } from './commands/init.js';
import { logLine, runLog } from './commands/log.js';
import { runEvent, runStatus, type CommandResult } from './commands/step-commands.js';
import type { Writer } from './persist.js';
import { errorJson, viewJson } from './render/json.js';
import { errorText, outcomeText, statusText } from './render/text.js';
import { formatProblem } from '../errors.js';

declare const AUTOPILOT_VERSION: string | undefined;
const VERSION = typeof AUTOPILOT_VERSION === 'string' ? AUTOPILOT_VERSION : '0.0.0-dev';

interface Printable {
  json: unknown;
  text: string;
  exit: number;
}

interface Globals {
  C?: string;
  docs?: string;
  json?: boolean;
  session?: string;
}

const repoOptions = (g: Globals): RepoOptions => ({ ...(g.C ? { dir: g.C } : {}), ...(g.docs ? { docs: g.docs } : {}) });
const writerOf = (g: Globals): Writer => ({ session: g.session || process.env.AUTOPILOT_SESSION || 'local', now: () => new Date() });

function fromView({ view, exit }: CommandResult): Printable {
  return { json: viewJson(view), text: view.command === 'status' ? statusText(view) : outcomeText(view), exit };
}

function buildProgram(done: (result: Printable) => void): Command {
  const program = new Command('autopilot')
    .description('Carries a multi-step project across sessions: the engine keeps the position, the agent does the work.')
    .version(VERSION)
    .option('-C <dir>', 'run in another repository (default: the current one)')
    .option('--docs <dir>', 'the docs folder, relative to the repository root', '_docs')
    .option('--json', 'print one JSON object on stdout and nothing else')
    .option('--session <id>', 'who is driving, for the journal (default: $AUTOPILOT_SESSION, else "local")')
    .showSuggestionAfterError()
    .exitOverride();

  const globals = (cmd: Command) => cmd.optsWithGlobals<Globals>();
  const event = (name: string, description: string, toEvent: (args: string[], opts: Record<string, string | boolean>) => Event) =>
    program
      .command(name)
      .description(description)
      .action(async (...params: unknown[]) => {
        const cmd = params[params.length - 1] as Command;
        const g = globals(cmd);
        const ev = toEvent(cmd.args, cmd.opts());
        done(fromView(await runEvent(ev.type, ev, repoOptions(g), writerOf(g))));
      });

  program
    .command('status')
    .description('where the work stands (never writes)')
    .action(async (_opts, cmd: Command) => done(fromView(await runStatus(repoOptions(globals(cmd))))));

  event('next', 'reconcile, then say what to do now and mark it in progress', () => ({ type: 'next' }));
  event('substep', 'record progress inside the current step', (args) => ({ type: 'substep', text: args.join(' ') })).argument(
    '<text...>',
    'the sub-skill\'s position, e.g. "2 — Restrictions"',
  );
  event('done', 'the current step succeeded: check its evidence, then advance', (_a, o) => {
    if (!o.force) return { type: 'done' };
    if (typeof o.reason !== 'string' || o.reason.trim() === '') {
      throw new InputError({
        message: '--force needs --reason: a forced completion is journaled with why',
        expected: 'autopilot done --force --reason "reviewed on paper with Dana"',
        received: 'no reason',
      });
    }
    return { type: 'done', force: { reason: o.reason } };
  })
    .option('--force', 'a person marks the step done without its artifacts (journaled; needs --reason)')
    .option('--reason <text>', 'why, for the journal');
  event('fail', 'the attempt failed: counts toward the three-retry rule', (_a, o) => ({ type: 'fail', reason: String(o.reason) })).requiredOption(
    '--reason <text>',
    'what went wrong',
  );
  event('skip', 'skip the current step, if it is optional', (_a, o) => ({ type: 'skip', reason: String(o.reason) })).requiredOption(
    '--reason <text>',
    'why it is skipped',
  );
  event('decide', 'answer the pending decision', (args) => ({ type: 'decide', option: args[0] ?? '' })).argument('<option>', 'the option letter, A to D');
  event('ack', 'a person has seen the failed step: allow another three attempts', () => ({ type: 'ack' }));

  program
    .command('init')
    .description('set a repository up: folders, git lines, the /autopilot command for agents')
    .option('--flow <id>', 'also start this flow at step 1')
    .action(async (opts: { flow?: string }, cmd: Command) => {
      const g = globals(cmd);
      const result = await runInit(repoOptions(g), opts.flow, writerOf(g));
      const text = [
        ...result.created.map((f) => `+ ${f}`),
        ...result.kept.map((f) => `= ${f} (already set up)`),
        result.pointer
          ? `Started ${result.pointer.flow} at step 1. Run \`autopilot next\`.`
          : 'Ready. Run `autopilot next` (or `autopilot init --flow <id>` to choose the flow).',
      ].join('\n');
      done({ json: result, text, exit: EXIT.ok });
    });

  program
    .command('check')
    .description('validate flows, skills, the pointer and the journal; report every problem')
    .action(async (_opts, cmd: Command) => {
      const r = await runCheck(repoOptions(globals(cmd)));
      const summary = `Checked ${r.flows.length} flows (${r.flows.join(', ')}), ${r.skills} skills, the pointer (${r.pointer}) and ${r.journalEvents} journal events`;
      const text =
        r.problems.length === 0
          ? `✓ ${summary}: no problems.`
          : [...r.problems.map(formatProblem), `✗ ${summary}: ${r.problems.length} problem(s).`].join('\n');
      done({
        json: { ok: r.problems.length === 0, problems: r.problems, flows: r.flows, skills: r.skills, pointer: r.pointer, journal_events: r.journalEvents },
        text,
        exit: r.problems.length === 0 ? EXIT.ok : EXIT.badInput,
      });
    });

  program
    .command('log')
    .description('the journal, newest last')
    .option('-n, --limit <count>', 'only the last <count> events')
    .action(async (opts: { limit?: string }, cmd: Command) => {
      const limit = opts.limit === undefined ? undefined : Number(opts.limit);
      if (limit !== undefined && (!Number.isInteger(limit) || limit < 0)) {
        throw new InputError({ message: `--limit ${opts.limit} is not a count`, expected: 'a whole number, e.g. `--limit 20`', received: String(opts.limit) });
      }
      const r = runLog(repoOptions(globals(cmd)), limit);
      const text = [...r.entries.map(logLine), ...r.problems.map((p) => `! ${formatProblem(p)}`)].join('\n') || 'The journal is empty.';
      done({ json: { events: r.entries, problems: r.problems }, text, exit: EXIT.ok });
    });

  return program;
}

export async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const out = (text: string) => text && process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  // With --json, stdout carries one object whatever happens; without it, errors go to stderr.
  const fail = (exit: number, asJson: unknown, asText: string) => {
    if (json) out(JSON.stringify(asJson));
    else if (asText) process.stderr.write(`${asText}\n`);
    return exit;
  };

  let result: Printable | undefined;
  const program = buildProgram((r) => (result = r));
  if (json) program.configureOutput({ writeErr: () => undefined });
  if (argv.length <= 2) return fail(EXIT.badInput, { error: { message: 'no command given' } }, program.helpInformation());
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help or version asked for: 0. Help shown because no command was given, or a parse error: bad usage (commander printed it).
      if (error.exitCode === 0) return EXIT.ok;
      return fail(EXIT.badInput, { error: { message: error.message.replace(/^error: /, '') } }, '');
    }
    const failure = error instanceof Error ? error : new Error(String(error));
    return fail(error instanceof InputError ? EXIT.badInput : EXIT.internal, errorJson(failure), errorText(failure));
  }
  if (!result) return EXIT.internal;
  out(json ? JSON.stringify(result.json) : result.text);
  return result.exit;
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`autopilot: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = EXIT.internal;
  },
);
