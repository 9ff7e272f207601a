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

export type Parsed =
  | { kind: 'run'; command: AnyCommand | FrontEnd; raw: Record<string, unknown>; globals: Record<string, unknown> }
  | { kind: 'help'; text: string }
  | { kind: 'version' }
  | { kind: 'error'; message: string };

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

/** The command's name: the first word that is neither an option nor a global option's value. */
function commandWord(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word === '--') return args[i + 1];
    if (!word.startsWith('-')) return word;
    const name = word.replace(/^-+/, '').split('=')[0]!;
    if (!word.includes('=') && globalLongs.has(name)) i++;
  }
  return undefined;
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

export function parseCommandLine(args: readonly string[], commands: readonly (AnyCommand | FrontEnd)[], version: string): Parsed {
  const name = commandWord(args);
  if (name === undefined || name === 'help') {
    if (args.includes('--version') || args.includes('-V')) return { kind: 'version' };
    const about = name === 'help' ? commands.find((c) => c.name === args[args.indexOf('help') + 1]) : undefined;
    return { kind: 'help', text: about ? commandHelp(about) : programHelp(commands, version) };
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    const near = commands.find((c) => c.name.startsWith(name.slice(0, 2)));
    return { kind: 'error', message: `unknown command '${name}'${near ? ` (did you mean ${near.name}?)` : ''}` };
  }
  const own = 'frontEnd' in command ? [] : (command.options ?? []);
  const { specs, keys } = parserOptions([...GLOBAL_OPTIONS, ...own]);
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = quickParse(args, specs) ?? parseArgs({ args: [...args], options: specs, allowPositionals: true, strict: true });
  } catch (error) {
    return { kind: 'error', message: (error as Error).message.replace(/\. To specify a positional argument.*$/s, '') };
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help', text: commandHelp(command) };
  if (values.version) return { kind: 'version' };
  const raw: Record<string, unknown> = {};
  const globals: Record<string, unknown> = {};
  for (const [long, value] of Object.entries(values)) {
    const option = keys.get(long);
    if (!option) continue;
    (GLOBAL_OPTIONS.includes(option) ? globals : raw)[option.key] = value;
  }
  const words = positionals.slice(positionals.indexOf(name) + 1);
  const specsOf: readonly ArgumentSpec[] = 'frontEnd' in command ? [] : (command.arguments ?? []);
  for (const [i, argument] of specsOf.entries()) {
    const rest = argument.name.endsWith('...>');
    const value = rest ? words.slice(i) : words[i];
    if (value === undefined || (Array.isArray(value) && value.length === 0))
      return { kind: 'error', message: `missing required argument '${argument.name.replace(/[<>.]/g, '')}'` };
    raw[argument.key] = value;
  }
  if (!specsOf.some((a) => a.name.endsWith('...>')) && words.length > specsOf.length)
    return { kind: 'error', message: `too many arguments for '${name}': ${words.slice(specsOf.length).join(' ')}` };
  for (const option of own) {
    if (option.required && raw[option.key] === undefined) return { kind: 'error', message: `required option '${option.flags}' not specified` };
  }
  return { kind: 'run', command, raw, globals };
}

const column = (rows: [string, string][]) => {
  const width = Math.max(...rows.map(([a]) => a.length), 0) + 2;
  return rows.map(([a, b]) => `  ${a.padEnd(width)}${b}`).join('\n');
};

const optionRows = (options: readonly OptionSpec[]): [string, string][] => options.map((o) => [o.flags, o.summary]);

function programHelp(commands: readonly (AnyCommand | FrontEnd)[], version: string): string {
  const rows: [string, string][] = commands.map((c) => [[c.name, ...('frontEnd' in c ? [] : (c.arguments ?? []).map((a) => a.name))].join(' '), c.summary]);
  return [
    `Usage: autopilot [options] <command> (autopilot ${version})`,
    '',
    'Carries a multi-step project across sessions: the engine keeps the position, the agent does the work.',
    '',
    'Options:',
    column([...optionRows(GLOBAL_OPTIONS), ['-V, --version', 'the version'], ['-h, --help', 'this help; `autopilot help <command>` for one']]),
    '',
    'Commands:',
    column(rows),
  ].join('\n');
}

function commandHelp(command: AnyCommand | FrontEnd): string {
  const args = 'frontEnd' in command ? [] : (command.arguments ?? []);
  const options = 'frontEnd' in command ? [] : (command.options ?? []);
  return [
    `Usage: autopilot ${command.name}${args.map((a) => ` ${a.name}`).join('')} [options]`,
    '',
    command.summary,
    ...(args.length > 0 ? ['', 'Arguments:', column(args.map((a) => [a.name, a.summary]))] : []),
    '',
    'Options:',
    column([...optionRows(options), ...optionRows(GLOBAL_OPTIONS)]),
  ].join('\n');
}
