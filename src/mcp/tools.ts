/**
 * The MCP tools: one per command, each calling the command layer and
 * returning the CLI's `--json` object as structured content. No rule lives
 * here. Descriptions are short on purpose: the list goes into every model
 * session (kept under 3 KB, tested).
 */
import { z } from 'zod';
import type { Context } from '../app/context.js';
import { runCheck } from '../app/check.js';
import { viewJson } from '../app/json.js';
import { runLog } from '../app/log.js';
import { checkJson, logJson } from '../app/report-json.js';
import { runStatus } from '../app/status.js';
import { runStep } from '../app/step.js';
import { parseStepOption } from '../app/validate-event.js';
import type { View } from '../app/view.js';
import type { Event } from '../engine/transitions.js';
import { EXIT } from '../errors.js';
import { checkText, logText, outcomeText, statusText } from '../cli/render/text.js';

export interface ToolResult {
  json: Record<string, unknown>;
  text: string;
  /** The CLI's exit code for the same call: 0 and 3 are answers, anything else an error. */
  exit: number;
}

export interface Tool {
  name: string;
  description: string;
  input: z.ZodObject;
  output: z.ZodObject;
  run: (ctx: Context, args: Record<string, unknown>) => Promise<ToolResult>;
}

const step = z.number().optional();
const reason = z.string().min(1);
/**
 * The keys every position-bearing answer carries; the rest of the CLI's
 * object passes through, and an error (`{ error }`) fits every output schema.
 */
const position = z.looseObject({ step: z.union([z.number(), z.string()]).optional(), status: z.string().optional(), outcome: z.string().optional() });

const fromView = ({ view, exit }: { view: View; exit: number }): ToolResult => ({
  json: viewJson(view),
  text: view.command === 'status' ? statusText(view) : outcomeText(view),
  exit,
});

function stepTool(name: string, description: string, input: z.ZodObject, toEvent: (a: Record<string, unknown>) => Event): Tool {
  return {
    name,
    description,
    input,
    output: position,
    run: async (ctx, a) =>
      fromView(
        await runStep(ctx, {
          event: toEvent(a),
          ...(a.step !== undefined ? { step: parseStepOption(String(a.step)) } : {}),
          ...(a.take_over === true ? { takeOver: true } : {}),
        }),
      ),
  };
}

const none = z.object({});
const aimed = (extra: z.ZodRawShape = {}) => z.object({ step, ...extra });

export const TOOLS: Tool[] = [
  { name: 'status', description: 'Where the work stands. Never writes.', input: none, output: position, run: async (ctx) => fromView(await runStatus(ctx)) },
  stepTool(
    'next',
    'What to do now: skill file, done_when; or a decision/boundary to show the person.',
    z.object({ take_over: z.boolean().optional() }),
    () => ({
      type: 'next',
    }),
  ),
  stepTool('substep', 'Record progress inside the step.', aimed({ text: reason }), (a) => ({ type: 'substep', text: String(a.text) })),
  stepTool('done', 'The step succeeded; its done_when files must exist.', aimed(), () => ({ type: 'done' })),
  stepTool('fail', 'The attempt failed (3 → failed).', aimed({ reason }), (a) => ({ type: 'fail', reason: String(a.reason) })),
  stepTool('skip', 'Skip an optional step.', aimed({ reason }), (a) => ({ type: 'skip', reason: String(a.reason) })),
  stepTool('decide', "Answer the pending decision with the person's letter.", aimed({ option: z.enum(['A', 'B', 'C', 'D']) }), (a) => ({
    type: 'decide',
    option: String(a.option),
  })),
  stepTool('ack', 'A person has seen the failed step: 3 more tries.', aimed(), () => ({ type: 'ack' })),
  {
    name: 'log',
    description: 'The journal, newest last.',
    input: z.object({ limit: z.number().optional() }),
    output: z.looseObject({ events: z.array(z.unknown()).optional() }),
    run: async (ctx, a) => {
      const limit = typeof a.limit === 'number' ? Math.max(0, Math.floor(a.limit)) : undefined;
      const r = runLog(ctx, limit);
      return { json: logJson(r), text: logText(r, limit), exit: EXIT.ok };
    },
  },
  {
    name: 'check',
    description: 'Validate flows, skills, pointer, journal.',
    input: none,
    output: z.looseObject({ ok: z.boolean().optional() }),
    run: async (ctx) => {
      const r = await runCheck(ctx);
      return { json: checkJson(r), text: checkText(r), exit: r.problems.length === 0 ? EXIT.ok : EXIT.badInput };
    },
  },
];

/** A zod schema as the compact JSON Schema the tool list carries: no `$schema`, no empty `additionalProperties`. */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
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
  return strip(z.toJSONSchema(schema, { io })) as Record<string, unknown>;
}
