/**
 * The `autopilot` command line: parses arguments, calls the command layer
 * (`src/app/`), prints. With `--json`, stdout carries exactly one JSON
 * object, errors included; without it, text for a person, errors on stderr.
 */
import { Command, CommanderError } from 'commander';
import { runBreadcrumb } from '../app/breadcrumb.js';
import { runCheck } from '../app/check.js';
import { listCheckpoints, runCheckpoint, runRestore } from '../app/checkpoints.js';
import { sessionOf, type Context } from '../app/context.js';
import { runInit } from '../app/init.js';
import { viewJson } from '../app/json.js';
import { runLease } from '../app/lease-command.js';
import { runLog } from '../app/log.js';
import { runRepin } from '../app/repin.js';
import { checkJson, logJson } from '../app/report-json.js';
import { runStatus } from '../app/status.js';
import { runStep } from '../app/step.js';
import { parseStepOption } from '../app/validate-event.js';
import type { View } from '../app/view.js';
import type { Event } from '../engine/transitions.js';
import { EXIT, errorJson, exitCodeOfError, InputError } from '../errors.js';
import { checkText, errorText, logText, outcomeText, safe, statusText } from './render/text.js';

// The command layer is one static graph, one file once bundled (start-up pays per module file);
// only what is heavy and rare loads on demand: the Markdown and YAML parsers, git, the MCP
// server, the report, the hook (scripts/build.mjs, LAZY).

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

const contextOf = (g: Globals): Context => ({
  repo: { ...(g.C ? { dir: g.C } : {}), ...(g.docs ? { docs: g.docs } : {}) },
  session: sessionOf(g.session),
  now: () => new Date(),
});

function fromView({ view, exit }: { view: View; exit: number }): Printable {
  return { json: viewJson(view), text: view.command === 'status' ? statusText(view) : outcomeText(view), exit };
}

type Options = Record<string, string | boolean | undefined>;

