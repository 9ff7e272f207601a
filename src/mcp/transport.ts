/**
 * The MCP server's stdio transport: one JSON-RPC message a line, as the SDK's
 * own, but it never stops serving over one bad line.
 *
 * - A line longer than `maxLineBytes` is not buffered: its bytes are dropped
 *   as they come, up to its end, and answered with an Invalid Request error
 *   with the request's id wherever the line names it (the SDK's clients put
 *   it last; `top-level-id.ts` reads it as the bytes pass), so the client's
 *   call returns. The SDK's transport closes the server on a 10 MB message.
 * - A line that is not JSON is answered with a JSON-RPC Parse error (-32700,
 *   id null); JSON that is not a JSON-RPC message, with Invalid Request.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { TopLevelIdScanner } from './top-level-id.js';

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private chunks: Buffer[] = [];
  private size = 0;
  /** Skipping the rest of an oversized line: its id as read so far, and how long it has run. */
  private skipping: { id: TopLevelIdScanner; bytes: number } | undefined;
  private readonly onData = (chunk: Buffer) => this.take(chunk);
  private readonly onError = (error: Error) => this.onerror?.(error);
  /** A client that went away (EPIPE) has no one to tell; anything else is the SDK's to hear. */
  private readonly onOutError = (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') this.onerror?.(error);
  };

  constructor(
    private readonly maxLineBytes: number,
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
  ) {}

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onError);
    this.stdout.on('error', this.onOutError);
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onError);
    this.chunks = [];
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(JSON.stringify(message) + '\n')) resolve();
      else this.stdout.once('drain', () => resolve());
    });
  }

  private take(chunk: Buffer): void {
    let rest = chunk;
    while (rest.length > 0) {
      const end = rest.indexOf(0x0a);
      const part = end === -1 ? rest : rest.subarray(0, end);
      rest = end === -1 ? Buffer.alloc(0) : rest.subarray(end + 1);
      if (this.skipping) {
        this.skipping.bytes += part.length;
        this.skipping.id.feed(part);
      } else if (this.size + part.length > this.maxLineBytes) {
        const id = new TopLevelIdScanner();
        for (const held of this.chunks) id.feed(held);
        id.feed(part);
        this.skipping = { id, bytes: this.size + part.length };
        this.chunks = [];
        this.size = 0;
      } else {
        this.chunks.push(part);
        this.size += part.length;
      }
      if (end === -1) break;
      if (this.skipping) {
        const { id, bytes } = this.skipping;
        this.skipping = undefined;
        this.refuse(id.id, INVALID_REQUEST, `the message is too large: ${bytes} bytes, at most ${this.maxLineBytes} a line; it was not read`);
        continue;
      }
      const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
      this.chunks = [];
      this.size = 0;
      if (line.trim() !== '') this.handle(line);
    }
  }

  private handle(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      this.refuse(null, PARSE_ERROR, `Parse error: ${(error as Error).message}`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const id = (value as { id?: unknown } | null)?.id;
      this.refuse(typeof id === 'string' || typeof id === 'number' ? id : null, INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 message');
      return;
    }
    this.onmessage?.(parsed.data);
  }

  private refuse(id: string | number | null, code: number, message: string): void {
    void this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage);
  }
}
