/**
 * What a command is, for every front end: its name and summary, its
 * arguments and options with their types, whether it moves the run (a step
 * command), whether only a person may run it, whether it is an MCP tool (and
 * why not, when it is not), what it does (`run`, over the command layer in
 * `src/app/`) and what it says (`view`: the JSON answer, the text, the exit
 * code). `cli/main.ts` reads the command line by these; `mcp/tools.ts` builds the
 * MCP tools and their schemas; neither adds a command of its own.
 */
import type { Context } from '../app/transaction/context.js';
import { parseStepOption } from '../app/step/validate-event.js';
import { requireRunNamed } from '../app/transaction/run-named.js';
import { InputError } from '../errors.js';
import type { AnswerName } from '../render/answers.js';

/** How an option's value is read: `step` a step number from 1, `count` a whole number from 0. */
export type OptionType = 'boolean' | 'string' | 'step' | 'count';

export interface OptionSpec {
  /** The key in the command's arguments; on the MCP tool, the same in snake_case (`takeOver` → `take_over`). */
  key: string;
  /** As the command line takes it: `--step <n>`, `-n, --limit <count>`. */
  flags: string;
  type: OptionType;
  summary: string;
  required?: boolean;
  /** Only a person may use it (rule 10): `done --force`, `--take-over`. */
  person?: true;
  /** Why the MCP tool of the same name lacks it; absent when the tool has it. */
  notOnMcp?: string;
}

/** One line of a command's help: a command line a person can run as it is, and what it does. */
export interface Example {
  line: string;
  does: string;
}

export interface ArgumentSpec {
  key: string;
  /** As the command line shows it: `<option>`; `<text...>` takes the rest of the line, joined with spaces. */
  name: string;
  summary: string;
  /** The values it may take (an option letter), checked by the MCP tool's schema. */
  choices?: readonly string[];
  /** A `<name...>` argument kept as its words (a command line to run), not joined with spaces. */
  words?: true;
  /** It may be left out (`autopilot exec` alone runs the project's tests); the usage shows it in brackets. */
  optional?: true;
}

/** What a command says: the JSON object (`--json`, the MCP structured content), the text for a person, the exit code. */
export interface Answer {
  json: object;
  text: string;
  exit: number;
}

/** An answer whose two forms are built when read: the command line prints one of them on every call, MCP both. */
export function lazyAnswer(json: () => object, text: () => string, exit: number): Answer {
  return {
    get json() {
      return json();
    },
    get text() {
      return text();
    },
    exit,
  };
}

export type McpExposure =
  /** An MCP tool of the same name, answering with this schema (`render/answers.ts`). */
  | { tool: string; answer: AnswerName }
  /** Not an MCP tool, and why; `answer`: the schema its `--json` answer keeps all the same. */
  | { omitted: string; answer?: AnswerName };

/**
 * Why no command only a person decides is an MCP tool (rule 10): the tool
 * list goes to the agent, and a client's approval of a tool is not the
 * person's (Codex runs every tool unasked with its checks off). The agent
 * asks; the person runs the command in a terminal of their own, or approves
 * the exact command line the agent proposes in the client's permission prompt.
 */
export const PERSON_ONLY_MCP =
  "only a person decides it: the agent asks, and the person runs it in a terminal or approves the exact command line in the client's permission prompt";

/** Who may run it, and so whether it may be an MCP tool: a command only a person decides never is. */
export type Exposure =
  /** Only a person decides it (rule 10): the agent client's permission rules ask before an agent may run it; never an MCP tool. */
  { person: true; mcp: { omitted: string; answer?: AnswerName } } | { person?: undefined; mcp: McpExposure };

interface CommandBody<A, R> {
  name: string;
  summary: string;
  /** Two or three lines its help shows, each run as it is (the first a person would type first). */
  examples: readonly Example[];
  arguments?: readonly ArgumentSpec[];
  options?: readonly OptionSpec[];
  /** A step command: it moves the run, under the session's lease. */
  step?: true;
  /** It only reads: no lock, no lease, no write (an MCP client may run it without asking). */
  readOnly?: true;
  /** Its text is for another program (a hook's context, Markdown to paste): never coloured, even on a terminal. */
  plain?: true;
  /**
   * It needs no run named where the repository holds named runs only: it
   * works on every run (`runs`, `report`, `uninstall`), shows the overview
   * (`status`, the hook's), or starts the default run (`init`). Any other
   * command refuses there (`app/transaction/run-named.ts`). `overview`: on
   * the command line only; its MCP tool, whose answer's schema is the run's,
   * refuses like the others, naming the runs (the agent passes `run`).
   */
  anyRun?: true | 'overview';
  run(ctx: Context, args: A): Promise<R>;
  view(result: R): Answer;
}

