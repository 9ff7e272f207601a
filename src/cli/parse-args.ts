/**
 * The command line read by the registry's specs (`src/commands/`), with
 * Node's own `util.parseArgs`: the program's options anywhere on the line,
 * then one command, its arguments and options. What commander did for the
 * CLI, in the part the CLI uses, without its weight on every start-up. The
 * usual line is read by `quickParse`, held to parseArgs's reading by a test,
 * so most calls never load parseArgs. The help is built from the same specs.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { GLOBAL_OPTIONS, type ArgumentSpec, type OptionSpec } from '../commands/command.js';
import type { AnyCommand } from '../commands/index.js';
import type { FrontEnd } from '../commands/command.js';
import { ERROR_EXIT, EXIT, EXIT_MEANING, type Problem } from '../errors.js';
import { personOrderProblem } from './person-order.js';
import { didYouMean } from './suggest.js';

export type Parsed =
  | { kind: 'run'; command: AnyCommand | FrontEnd; raw: Record<string, unknown>; globals: Record<string, unknown> }
  | { kind: 'help'; text: string }
  /** No command at all: a short usage and the next command to run (`usageText`). */
  | { kind: 'usage'; globals: Record<string, unknown> }
  | { kind: 'version' }
  /** Bad usage, said as the engine says bad input: what, expected, received. */
  | { kind: 'error'; problem: Problem };

type AnyEntry = AnyCommand | FrontEnd;

type Specs = ParseArgsConfig['options'];

/** `--step <n>` → the option's long name, its short letter, and whether it takes a value. */
function specOf(option: OptionSpec): { long: string; short?: string; value: boolean } {
  const words = option.flags.split(/[ ,]+/);
  const long = words.find((w) => w.startsWith('--'))?.slice(2) ?? words.find((w) => /^-\w$/.test(w))!.slice(1);
  const short = words.find((w) => /^-\w$/.test(w))?.slice(1);
  return { long, ...(short ? { short } : {}), value: option.type !== 'boolean' };
}

/** The parser's options for a command's options (the test that holds quickParse to util.parseArgs uses them too). */
export function parserOptions(options: readonly OptionSpec[]): { specs: NonNullable<Specs>; keys: Map<string, OptionSpec> } {
  const specs: NonNullable<Specs> = {};
  const keys = new Map<string, OptionSpec>();
  for (const option of options) {
    const { long, short, value } = specOf(option);
    specs[long] = { type: value ? 'string' : 'boolean', ...(short ? { short } : {}) };
    keys.set(long, option);
  }
  specs.help = { type: 'boolean', short: 'h' };
  specs.version = { type: 'boolean', short: 'V' };
  return { specs, keys };
}

const globalLongs = new Set(
  GLOBAL_OPTIONS.filter((o) => o.type !== 'boolean').flatMap((o) => [specOf(o).long, ...(specOf(o).short ? [specOf(o).short!] : [])]),
);

/** Where the command's name stands: the first word that is neither an option nor a global option's value (-1: none). */
function commandAt(args: readonly string[]): number {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word === '--') return i + 1 < args.length ? i + 1 : -1;
    if (!word.startsWith('-')) return i;
    const name = word.replace(/^-+/, '').split('=')[0]!;
    if (!word.includes('=') && globalLongs.has(name)) i++;
  }
  return -1;
}

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

/**
 * The line nearly every call is (`next --json`, `-C <dir> status`): options
 * each in a word of their own, by long name or one letter, a value in the next
 * word, no `--` and no `=`. Read here exactly as `util.parseArgs` reads it,
 * because loading parseArgs costs about a millisecond on every call; any other
 * line is left to it (undefined), errors included.
 */
export function quickParse(args: readonly string[], specs: NonNullable<Specs>): { values: Values; positionals: string[] } | undefined {
  const values: Values = {};
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.startsWith('-')) {
      positionals.push(word);
      continue;
    }
    const name = word.startsWith('--') ? word.slice(2) : word.length === 2 ? Object.keys(specs).find((key) => specs[key]!.short === word[1]) : undefined;
    const spec = name && Object.hasOwn(specs, name) ? specs[name] : undefined;
    if (!name || !spec || spec.multiple || spec.default !== undefined) return undefined;
    if (spec.type === 'boolean') {
      values[name] = true;
      continue;
    }
    const value = args[i + 1];
    if (value === undefined || value.startsWith('-')) return undefined;
    values[name] = value;
    i++;
  }
  return { values, positionals };
}

/** The flags a command's line may carry: its own, the program's, help and version. */
function flagsOf(options: readonly OptionSpec[]): string[] {
  return [...options, ...GLOBAL_OPTIONS].flatMap((o) => o.flags.split(/[ ,]+/).filter((w) => w.startsWith('-'))).concat('--help', '--version');
}

function unknownCommand(name: string, commands: readonly AnyEntry[]): Parsed {
  return {
    kind: 'error',
    problem: {
      message: `\`${name}\` is not a command${didYouMean(
        name,
        commands.map((c) => c.name),
      )}`,
      expected: 'a command from `autopilot help`, e.g. `autopilot status`',
      received: name,
    },
  };
}

