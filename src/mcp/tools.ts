/**
 * The MCP tools, built from the registry (`src/commands/`): one per command
 * the registry exposes, its input schema from the command's arguments and
 * options (snake_case keys), its output schema from the command's answer
 * (`render/answers.ts`). An option the tool lacks is one the registry says
 * why of (`notOnMcp`). No rule lives here. The list goes into every model
 * session, so it is kept small: short descriptions, and output schemas that
 * name the keys an answer always has.
 */
import { z } from 'zod';
import type { Context } from '../app/context.js';
import type { Answer, ArgumentSpec, GLOBAL_OPTIONS, OptionSpec, readArguments } from '../commands/command.js';
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
  /** The JSON Schema the tool list declares for its structured content. */
  outputSchema: Record<string, unknown>;
  call: (ctx: Context, args: Record<string, unknown>) => Promise<Answer>;
}

function optionSchema(option: OptionSpec): z.ZodType {
  // Types only: the values are checked where the command line's are (`readArguments`, `validateEvent`), so the list stays small.
  const base = option.type === 'boolean' ? z.boolean() : option.type === 'step' || option.type === 'count' ? z.number() : z.string();
  return option.required ? base : base.optional();
}

const argumentSchema = (argument: ArgumentSpec): z.ZodType => (argument.choices ? z.enum(argument.choices as [string, ...string[]]) : z.string().min(1));

/** What the tools need of the command line's registry, handed over with it (`McpHost`): so the server's bundle carries no second copy. */
export interface ToolHost {
  commands: typeof COMMANDS;
  readArguments: typeof readArguments;
  globalOptions: typeof GLOBAL_OPTIONS;
}

function inputOf(command: AnyCommand, globalOptions: ToolHost['globalOptions']): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  // `status` shows whether the lease is the caller's; the other readers do not care who asks.
  if (!command.readOnly || command.name === 'status')
    for (const option of globalOptions) if (!option.notOnMcp) shape[snakeCase(option.key)] = optionSchema(option);
  for (const argument of command.arguments ?? []) shape[snakeCase(argument.key)] = argumentSchema(argument);
  for (const option of command.options ?? []) if (!option.notOnMcp) shape[snakeCase(option.key)] = optionSchema(option);
  return z.object(shape);
}

/** An input schema as the compact JSON Schema the tool list carries: no `$schema`, no empty `additionalProperties`. */
export function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (!node || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$schema') continue;
      if (key === 'additionalProperties' && value && typeof value === 'object' && Object.keys(value).length === 0) continue;
      out[key] = strip(value);
    }
    return out;
  };
  return strip(z.toJSONSchema(schema, { io: 'input' })) as Record<string, unknown>;
}

function toolOf(command: AnyCommand, tool: string, answer: AnswerName, host: ToolHost): Tool {
  const keys = [...(command.arguments ?? []), ...(command.options ?? [])].map((spec) => spec.key);
  return {
    name: command.name,
    description: tool,
    readOnly: command.readOnly === true,
    input: inputOf(command, host.globalOptions),
    outputSchema: { type: 'object', required: [...ANSWER_KEYS[answer]] },
    call: async (ctx, args) => {
      // The tool's snake_case keys back to the registry's keys; then the arguments are read as the command line reads them.
      const raw = Object.fromEntries(keys.map((key) => [key, args[snakeCase(key)]]));
      return command.view(await command.run(ctx, host.readArguments(command, raw)));
    },
  };
}

/** The tools of the registry's commands (handed over by the command line: see `McpHost`). */
export const toolsOf = (host: ToolHost): Tool[] =>
  host.commands.flatMap((command) => ('frontEnd' in command || !('tool' in command.mcp) ? [] : [toolOf(command, command.mcp.tool, command.mcp.answer, host)]));
