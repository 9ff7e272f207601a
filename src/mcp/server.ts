/**
 * `autopilot mcp`: the registry (`src/commands/`) as an MCP server over
 * stdio, one long-lived process. A front end like the CLI: each tool runs its
 * command and answers once. Claude Code and Codex hand the model a result's
 * structured content and drop its text (docs/claude-code-facts.md,
 * docs/codex-facts.md), so an answer is the CLI's `--json` object as
 * structured content, with the answer in a few lines of text for clients
 * that show text (`answer-text.ts`). A refusal is a tool error, which Claude Code hands over as text
 * alone: its text is the whole answer (the code, the line, the JSON) and it
 * carries no structured content to say it twice.
 * Loaded only by `autopilot mcp`, so no other command pays for the SDK.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import * as z from 'zod';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { runOf, type Context, type sessionOf } from '../app/transaction/context.js';
import type { mcpSessionOf } from '../clients/index.js';
import type { runStatus } from '../app/views/status.js';
import { errorJson, InputError, isMcpResult } from '../errors.js';
import type { errorText, statusText } from '../render/text.js';
import { toolsOf, type ToolHost } from './tools.js';
import { LineTransport } from './transport.js';
import { answerText } from './answer-text.js';
import { MCP_LINE_MAX_BYTES } from '../limits.js';

/**
 * What the server runs, handed over by the command line that loads it: this
 * bundle is loaded lazily, beside the CLI's, and would otherwise carry a
 * second copy of the whole engine (a sixth of the package).
 */
export interface McpHost extends ToolHost {
  runStatus: typeof runStatus;
  sessionOf: typeof sessionOf;
  /** The conversation's id a client sends with a call, where it sends one (Codex: `_meta.threadId`; `clients/`). */
  mcpSessionOf: typeof mcpSessionOf;
  statusText: typeof statusText;
  errorText: typeof errorText;
}

export const STATUS_URI = 'autopilot://status';

declare const AUTOPILOT_VERSION: string | undefined;
const VERSION = typeof AUTOPILOT_VERSION === 'string' ? AUTOPILOT_VERSION : '0.0.0-dev';

/**
 * A tool error as clients deliver it: Claude Code hands the model an error's
 * text alone, so the text is the error's code and its first line, then the
 * whole JSON error on a line of its own (`{"error": …}`, the CLI's `--json`
 * shape), which holds the rest.
 */
const failure = (error: unknown, errorText: McpHost['errorText']): CallToolResult => {
  const json = errorJson(error);
  return { content: [{ type: 'text', text: `${String(json.error.code)}: ${errorText(error).split('\n', 1)[0]!}\n${JSON.stringify(json)}` }], isError: true };
};

/**
 * `tools/call` as this server reads it: `arguments` may be any JSON, so that
 * arguments that are not an object (`null`, a list) are the tool's `bad_input`
 * like any other bad argument, not the SDK's -32603 with a raw schema dump.
 */
const CallSchema = z.object({
  method: z.literal('tools/call'),
  params: z.looseObject({ name: z.string(), arguments: z.unknown().optional(), _meta: z.record(z.string(), z.unknown()).optional() }),
});

/**
 * The SDK's `Server` checks a `tools/call` against its own schema before any
 * handler runs (an `arguments: null` never reaches one); its base class
 * registers a handler with the schema it is given, and no more.
 */
type Register = (this: Server, schema: typeof CallSchema, handler: (request: z.infer<typeof CallSchema>) => Promise<CallToolResult>) => void;
const registerBare = (Object.getPrototypeOf(Server.prototype) as { setRequestHandler: Register }).setRequestHandler;

/**
 * `ctx` names the repository; the session is each call's own (docs/sessions.md):
 * the tool's `session` argument, else the server's `--session`, else
 * `$AUTOPILOT_SESSION`, else the id the client sent with the call, else the
 * client's id in the environment, else `local`.
 */
export function createServer(ctx: Context, given: string | undefined, host: McpHost): Server {
  const { runStatus, sessionOf, mcpSessionOf, statusText, errorText } = host;
  const server = new Server({ name: 'autopilot', version: VERSION }, { capabilities: { tools: {}, resources: {} } });
  const tools = toolsOf(host);
  const list = tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema,
    outputSchema: t.outputSchema,
    ...(t.readOnly ? { annotations: { readOnlyHint: true } } : {}),
  }));

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: list }));
  registerBare.call(server, CallSchema, async (request): Promise<CallToolResult> => {
    const tool = tools.find((t) => t.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `no tool ${request.params.name}`);
    const raw = request.params.arguments;
    const expected = JSON.stringify(list.find((t) => t.name === tool.name)?.inputSchema);
    // No `arguments` is no arguments; anything but an object where the arguments go (`null` too) is bad input, even for a tool that takes none.
    if (raw !== undefined && (raw === null || typeof raw !== 'object' || Array.isArray(raw))) {
      return failure(
        new InputError({
          message: `${tool.name}: arguments: expected an object of the tool's arguments (\`{}\`, or no \`arguments\`, for none), received ${raw === null ? 'null' : Array.isArray(raw) ? 'a list' : typeof raw}`,
          expected,
          received: JSON.stringify(raw),
        }),
        errorText,
      );
    }
    const args = tool.input.safeParse(raw ?? {});
    if (!args.success) {
      const issue = args.error.issues[0];
      return failure(
        new InputError({
          message: `${tool.name}: ${issue?.path.join('.') || 'arguments'}: ${issue?.message ?? 'invalid'}`,
          expected,
          received: JSON.stringify(raw ?? {}),
        }),
        errorText,
      );
    }
    try {
      const { session, from } = sessionOf(typeof args.data.session === 'string' ? args.data.session : given, process.env, mcpSessionOf(request.params._meta));
      // A tool's `run` names the run of this call; else the run the server was started for (`--run`, `$AUTOPILOT_RUN`).
      const run = typeof args.data.run === 'string' && args.data.run.trim() ? runOf(args.data.run, {}) : ctx.repo.run;
      const r = await tool.call({ ...ctx, repo: { ...ctx.repo, run }, session, sessionFrom: from, role: 'server' }, args.data);
      if (isMcpResult(r.exit)) return { content: [{ type: 'text', text: answerText(r.json, r.text) }], structuredContent: r.json as Record<string, unknown> };
      const line = r.text.split('\n', 1)[0]!;
      const code = (r.json as { error?: { code?: string } }).error?.code ?? (r.json as { outcome?: string }).outcome ?? `exit ${r.exit}`;
      return { content: [{ type: 'text', text: `${code}: ${line}\n${JSON.stringify(r.json)}` }], isError: true };
    } catch (error) {
      return failure(error, errorText);
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [{ uri: STATUS_URI, name: 'status', description: 'Where the work stands', mimeType: 'text/plain' }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    if (request.params.uri !== STATUS_URI) throw new McpError(ErrorCode.InvalidParams, `no resource ${request.params.uri}`);
    let text: string;
    try {
      text = statusText((await runStatus(ctx)).view);
    } catch (error) {
      text = errorText(error);
    }
    return { contents: [{ uri: STATUS_URI, mimeType: 'text/plain', text }] };
  });
  return server;
}

/** Serves on stdin/stdout until the client closes the stream. */
export async function serveMcp(ctx: Context, given: string | undefined, host: McpHost): Promise<void> {
  const server = createServer(ctx, given, host);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  await server.connect(new LineTransport(MCP_LINE_MAX_BYTES));
  await closed;
  await server.close();
}
