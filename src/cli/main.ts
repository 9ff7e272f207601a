/**
 * The `autopilot` command line, built from the registry (`src/commands/`):
 * it reads the line (`parse-args.ts`), runs the command, prints its answer.
 * With `--json`, stdout carries exactly one JSON object, errors included;
 * without it, text for a person, errors on stderr.
 */
import { writeSync } from 'node:fs';
import { clockOf, runOf, sessionOf, type Context } from '../app/transaction/context.js';
import { mcpSessionOf } from '../clients/index.js';
import { GLOBAL_OPTIONS, performCommand, readArguments, type Answer } from '../commands/command.js';
import { COMMANDS } from '../commands/index.js';
import { EXIT, InputError, errorJson, exitCodeOfError } from '../errors.js';
import { hasRun, runStatus } from '../app/views/status.js';
import { errorText, safe, statusText } from '../render/text.js';
import { parseCommandLine, usageText } from './parse-args.js';
import { paint, paintError } from '../render/colour.js';
import { styleFor } from './colour.js';
import { hintLaunch, rootElsewhere, rootLine } from '../app/views/where.js';
import { withLaunch } from '../render/launch.js';

// The command layer is one static graph, one file once bundled (start-up pays per module file);
// only what is heavy and rare loads on demand: the Markdown and YAML parsers, git, the MCP
// server, the report, the hook, init (scripts/build.mjs, LAZY).

declare const AUTOPILOT_VERSION: string | undefined;
const VERSION = typeof AUTOPILOT_VERSION === 'string' ? AUTOPILOT_VERSION : '0.0.0-dev';

interface Globals {
  C?: string;
  docs?: string;
  json?: boolean;
  run?: string;
  session?: string;
}

/** The registry's command names, and `help`: what `withLaunch` recognises in a hint. */
const NAMES = [...COMMANDS.map((c) => c.name), 'help'];

/** Where the command works: `-C`, `--docs`, and the run `--run` or `$AUTOPILOT_RUN` names (io/run.ts). */
const repoOptions = (g: Globals) => {
  const run = runOf(g.run);
  return { ...(g.C ? { dir: g.C } : {}), ...(g.docs ? { docs: g.docs } : {}), ...(run ? { run } : {}) };
};

