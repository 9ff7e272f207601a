/**
 * The MCP tools, built from the registry (`src/commands/`): one per command
 * the registry exposes, its input schema from the command's arguments and
 * options (snake_case keys), its output schema from the command's answer
 * (`render/answers.ts`). An option the tool lacks is one the registry says
 * why of (`notOnMcp`). A command only a person decides is never a tool,
 * whatever its entry says (rule 10): the list is the agent's. No rule lives here. The list goes into every model
 * session, so it is kept small: short descriptions, and output schemas that
 * name the keys an answer always has.
 */
import * as z from 'zod';
import type { Context } from '../app/transaction/context.js';
import type { Answer, ArgumentSpec, GLOBAL_OPTIONS, OptionSpec, performCommand, readArguments } from '../commands/command.js';
import { snakeCase } from '../commands/snake-case.js';
import type { AnyCommand, COMMANDS } from '../commands/index.js';
import { ANSWER_KEYS } from '../render/answer-keys.js';
import type { AnswerName } from '../render/answers.js';

export interface Tool {
  name: string;
  description: string;
  /** A tool that only reads says so (`readOnlyHint`): Codex then runs it without an approval. */
  readOnly: boolean;
  input: z.ZodObject;
  /** The same input as the JSON Schema the tool list declares. */
  inputSchema: Record<string, unknown>;
  /** The JSON Schema the tool list declares for its structured content. */
  outputSchema: Record<string, unknown>;
  call: (ctx: Context, args: Record<string, unknown>) => Promise<Answer>;
}

/** One input field, as zod checks it and as the tool list declares it (JSON Schema): both from one spec, so they cannot disagree. */
interface Field {
  check: z.ZodType;
  schema: Record<string, unknown>;
}

function optionField(option: OptionSpec): Field {
  // Types only: the values are checked where the command line's are (`readArguments`, `validateEvent`), so the list stays small.
  const [check, type] =
    option.type === 'boolean' ? [z.boolean(), 'boolean'] : option.type === 'step' || option.type === 'count' ? [z.number(), 'number'] : [z.string(), 'string'];
  return { check: option.required ? check : check.optional(), schema: { type } };
}

const argumentField = (argument: ArgumentSpec): Field =>
  argument.choices
    ? { check: z.enum(argument.choices as [string, ...string[]]), schema: { type: 'string', enum: [...argument.choices] } }
    : { check: z.string().min(1), schema: { type: 'string', minLength: 1 } };

/** What the tools need of the command line's registry, handed over with it (`McpHost`): so the server's bundle carries no second copy. */
export interface ToolHost {
  commands: typeof COMMANDS;
  readArguments: typeof readArguments;
  /** The run checked, the arguments read, the command run: as the command line runs it. */
  performCommand: typeof performCommand;
  globalOptions: typeof GLOBAL_OPTIONS;
}

function inputOf(command: AnyCommand, globalOptions: ToolHost['globalOptions']): Pick<Tool, 'input' | 'inputSchema'> {
  const fields: Record<string, Field> = {};
  const required: string[] = [];
  const add = (key: string, field: Field, isRequired: boolean) => {
    fields[snakeCase(key)] = field;
    if (isRequired) required.push(snakeCase(key));
  };
  // Every tool acts on a run (`run`, rule 12). `status` shows whether the lease is the caller's; the other readers do not care who asks (`session`).
  const asks = !command.readOnly || command.name === 'status';
  for (const option of globalOptions)
    if (!option.notOnMcp && (asks || option.key !== 'session')) add(option.key, optionField(option), option.required === true);
  for (const argument of command.arguments ?? []) add(argument.key, argumentField(argument), true);
  for (const option of command.options ?? []) if (!option.notOnMcp) add(option.key, optionField(option), option.required === true);
  const entries = Object.entries(fields);
  return {
    input: z.object(Object.fromEntries(entries.map(([key, field]) => [key, field.check]))),
    // The compact JSON Schema the tool list carries, written out rather than converted from zod's: its converter is a fifth of zod's bytes in the package.
    inputSchema: {
      type: 'object',
      properties: Object.fromEntries(entries.map(([key, field]) => [key, field.schema])),
      ...(required.length > 0 ? { required } : {}),
    },
  };
}

function toolOf(command: AnyCommand, tool: string, answer: AnswerName, host: ToolHost): Tool {
  const keys = [...(command.arguments ?? []), ...(command.options ?? [])].map((spec) => spec.key);
  return {
    name: command.name,
    description: tool,
    readOnly: command.readOnly === true,
    ...inputOf(command, host.globalOptions),
    outputSchema: { type: 'object', required: [...ANSWER_KEYS[answer]] },
    call: async (ctx, args) => {
      // The tool's snake_case keys back to the registry's keys; then the arguments are read as the command line reads them.
      const raw = Object.fromEntries(keys.map((key) => [key, args[snakeCase(key)]]));
      return host.performCommand(command, ctx, raw, 'mcp');
    },
  };
}

/** The tools of the registry's commands (handed over by the command line: see `McpHost`); none of a person's. */
export const toolsOf = (host: ToolHost): Tool[] =>
  host.commands.flatMap((command) =>
    'frontEnd' in command || command.person || !('tool' in command.mcp) ? [] : [toolOf(command, command.mcp.tool, command.mcp.answer, host)],
  );
