/**
 * A scripted stand-in for the Anthropic Messages API, for driving the real Claude Code CLI.
 *
 * Claude Code runs for real; only the model is scripted. Each request of the main conversation takes
 * the next turn of the script; side requests (a small-model call, a title, a quota probe) never do.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TextBlock {
  type: 'text';
  text: string;
}
export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}
export type Block = TextBlock | ToolUseBlock;

/** One assistant turn: a string is one text block; blocks are sent in order. */
export type Turn = string | Block | Block[];

/** What the model server saw of one Messages request (the body as Claude Code sent it). */
export interface MessagesBody {
  model: string;
  system?: string | { type: 'text'; text: string }[];
  messages: { role: 'user' | 'assistant'; content: string | ContentBlock[] }[];
  tools?: { name: string; description?: string; input_schema?: unknown }[];
  max_tokens?: number;
  stream?: boolean;
  metadata?: { user_id?: string };
  [key: string]: unknown;
}

export interface ContentBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: string | { type: string; text?: string }[];
  is_error?: boolean;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body, or undefined when there was none or it was not JSON. */
  body: MessagesBody | undefined;
  /** main: a turn of the conversation (took a script step); side: another Messages call; other: anything else. */
  kind: 'main' | 'side' | 'other';
}

/**
 * The script: a list of turns taken in order, or a function of the request (0-based index of main requests).
 * A function may answer with a promise: the response waits for it (a model that stalls).
 */
export type Script = Turn[] | ((request: MessagesBody, index: number) => Turn | undefined | Promise<Turn | undefined>);

export interface ModelServerOptions {
  /** Which Messages requests are the conversation; the default: the request offers tools and is not a small-model call. */
  isMain?: (body: MessagesBody) => boolean;
}

export interface ToolResult {
  tool_use_id: string;
  /** The tool_result content flattened to text (text blocks joined with a newline), Claude Code's `<system-reminder>` notes cut off. */
  text: string;
  is_error: boolean;
  raw: ContentBlock;
}

export interface ModelServer {
  /** The base URL for ANTHROPIC_BASE_URL. */
  url: string;
  /** Every request, in arrival order. */
  requests: RecordedRequest[];
  /** The bodies of the main conversation's requests, in order. */
  main(): MessagesBody[];
  /** Every tool_result Claude Code sent back in the conversation, the latest copy of each, in order. */
  toolResults(): ToolResult[];
  /** The tool_result for a tool_use the script sent (by the block's id). */
  toolResult(id: string): ToolResult | undefined;
  /** Problems on the server side (script exhausted or threw, unparsable body): a test asserts this is empty. */
  errors: string[];
  close(): Promise<void>;
}

let ids = 0;

/** A text block. */
export const text = (value: string): TextBlock => ({ type: 'text', text: value });

/** A tool_use block with a fresh id (or the one given, to find its result). */
export const toolUse = (name: string, input: unknown, id = `toolu_${String(++ids).padStart(6, '0')}`): ToolUseBlock => ({
  type: 'tool_use',
  id,
  name,
  input,
});

/** The Bash tool running one command. */
export const bash = (command: string, id?: string): ToolUseBlock => toolUse('Bash', { command, description: 'scripted command' }, id);

function blocksOf(turn: Turn): Block[] {
  if (typeof turn === 'string') return [text(turn)];
  return Array.isArray(turn) ? turn : [turn];
}

/** The default test for the conversation: it offers tools, and it is not a small-model (haiku) call. */
export function defaultIsMain(body: MessagesBody): boolean {
  return Array.isArray(body.tools) && body.tools.length > 0 && !/haiku/i.test(body.model);
}

/** Claude Code appends notes such as `<system-reminder>…</system-reminder>` to some tool results; this removes them. */
export function withoutReminders(value: string): string {
  return value.replace(/\s*<system-reminder>[\s\S]*?<\/system-reminder>\s*/g, '').trimEnd();
}

