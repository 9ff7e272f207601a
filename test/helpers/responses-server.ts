/**
 * A scripted stand-in for the OpenAI Responses API, for driving the real
 * Codex CLI in tests: `POST /v1/responses` is answered with server-sent events
 * carrying the next assistant turn the test's script returns. Every request
 * is recorded, with its whole body. Nothing here is a model: the test decides
 * each turn, usually by looking at what Codex sent (tool outputs, tools).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One input item of a Responses request, as Codex sends it. */
export interface InputItem {
  type: string;
  role?: string;
  content?: { type: string; text?: string }[] | string;
  name?: string;
  namespace?: string;
  arguments?: string;
  call_id?: string;
  output?: unknown;
  [key: string]: unknown;
}

/** One tool Codex offers the model; MCP servers come as `namespace` tools holding functions. */
export interface ToolSpec {
  type: string;
  name?: string;
  description?: string;
  parameters?: unknown;
  tools?: ToolSpec[];
  [key: string]: unknown;
}

export interface ResponsesBody {
  model: string;
  instructions?: string;
  input: InputItem[];
  tools?: ToolSpec[];
  [key: string]: unknown;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when there was none or it did not parse). */
  body: ResponsesBody | undefined;
}

/** A function call the scripted model makes. `arguments` is JSON-encoded when not a string. */
export interface Call {
  name: string;
  arguments: unknown;
  /** For a tool inside a `namespace` tool (MCP servers): the namespace's name. */
  namespace?: string;
  /** Defaults to a fresh `call_<n>`. */
  callId?: string;
}

/** The next assistant turn: a message and/or function calls. A turn with calls makes Codex run them and ask again. */
export interface Turn {
  text?: string;
  /** A `tool_search` call (Codex's client-side search over deferred tools, MCP tools among them): the query. */
  toolSearch?: string;
  calls?: Call[];
}

export type Script = (request: ResponsesBody, index: number) => Turn | Promise<Turn>;

export interface ResponsesServer {
  /** `http://127.0.0.1:<port>/v1`, the provider's base_url. */
  baseUrl: string;
  /** Every request received, in order (including ones to other endpoints). */
  requests: RecordedRequest[];
  /** The bodies of the `POST /v1/responses` requests, in order. */
  turns: () => ResponsesBody[];
  close: () => Promise<void>;
}

export interface ServerOptions {
  /**
   * Only `response.output_item.done` items and `response.completed` (what
   * Codex needs), instead of the fuller stream a real server sends
   * (`response.created`, `output_item.added`, text deltas, usage).
   */
  minimal?: boolean;
}

let counter = 0;

/** The SSE text for one turn. */
export function sseFor(turn: Turn, options: ServerOptions = {}): string {
  const id = `resp_${++counter}`;
  const events: Record<string, unknown>[] = [];
  const full = !options.minimal;
  if (full) events.push({ type: 'response.created', response: { id, object: 'response', status: 'in_progress', output: [] } });
  const items: Record<string, unknown>[] = [];
  if (turn.text !== undefined) {
    const itemId = `msg_${counter}`;
    const done = { type: 'message', id: itemId, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.text, annotations: [] }] };
    if (full) {
      events.push({ type: 'response.output_item.added', output_index: items.length, item: { ...done, status: 'in_progress', content: [] } });
      events.push({ type: 'response.output_text.delta', item_id: itemId, output_index: items.length, content_index: 0, delta: turn.text });
    }
    events.push({ type: 'response.output_item.done', output_index: items.length, item: done });
    items.push(done);
  }
  if (turn.toolSearch !== undefined) {
    const done = {
      type: 'tool_search_call',
      id: `ts_${++counter}`,
      call_id: `search_${counter}`,
      status: 'completed',
      execution: 'client',
      arguments: { query: turn.toolSearch, limit: 8 },
    };
    if (full) events.push({ type: 'response.output_item.added', output_index: items.length, item: done });
    events.push({ type: 'response.output_item.done', output_index: items.length, item: done });
    items.push(done);
  }
  for (const call of turn.calls ?? []) {
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    const done: Record<string, unknown> = {
      type: 'function_call',
      id: `fc_${++counter}`,
      status: 'completed',
      name: call.name,
      arguments: args,
      call_id: call.callId ?? `call_${counter}`,
    };
    if (call.namespace !== undefined) done.namespace = call.namespace;
    if (full) events.push({ type: 'response.output_item.added', output_index: items.length, item: { ...done, status: 'in_progress', arguments: '' } });
    events.push({ type: 'response.output_item.done', output_index: items.length, item: done });
    items.push(done);
  }
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  };
  events.push({ type: 'response.completed', response: full ? { id, object: 'response', status: 'completed', output: items, usage } : { id } });
  return events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join('');
}

/** Starts the server on 127.0.0.1, a free port. */
export async function startResponsesServer(script: Script, options: ServerOptions = {}): Promise<ResponsesServer> {
  const requests: RecordedRequest[] = [];
  let index = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: ResponsesBody | undefined;
      try {
        body = text ? (JSON.parse(text) as ResponsesBody) : undefined;
      } catch {
        body = undefined;
      }
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const path = (req.url ?? '').split('?')[0];
      if (req.method === 'POST' && path === '/v1/responses' && body) {
        const turnIndex = index++;
        Promise.resolve()
          .then(() => script(body, turnIndex))
          .then(
            (turn) => {
              res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
              res.end(sseFor(turn, options));
            },
            (error: unknown) => {
              // A script that throws is a test bug: a non-retryable status, so Codex stops at once.
              res.writeHead(400, { 'content-type': 'application/json' });
              res.end(JSON.stringify({ error: { message: `script failed: ${String(error)}`, type: 'invalid_request_error' } }));
            },
          );
        return;
      }
      if (req.method === 'GET' && path === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [], models: [] }));
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `not scripted: ${req.method} ${req.url}` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    turns: () => requests.filter((r) => r.method === 'POST' && r.url.startsWith('/v1/responses') && r.body).map((r) => r.body as ResponsesBody),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The text of a message item's content parts, joined. */
export function itemText(item: InputItem): string {
  if (typeof item.content === 'string') return item.content;
  return (item.content ?? []).map((part) => part.text ?? '').join('');
}

/** Every message text of a request (developer, user, assistant) plus its `instructions`, joined: what the model was shown. */
export function promptText(body: ResponsesBody): string {
  return [body.instructions ?? '', ...body.input.filter((item) => item.type === 'message').map(itemText)].join('\n');
}

/** The output Codex returned for a call: the `function_call_output` item with that call id. */
export function callOutput(body: ResponsesBody, callId: string): InputItem | undefined {
  return body.input.find((item) => item.type === 'function_call_output' && item.call_id === callId);
}

/** The output of the most recent call in a request: what the scripted model reacts to. */
export function lastOutput(body: ResponsesBody): InputItem | undefined {
  return [...body.input].reverse().find((item) => item.type.endsWith('_output'));
}

/** Every function name offered, MCP tools as `namespace` + name pairs. */
export function toolNames(body: ResponsesBody): { namespace?: string; name: string }[] {
  const out: { namespace?: string; name: string }[] = [];
  for (const tool of body.tools ?? []) {
    if (tool.type === 'namespace') for (const inner of tool.tools ?? []) out.push({ namespace: tool.name, name: inner.name ?? '' });
    else if (tool.name) out.push({ name: tool.name });
  }
  return out;
}