/** A parseArgs error in the engine's words; an unknown option with the nearest known ones. */
function optionError(error: Error & { code?: string }, command: AnyEntry, own: readonly OptionSpec[]): Parsed {
  const message = error.message.replace(/\. To specify a positional argument.*$/s, '');
  const unknown = /^Unknown option '([^']+)'/.exec(message)?.[1];
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown) {
    return {
      kind: 'error',
      problem: {
        message: `\`${unknown}\` is not an option of \`autopilot ${command.name}\`${didYouMean(unknown, flagsOf(own))}`,
        expected: `an option from \`autopilot help ${command.name}\``,
        received: unknown,
      },
    };
  }
  return { kind: 'error', problem: { message: `autopilot ${command.name}: ${message}`, expected: `the line \`autopilot help ${command.name}\` shows` } };
}

export function parseCommandLine(args: readonly string[], commands: readonly AnyEntry[], version: string): Parsed {
  const at = commandAt(args);
  const name = at < 0 ? undefined : args[at];
  if (name === undefined || name === 'help') {
    if (args.includes('--version') || args.includes('-V')) return { kind: 'version' };
    const topic = name === 'help' ? args[args.indexOf('help') + 1] : undefined;
    const about = topic === undefined ? undefined : commands.find((c) => c.name === topic);
    if (topic !== undefined && topic !== 'help' && !about && !topic.startsWith('-')) return unknownCommand(topic, commands);
    if (about) return { kind: 'help', text: commandHelp(about) };
    if (name === 'help' || args.includes('--help') || args.includes('-h')) return { kind: 'help', text: programHelp(commands, version) };
    return { kind: 'usage', globals: globalsOf(args) };
  }
  const command = commands.find((c) => c.name === name);
  if (!command) return unknownCommand(name, commands);
  const own = 'frontEnd' in command ? [] : (command.options ?? []);
  const { specs, keys } = parserOptions([...GLOBAL_OPTIONS, ...own]);
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = quickParse(args, specs) ?? parseArgs({ args: [...args], options: specs, allowPositionals: true, strict: true });
  } catch (error) {
    return optionError(error as Error, command, own);
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help', text: commandHelp(command) };
  if (values.version) return { kind: 'version' };
  const raw: Record<string, unknown> = {};
  const globals: Record<string, unknown> = {};
  const personFlags: string[] = [];
  for (const [long, value] of Object.entries(values)) {
    const option = keys.get(long);
    if (!option) continue;
    (GLOBAL_OPTIONS.includes(option) ? globals : raw)[option.key] = value;
    if (option.person) personFlags.push(`--${long}`);
  }
  const order = personOrderProblem(args, { name, at, person: 'person' in command && command.person === true, flags: personFlags });
  if (order) return { kind: 'error', problem: order };
  const words = positionals.slice(positionals.indexOf(name) + 1);
  const specsOf: readonly ArgumentSpec[] = 'frontEnd' in command ? [] : (command.arguments ?? []);
  for (const [i, argument] of specsOf.entries()) {
    const rest = argument.name.endsWith('...>');
    const value = rest ? words.slice(i) : words[i];
    if ((value === undefined || (Array.isArray(value) && value.length === 0)) && !argument.optional)
      return { kind: 'error', problem: missing(command, `the argument ${argument.name}`, argument.summary) };
    raw[argument.key] = value;
  }
  if (!specsOf.some((a) => a.name.endsWith('...>')) && words.length > specsOf.length)
    return {
      kind: 'error',
      problem: {
        message: `too many arguments for \`autopilot ${name}\``,
        expected: usageLine(command),
        received: words.slice(specsOf.length).join(' '),
      },
    };
  for (const option of own) {
    if (option.required && raw[option.key] === undefined) return { kind: 'error', problem: missing(command, option.flags, option.summary) };
  }
  return { kind: 'run', command, raw, globals };
}

/** The program's options on a line that names no command (`autopilot -C ../app`): where the short usage looks. */
function globalsOf(args: readonly string[]): Record<string, unknown> {
  try {
    const { specs, keys } = parserOptions(GLOBAL_OPTIONS);
    const { values } = parseArgs({ args: [...args], options: specs, allowPositionals: true, strict: false });
    return Object.fromEntries(Object.entries(values).flatMap(([long, value]) => (keys.has(long) ? [[keys.get(long)!.key, value]] : [])));
  } catch {
    return {};
  }
}

/** A required argument or option left out: what it is for, and the command's first example that gives it. */
function missing(command: AnyEntry, what: string, summary: string): Problem {
  const flag = what.replace(/^the argument /, '').split(' ')[0]!;
  const example = command.examples.find((e) => !flag.startsWith('-') || e.line.includes(`${flag} `))?.line;
  return {
    message: `\`autopilot ${command.name}\` needs ${what}: ${summary}`,
    expected: example ? `\`${example}\`` : usageLine(command),
    received: `no ${flag.startsWith('-') ? flag : flag.replace(/[<>.]/g, '')}`,
  };
}