function flatten(content: ContentBlock['content']): string {
  if (typeof content === 'string') return withoutReminders(content);
  if (!Array.isArray(content)) return '';
  return withoutReminders(content.map((block) => (block.type === 'text' ? (block.text ?? '') : JSON.stringify(block))).join('\n'));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

let messages = 0;

function sendMessage(res: ServerResponse, body: MessagesBody, blocks: Block[]): void {
  const stopReason = blocks.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: 10, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = {
    id: `msg_${String(++messages).padStart(6, '0')}`,
    type: 'message',
    role: 'assistant',
    model: body.model,
    content: blocks,
    stop_reason: stopReason,
    stop_sequence: null,
    usage,
  };
  if (!body.stream) {
    sendJson(res, 200, message);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const event = (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  event('message_start', { message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } });
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      event('content_block_start', { index, content_block: { type: 'text', text: '' } });
      event('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    } else {
      event('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      // The input arrives in two pieces, as a real stream would split it.
      const json = JSON.stringify(block.input ?? {});
      const half = Math.floor(json.length / 2);
      event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(0, half) } });
      event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(half) } });
    }
    event('content_block_stop', { index });
  });
  event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 10 } });
  event('message_stop', {});
  res.end();
}

/** Starts the server on 127.0.0.1, on a free port. */
export async function startModelServer(script: Script, options: ModelServerOptions = {}): Promise<ModelServer> {
  const isMain = options.isMain ?? defaultIsMain;
  const requests: RecordedRequest[] = [];
  const errors: string[] = [];
  let taken = 0;

  const nextTurn = async (body: MessagesBody): Promise<Block[]> => {
    const index = taken++;
    try {
      const turn = typeof script === 'function' ? await script(body, index) : script[index];
      if (turn !== undefined) return blocksOf(turn);
    } catch (error) {
      errors.push(`script threw at turn ${index}: ${String(error)}`);
      return [text(`(the script threw at turn ${index})`)];
    }
    errors.push(`script exhausted at turn ${index}`);
    return [text('(the script has no more turns)')];
  };

  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      let body: MessagesBody | undefined;
      if (raw) {
        try {
          body = JSON.parse(raw) as MessagesBody;
        } catch {
          errors.push(`unparsable body for ${req.method} ${req.url}`);
        }
      }
      const path = (req.url ?? '/').split('?')[0];
      const record: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, kind: 'other' };
      requests.push(record);
      if (req.method === 'POST' && path === '/v1/messages' && body) {
        if (isMain(body)) {
          record.kind = 'main';
          sendMessage(res, body, await nextTurn(body));
        } else {
          record.kind = 'side';
          sendMessage(res, body, [text('ok')]);
        }
      } else if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
        sendJson(res, 200, { input_tokens: Math.ceil(raw.length / 4) });
      } else if (req.method === 'HEAD' || (req.method === 'GET' && path === '/')) {
        // Claude Code probes the base URL with HEAD / before the first call.
        res.writeHead(200);
        res.end();
      } else {
        sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: `no ${req.method} ${path} here` } });
      }
    })().catch((error: unknown) => {
      errors.push(`handler failed: ${String(error)}`);
      if (!res.headersSent) sendJson(res, 500, { type: 'error', error: { type: 'api_error', message: String(error) } });
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const main = () => requests.filter((r) => r.kind === 'main').map((r) => r.body as MessagesBody);
  const toolResults = (): ToolResult[] => {
    const byId = new Map<string, ToolResult>();
    for (const body of main()) {
      for (const message of body.messages) {
        if (message.role !== 'user' || typeof message.content === 'string') continue;
        for (const block of message.content) {
          if (block.type !== 'tool_result' || !block.tool_use_id) continue;
          byId.set(block.tool_use_id, { tool_use_id: block.tool_use_id, text: flatten(block.content), is_error: block.is_error === true, raw: block });
        }
      }
    }
    return [...byId.values()];
  };

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    main,
    toolResults,
    toolResult: (id) => toolResults().find((result) => result.tool_use_id === id),
    errors,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The text of a request's system prompt, joined. */
export function systemText(body: MessagesBody): string {
  if (typeof body.system === 'string') return body.system;
  return (body.system ?? []).map((block) => block.text).join('\n');
}

/** The text of every user message of a request (text blocks only, tool results aside), joined. */
export function userText(body: MessagesBody): string {
  return body.messages
    .filter((message) => message.role === 'user')
    .flatMap((message) => (typeof message.content === 'string' ? [message.content] : message.content.filter((b) => b.type === 'text').map((b) => b.text ?? '')))
    .join('\n');
}
