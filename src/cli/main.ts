/**
 * The `autopilot` command line: commander, built from the registry
 * (`src/commands/`). It parses arguments, runs the command, prints its
 * answer. With `--json`, stdout carries exactly one JSON object, errors
 * included; without it, text for a person, errors on stderr.
 */
import { Command as Program, CommanderError } from 'commander';
import { sessionOf, type Context } from '../app/context.js';
import { GLOBAL_OPTIONS, readArguments, type Answer } from '../commands/command.js';
import { COMMANDS, type AnyCommand } from '../commands/index.js';
import { EXIT, errorJson, exitCodeOfError } from '../errors.js';
import { errorText, safe } from '../render/text.js';

// The command layer is one static graph, one file once bundled (start-up pays per module file);
// only what is heavy and rare loads on demand: the Markdown and YAML parsers, git, the MCP
// server, the report, the hook (scripts/build.mjs, LAZY).

declare const AUTOPILOT_VERSION: string | undefined;
const VERSION = typeof AUTOPILOT_VERSION === 'string' ? AUTOPILOT_VERSION : '0.0.0-dev';

interface Globals {
  C?: string;
  docs?: string;
  json?: boolean;
  session?: string;
}

function contextOf(g: Globals): Context {
  const { session, from } = sessionOf(g.session);
  return {
    repo: { ...(g.C ? { dir: g.C } : {}), ...(g.docs ? { docs: g.docs } : {}) },
    session,
    sessionFrom: from,
    role: 'cli',
    now: () => new Date(),
  };
}

/** `autopilot mcp`: the MCP front end over the same registry, loaded here only, so no other command pays for the SDK. */
async function serveMcp(ctx: Context, given: string | undefined): Promise<Answer> {
  await (await import('../mcp/server.js')).serveMcp(ctx, given);
  return { json: { closed: true }, text: '', exit: EXIT.ok };
}

function buildProgram(done: (answer: Answer) => void): Program {
  const program = new Program('autopilot')
    .description('Carries a multi-step project across sessions: the engine keeps the position, the agent does the work.')
    .version(VERSION)
    .showSuggestionAfterError()
    .exitOverride();
  for (const option of GLOBAL_OPTIONS) program.option(option.flags, option.summary);

  for (const spec of COMMANDS) {
    const command = program.command(spec.name).description(spec.summary);
    if ('frontEnd' in spec) {
      command.action(async (_opts, cmd: Program) => {
        const globals = cmd.optsWithGlobals<Globals>();
        done(await serveMcp(contextOf(globals), globals.session));
      });
      continue;
    }
    const runnable: AnyCommand = spec;
    for (const argument of runnable.arguments ?? []) command.argument(argument.name, argument.summary);
    for (const option of runnable.options ?? []) {
      if (option.required) command.requiredOption(option.flags, option.summary);
      else command.option(option.flags, option.summary);
    }
    command.action(async (...params: unknown[]) => {
      const cmd = params[params.length - 1] as Program;
      const raw: Record<string, unknown> = { ...cmd.opts() };
      (runnable.arguments ?? []).forEach((argument, i) => (raw[argument.key] = params[i]));
      const result: unknown = await runnable.run(contextOf(cmd.optsWithGlobals<Globals>()), readArguments(runnable, raw));
      done(runnable.view(result));
    });
  }
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

  let answer: Answer | undefined;
  const program = buildProgram((a) => (answer = a));
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
  if (!answer) return EXIT.internal;
  // Whatever a repository or an agent wrote reaches the terminal escaped: no control sequence runs, no line is forged.
  out(json ? JSON.stringify(answer.json) : safe(answer.text));
  return answer.exit;
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