function buildProgram(done: (result: Printable) => void): Command {
  const program = new Command('autopilot')
    .description('Carries a multi-step project across sessions: the engine keeps the position, the agent does the work.')
    .version(VERSION)
    .option('-C <dir>', 'run in another repository (default: the current one)')
    .option('--docs <dir>', 'the docs folder, relative to the repository root', '_docs')
    .option('--json', 'print one JSON object on stdout and nothing else')
    .option('--session <id>', 'who is driving (default: $AUTOPILOT_SESSION, else "local")')
    .showSuggestionAfterError()
    .exitOverride();

  const globals = (cmd: Command) => cmd.optsWithGlobals<Globals>();
  const event = (name: string, description: string, toEvent: (args: string[], opts: Options) => Event, aimed = true) => {
    const command = program
      .command(name)
      .description(description)
      .option('--take-over', 'take the repository over from another session (journaled)')
      .option('--commit', "a progress commit of the pointer, the journal and the step's files, when the command finishes something")
      .action(async (...params: unknown[]) => {
        const cmd = params[params.length - 1] as Command;
        const opts = cmd.opts<Options>();
        const result = await runStep(contextOf(globals(cmd)), {
          event: toEvent(cmd.args, opts),
          ...(opts.step !== undefined ? { step: parseStepOption(opts.step) } : {}),
          ...(opts.takeOver ? { takeOver: true } : {}),
          ...(opts.commit ? { commit: true } : {}),
        });
        done(fromView(result));
      });
    if (aimed) command.option('--step <n>', 'the step this is for (default: the current one); refused if the work has moved on');
    return command;
  };

  program
    .command('status')
    .description('where the work stands (never writes)')
    .action(async (_opts, cmd: Command) => done(fromView(await runStatus(contextOf(globals(cmd))))));

  event('next', 'reconcile, then say what to do now and mark it in progress', () => ({ type: 'next' }), false);
  event('substep', 'record progress inside the current step', (args) => ({ type: 'substep', text: args.join(' ') })).argument(
    '<text...>',
    'the sub-skill\'s position, e.g. "2 — Restrictions"',
  );
  event('done', 'the current step succeeded: check its evidence, then advance', (_a, o) =>
    o.force ? { type: 'done', force: { reason: typeof o.reason === 'string' ? o.reason : '' } } : { type: 'done' },
  )
    .option('--force', 'a person marks the step done without its artifacts (journaled; needs --reason)')
    .option('--reason <text>', 'why, for the journal');
  event('fail', 'the attempt failed: counts toward the three-retry rule', (_a, o) => ({ type: 'fail', reason: String(o.reason ?? '') })).requiredOption(
    '--reason <text>',
    'what went wrong',
  );
  event('skip', 'skip the current step, if it is optional', (_a, o) => ({ type: 'skip', reason: String(o.reason ?? '') })).requiredOption(
    '--reason <text>',
    'why it is skipped',
  );
  event('decide', 'answer the pending decision', (args) => ({ type: 'decide', option: args[0] ?? '' })).argument('<option>', 'the option letter, A to D');
  event('ack', 'a person has seen the failed step: allow another three attempts', () => ({ type: 'ack' }));

  program
    .command('mcp')
    .description('serve the same operations as an MCP server over stdio, until the client closes it')
    .action(async (_opts, cmd: Command) => {
      // Loaded here only, so no other command pays for the MCP SDK at start-up.
      const { serveMcp } = await import('../mcp/server.js');
      await serveMcp(contextOf(globals(cmd)));
      done({ json: { closed: true }, text: '', exit: EXIT.ok });
    });

  program
    .command('hook')
    .description("for an agent's hooks; `session-start`: Claude Code's SessionStart (always exits 0)")
    .argument('<event>', 'session-start')
    .action(async (event: string, _opts, cmd: Command) => {
      if (event !== 'session-start') throw new InputError({ message: `no hook ${event}`, expected: 'session-start', received: event });
      const { sessionStartHook } = await import('./session-start-hook.js');
      done({ json: {}, text: await sessionStartHook(contextOf(globals(cmd))), exit: EXIT.ok });
    });

  program
    .command('init')
    .description('set a repository up: folders, git lines, the /autopilot command for agents')
    .option('--flow <id>', 'also start this flow at step 1')
    .option('--hooks', "also add Claude Code's SessionStart hook (.claude/settings.json)")
    .action(async (opts: { flow?: string; hooks?: boolean }, cmd: Command) => {
      const result = await runInit(contextOf(globals(cmd)), opts.flow, { hooks: opts.hooks === true });
      const text = [
        ...result.created.map((f) => `+ ${f}`),
        ...result.kept.map((f) => `= ${f} (already set up)`),
        result.pointer
          ? `Started ${result.pointer.flow} at step 1. Run \`autopilot next\`.`
          : 'Ready. Run `autopilot next` (or `autopilot init --flow <id>` to choose the flow).',
      ].join('\n');
      const { written: _written, ...json } = result;
      done({ json, text, exit: EXIT.ok });
    });

  program
    .command('breadcrumb')
    .description('a short Markdown progress block for an issue or a pull request')
    .option('--note', 'also store it as a git note on the last progress commit')
    .action(async (opts: { note?: boolean }, cmd: Command) => {
      const r = await runBreadcrumb(contextOf(globals(cmd)), opts.note === true);
      done({ json: { markdown: r.markdown, ...(r.noted ? { noted: r.noted } : {}) }, text: r.markdown, exit: EXIT.ok });
    });

  program
    .command('report')
    .description('the run for people: _docs/_autopilot_report.md with a Mermaid diagram; --html also one self-contained page')
    .option('--html', 'also write _docs/_autopilot_report.html (inline SVG and CSS, no network)')
    .action(async (opts: { html?: boolean }, cmd: Command) => {
      const r = await (await import('../app/report.js')).runReport(contextOf(globals(cmd)), opts.html === true);
      done({ json: r, text: [`✓ Wrote ${r.file}`, ...(r.html ? [`✓ Wrote ${r.html}`] : [])].join('\n'), exit: EXIT.ok });
    });

  program
    .command('lease')
    .description('hold the lease on a shared git remote (agents on several machines)')
    .option('--remote <name>', 'the git remote (default: lease.remote in .autopilot/config.yml)')
    .option('--take-over', 'take it from another session even if it is fresh (journaled)')
    .action(async (opts: { remote?: string; takeOver?: boolean }, cmd: Command) => {
      const r = await runLease(contextOf(globals(cmd)), opts.remote, opts.takeOver === true);
      done({ json: r, text: `✓ Holding the lease on ${r.remote} (refs/autopilot/lease, ${r.taken}).`, exit: EXIT.ok });
    });

  program
    .command('repin')
    .description('adopt the flow file as it is now for the run under way (journaled)')
    .action(async (_opts, cmd: Command) => {
      const r = await runRepin(contextOf(globals(cmd)));
      const text =
        r.changes.length === 0
          ? 'Nothing to repin: the run already uses the flow file as it is.'
          : `✓ Repinned: ${r.changes.join('; ')}. Run \`autopilot next\`.`;
      done({ json: { repinned: r.changes.length > 0, changes: r.changes, step: r.position.step, name: r.position.name }, text, exit: EXIT.ok });
    });

  program
    .command('checkpoint')
    .description('snapshot the state now (kept: the 24 newest, then one a day for 30 days)')
    .option('--note <text>', 'what this checkpoint is for')
    .action(async (opts: { note?: string }, cmd: Command) => {
      const r = await runCheckpoint(contextOf(globals(cmd)), opts.note ?? '');
      done({
        json: r,
        text: `✓ Checkpoint ${r.id}${r.pruned.length ? ` (pruned ${r.pruned.length} old ones)` : ''}. Return to it with \`autopilot restore ${r.id}\`.`,
        exit: EXIT.ok,
      });
    });

  program
    .command('checkpoints')
    .description('list the checkpoints, newest first')
    .action(async (_opts, cmd: Command) => {
      const list = listCheckpoints(contextOf(globals(cmd)));
      const text =
        list.length === 0
          ? 'No checkpoints yet.'
          : list.map((c) => `${c.id}  step ${String(c.step)} ${c.status ?? '?'}  event ${c.seq}${c.note ? `  ${c.note}` : ''}`).join('\n');
      done({ json: { checkpoints: list }, text, exit: EXIT.ok });
    });

  program
    .command('restore')
    .description('return the pointer to a checkpoint (journaled; no history is deleted)')
    .argument('<id>', 'a checkpoint id from `autopilot checkpoints`')
    .action(async (id: string, _opts, cmd: Command) => {
      const r = await runRestore(contextOf(globals(cmd)), id);
      const at = r.position.step === 'done' ? 'done' : `step ${r.position.step} (${r.position.name}), ${r.position.status}`;
      done({
        json: { restored: r.id, step: r.position.step, name: r.position.name, status: r.position.status },
        text: `✓ Restored ${r.id}: ${at}. Run \`autopilot next\`.`,
        exit: EXIT.ok,
      });
    });

  program
    .command('check')
    .description('validate flows, skills, the pointer and the journal; report every problem')
    .action(async (_opts, cmd: Command) => {
      const r = await runCheck(contextOf(globals(cmd)));
      done({
        json: checkJson(r),
        text: checkText(r),
        exit: r.problems.length === 0 ? EXIT.ok : EXIT.badInput,
      });
    });

  program
    .command('log')
    .description('the journal, newest last')
    .option('-n, --limit <count>', 'only the last <count> events (read from the end of the file)')
    .action(async (opts: { limit?: string }, cmd: Command) => {
      const limit = opts.limit === undefined ? undefined : /^\d{1,9}$/.test(opts.limit) ? Number(opts.limit) : NaN;
      if (limit !== undefined && Number.isNaN(limit)) {
        throw new InputError({ message: `--limit ${opts.limit} is not a count`, expected: 'a whole number, e.g. `--limit 20`', received: String(opts.limit) });
      }
      const r = runLog(contextOf(globals(cmd)), limit);
      done({ json: logJson(r), text: logText(r, limit), exit: EXIT.ok });
    });

  return program;
}