export type Command<A = Record<string, never>, R = unknown> = CommandBody<A, R> & Exposure;

/**
 * A front end of its own that the command line starts (`mcp`): it sits above
 * this registry and serves it, so it has no `run` here.
 */
export interface FrontEnd {
  name: string;
  summary: string;
  examples: readonly Example[];
  frontEnd: 'mcp';
  mcp: { omitted: string };
}

/**
 * The options every command takes. On the command line they are the
 * program's; on MCP, `session` is an argument of every tool and the others
 * are the server's, fixed when the client starts it.
 */
export const GLOBAL_OPTIONS: readonly OptionSpec[] = [
  {
    key: 'C',
    flags: '-C <dir>',
    type: 'string',
    summary: 'run in another repository (default: the current one)',
    notOnMcp: 'the server serves the repository it was started in',
  },
  {
    key: 'docs',
    flags: '--docs <dir>',
    type: 'string',
    summary: 'the docs folder, relative to the repository root (default: _docs)',
    notOnMcp: 'the server is started with it',
  },
  {
    key: 'json',
    flags: '--json',
    type: 'boolean',
    summary: 'print one JSON object on stdout and nothing else',
    notOnMcp: 'every tool answers with the JSON object',
  },
  {
    key: 'run',
    flags: '--run <name>',
    type: 'string',
    summary: 'the run to act on, where a repository holds several (default: $AUTOPILOT_RUN, else the default run)',
  },
  {
    key: 'session',
    flags: '--session <id>',
    type: 'string',
    summary: "who is driving: the conversation's id (default: $AUTOPILOT_SESSION, the client's own id, else local)",
  },
];

/** One command, its argument type checked against its `run`. */
export function defineCommand<A, R>(command: Command<A, R>): Command<A, R> {
  return command;
}

/**
 * A command run by a front end (the command line, an MCP tool): the run it
 * acts on checked first (no run named where there are named runs only: exit
 * 2 before anything is read or written), then its arguments read by its
 * specs, then its answer.
 */
export async function performCommand<A, R>(command: Command<A, R>, ctx: Context, raw: Record<string, unknown>, front: 'cli' | 'mcp' = 'cli'): Promise<Answer> {
  if (!command.anyRun || (command.anyRun === 'overview' && front === 'mcp')) requireRunNamed(ctx, command.name);
  return command.view(await command.run(ctx, readArguments(command, raw) as A));
}

/** A whole number from 0 (`log -n 20`). */
export function parseCount(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === 'number' ? value : /^\d{1,9}$/.test(String(value)) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 0)
    throw new InputError({ message: `${flag} ${String(value)} is not a count`, expected: `a whole number, e.g. \`${flag} 20\``, received: String(value) });
  return n;
}

const flagOf = (option: OptionSpec) => option.flags.split(/[ ,]+/).find((f) => f.startsWith('--'))!;

/**
 * A command's arguments from what a front end received (the command line's strings,
 * or an MCP client's JSON values), read by the command's own specs: every
 * front end goes through here, so an option means the same everywhere.
 */
export function readArguments(command: Pick<Command, 'arguments' | 'options'>, raw: Record<string, unknown>): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const argument of command.arguments ?? []) {
    const value = raw[argument.key];
    if (argument.words) args[argument.key] = Array.isArray(value) ? value.map(String) : value === undefined ? [] : [String(value)];
    else args[argument.key] = Array.isArray(value) ? value.join(' ') : value === undefined ? '' : String(value);
  }
  for (const option of command.options ?? []) {
    const value = raw[option.key];
    if (value === undefined) continue;
    if (option.type === 'boolean') args[option.key] = value === true;
    else if (option.type === 'step') args[option.key] = parseStepOption(value);
    else if (option.type === 'count') args[option.key] = parseCount(value, flagOf(option));
    else args[option.key] = String(value);
  }
  return args;
}

/** `takeOver` → `take_over`: an option's key on the MCP tool. */
export { snakeCase } from './snake-case.js';