/** The width help keeps to: a terminal's 80 columns. */
const WIDTH = 80;

/** `text` wrapped at word boundaries to 80 columns, every line after the first indented by `indent`. */
function wrap(first: string, text: string, indent: number): string {
  const lines: string[] = [];
  let current = first;
  for (const word of text.split(' ')) {
    if (current.trim() !== '' && current.length + 1 + word.length > WIDTH && current.length > indent) {
      lines.push(current.trimEnd());
      current = ' '.repeat(indent) + word;
    } else current += (current.length === 0 || current.endsWith(' ') ? '' : ' ') + word;
  }
  lines.push(current);
  return lines.join('\n');
}

const column = (rows: [string, string][]) => {
  const width = Math.min(Math.max(...rows.map(([a]) => a.length), 0), 26) + 2;
  return rows
    .map(([a, b]) => (a.length + 2 > width ? `  ${a}\n${wrap(' '.repeat(width + 2), b, width + 2)}` : wrap(`  ${a.padEnd(width)}`, b, width + 2)))
    .join('\n');
};

const optionRows = (options: readonly OptionSpec[]): [string, string][] => options.map((o) => [o.flags, o.required ? `required: ${o.summary}` : o.summary]);

/** The exit codes, each with the error codes (`error.code` in `--json`) that give it: `errors.ts` is the one source. */
export function exitCodesText(): string {
  const codes = Object.values(EXIT);
  return codes
    .map((exit) => {
      const errors = Object.entries(ERROR_EXIT)
        .filter(([, e]) => e === exit)
        .map(([code]) => code);
      return wrap(`  ${exit}  `, `${EXIT_MEANING[exit]}${errors.length > 0 ? `; --json: ${errors.join(', ')}` : ''}`, 5);
    })
    .join('\n');
}

const examplesText = (command: AnyEntry) => command.examples.map((e) => `  ${e.line}\n${wrap('      ', e.does, 6)}`).join('\n');

const globalFlags = GLOBAL_OPTIONS.map((o) => o.flags).join(', ');

function programHelp(commands: readonly AnyEntry[], version: string): string {
  const rows: [string, string][] = commands.map((c) => [[c.name, ...('frontEnd' in c ? [] : (c.arguments ?? []).map((a) => a.name))].join(' '), c.summary]);
  return [
    `Usage: autopilot [options] <command> (autopilot ${version})`,
    '',
    'Carries a multi-step project across sessions: the engine keeps the position,',
    'the agent does the work.',
    '',
    'Commands:',
    column(rows),
    '',
    'Options (every command takes them):',
    column([...optionRows(GLOBAL_OPTIONS), ['-V, --version', 'the version'], ['-h, --help', 'this help; `autopilot help <command>` for one, with examples']]),
    '',
    'Exit codes:',
    exitCodesText(),
    '',
    'Examples:',
    '  autopilot init',
    '      set this repository up for autopilot and its agents',
    '  autopilot next',
    '      what to do now',
    '  autopilot help done',
    "      one command's options and examples",
  ].join('\n');
}

/** `autopilot skip --reason <text> [options]`: the command, its arguments and its required options. */
function usageLine(command: AnyEntry): string {
  const args = 'frontEnd' in command ? [] : (command.arguments ?? []);
  const required = 'frontEnd' in command ? [] : (command.options ?? []).filter((o) => o.required);
  return `autopilot ${command.name}${[...required.map((o) => o.flags), ...args.map((a) => (a.optional ? `[${a.name.slice(1, -1)}]` : a.name))].map((w) => ` ${w}`).join('')} [options]`;
}

function commandHelp(command: AnyEntry): string {
  const args = 'frontEnd' in command ? [] : (command.arguments ?? []);
  const options = 'frontEnd' in command ? [] : (command.options ?? []);
  return [
    `Usage: ${usageLine(command)}`,
    '',
    wrap('', command.summary, 0),
    ...(args.length > 0 ? ['', 'Arguments:', column(args.map((a) => [a.name, a.summary]))] : []),
    ...(options.length > 0 ? ['', 'Options:', column(optionRows(options))] : []),
    '',
    'Examples:',
    examplesText(command),
    '',
    wrap('', `Every command also takes ${globalFlags}; \`autopilot help\` says what they do, and lists the exit codes.`, 0),
  ].join('\n');
}

/**
 * `autopilot` alone: what it is, how to ask for more, and the one command to
 * run now (`autopilot init` in a folder not set up, else `autopilot status`).
 */
export function usageText(version: string, next: { line: string; why: string }): string {
  return [
    `autopilot ${version}: carries a multi-step project across sessions.`,
    '',
    'Usage: autopilot [options] <command>',
    '  `autopilot help` lists the commands; `autopilot help <command>` explains one.',
    '',
    `Next: ${next.line}   (${next.why})`,
  ].join('\n');
}