export async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const out = (text: string) => text && process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  // With --json, stdout carries one object whatever happens; without it, errors go to stderr.
  const fail = (exit: number, asJson: unknown, asText: string) => {
    if (json) out(JSON.stringify(asJson));
    else if (asText) process.stderr.write(`${safe(asText)}\n`);
    return exit;
  };

  let result: Printable | undefined;
  const program = buildProgram((r) => (result = r));
  if (json) program.configureOutput({ writeErr: () => undefined });
  if (argv.length <= 2) return fail(EXIT.badInput, { error: { code: 'bad_input', message: 'no command given' } }, program.helpInformation());
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help or version asked for: 0. A parse error: bad usage (commander printed it).
      if (error.exitCode === 0) return EXIT.ok;
      return fail(EXIT.badInput, { error: { code: 'bad_input', message: error.message.replace(/^error: /, '') } }, '');
    }
    return fail(exitCodeOfError(error), errorJson(error), errorText(error));
  }
  if (!result) return EXIT.internal;
  // Whatever a repository or an agent wrote reaches the terminal escaped: no control sequence runs, no line is forged.
  out(json ? JSON.stringify(result.json) : safe(result.text));
  return result.exit;
}

// A reader that goes away (`autopilot status | head -c 10`) ends the command quietly with its own exit code.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`autopilot: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = EXIT.internal;
  },
);