const quoted = (word: string) => (/^[\w./@=:-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);

/** The same, a bad run name left out: for the hints of an error, which may be that name's. */
const looseOptions = (g: Globals) => {
  try {
    return repoOptions(g);
  } catch {
    return { ...(g.C ? { dir: g.C } : {}), ...(g.docs ? { docs: g.docs } : {}) };
  }
};

/** A text with its hints said with the launch that works here (`app/views/where.ts`), and the `-C`, `--docs` this command was given. */
const hinted = (text: string, g: Globals) =>
  withLaunch(text, NAMES, () => hintLaunch(looseOptions(g)), `${g.C ? ` -C ${quoted(g.C)}` : ''}${g.docs ? ` --docs ${quoted(g.docs)}` : ''}`, runSuffix(g));

/** ` --run NAME` for the run the command acted on (`--run`, else `$AUTOPILOT_RUN`): every hint carries it; empty for the default run. */
function runSuffix(g: Globals): string {
  try {
    const run = runOf(g.run);
    return run ? ` --run ${quoted(run)}` : '';
  } catch {
    return '';
  }
}

/** The answers that carry `root` (a position's paths are the root's): status, the step commands, init. */
const carriesRoot = (command: { name: string; mcp: object }) =>
  command.name === 'init' || ('answer' in command.mcp && (command.mcp.answer === 'status' || command.mcp.answer === 'step'));

function contextOf(g: Globals): Context {
  const { session, from } = sessionOf(g.session);
  return {
    repo: repoOptions(g),
    session,
    sessionFrom: from,
    role: 'cli',
    now: clockOf(),
  };
}

/** The command a bare `autopilot` points to: `init` where the repository has no run yet, else `status`. */
function nextToRun(g: Globals): { line: string; why: string } {
  const at = g.C ? `-C ${g.C} ` : '';
  // A folder that is not there, or a docs path that is wrong, has no run: `init` says what is wrong with it.
  if (hasRun({ repo: looseOptions(g) })) return { line: `autopilot ${at}status`, why: 'where the work stands' };
  return { line: `autopilot ${at}init`, why: 'this repository has no run yet: set it up' };
}

/** `autopilot mcp`: the MCP front end over the same registry, loaded here only, so no other command pays for the SDK. */
async function serveMcp(ctx: Context, given: string | undefined): Promise<Answer> {
  const { serveMcp } = await import('../mcp/server.js');
  await serveMcp(ctx, given, {
    commands: COMMANDS,
    readArguments,
    performCommand,
    globalOptions: GLOBAL_OPTIONS,
    runStatus,
    sessionOf,
    mcpSessionOf,
    statusText,
    errorText,
  });
  return { json: { closed: true }, text: '', exit: EXIT.ok };
}

/** The command this process ran, read by the launcher: its one code cache grows by each command it has not yet seen run (bin/autopilot.js). */
export let commandRun: string | undefined;

export async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const out = (text: string) => text && writeOut(1, text.endsWith('\n') ? text : `${text}\n`);
  // With --json, stdout carries one object whatever happens; without it, errors go to stderr.
  // Colour only for a person: never with --json (nor over MCP, which never comes here).
  const fail = (exit: number, asJson: unknown, asText: string) => {
    if (json) out(JSON.stringify(asJson));
    else if (asText) writeOut(2, `${coloured(2, safe(asText), paintError)}\n`);
    return exit;
  };

  const args = argv.slice(2);
  const parsed = parseCommandLine(args, COMMANDS, VERSION);
  if (parsed.kind === 'version') return (out(VERSION), EXIT.ok);
  if (parsed.kind === 'help') return (out(hinted(parsed.text, {})), EXIT.ok);
  if (parsed.kind === 'usage') {
    // No command at all is not a mistake: what autopilot is, and the one command to run now.
    const next = nextToRun(parsed.globals as Globals);
    const said = json
      ? JSON.stringify({ usage: 'autopilot [options] <command>', next: next.line, why: next.why })
      : hinted(usageText(VERSION, next), parsed.globals as Globals);
    return (out(said), EXIT.ok);
  }
  if (parsed.kind === 'error') {
    const error = new InputError(parsed.problem);
    return fail(EXIT.badInput, errorJson(error), hinted(errorText(error), {}));
  }

  let answer: Answer;
  const { command } = parsed;
  const globals = parsed.globals as Globals;
  commandRun = command.name;
  // Where the command works, when that is not where it started (a root found above): said to a person on stderr, to a program as `root`.
  const quiet = 'frontEnd' in command || ('plain' in command && command.plain) || (json && !carriesRoot(command));
  let options: ReturnType<typeof repoOptions>;
  try {
    options = repoOptions(globals);
  } catch (error) {
    return fail(exitCodeOfError(error), errorJson(error), errorText(error));
  }
  const elsewhere = quiet ? undefined : rootElsewhere(options);
  if (elsewhere && !json) writeOut(2, `${rootLine(elsewhere, options)}\n`);
  try {
    const ctx = contextOf(globals);
    if ('frontEnd' in command) answer = await serveMcp(ctx, globals.session);
    else answer = await performCommand(command, ctx, parsed.raw);
  } catch (error) {
    return fail(exitCodeOfError(error), errorJson(error), hinted(errorText(error), globals));
  }
  const body = elsewhere && carriesRoot(command) ? { ...answer.json, root: elsewhere.root } : answer.json;
  // Whatever a repository or an agent wrote reaches the terminal escaped: no control sequence runs, no line is forged.
  const text = () => safe(hinted(answer.text, globals));
  out(json ? JSON.stringify(body) : 'plain' in command && command.plain ? text() : coloured(1, text(), paint));
  return answer.exit;
}

/** Text painted where its descriptor wants colour (a terminal, or FORCE_COLOR), as it is elsewhere. */
function coloured(fd: 1 | 2, text: string, painter: typeof paint): string {
  const style = text ? styleFor(fd) : undefined;
  return style ? painter(text, style) : text;
}

/** Some output went through a stream, which finishes after the command: the process must wait for it. */
let streamed = false;

/**
 * Writes an answer straight to its file descriptor: a command's one answer
 * does not need `process.stdout`, whose stream costs start-up to build. A
 * descriptor that will not take it all now (a non-blocking pipe that is full)
 * gets the rest through the stream, which waits; a reader that went away
 * (`autopilot status | head -c 10`) ends the command quietly with its own exit code.
 */
function writeOut(fd: 1 | 2, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(fd, bytes, written);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EPIPE') return;
    if (code !== 'EAGAIN') throw error;
    streamed = true;
    const stream = fd === 1 ? process.stdout : process.stderr;
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
    });
    stream.write(bytes.subarray(written));
  }
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
    // The answer is out and nothing else is owed (an MCP server has closed): end now, rather than give the
    // event loop a turn in which V8 runs the young-generation collection it has scheduled (a few ms a call).
    if (!streamed) process.exit(code);
  },
  (error: unknown) => {
    writeOut(2, `autopilot: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = EXIT.internal;
  },
);
