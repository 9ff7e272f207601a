/**
 * The `id` of a JSON-RPC request too long to parse, wherever it stands in
 * the line: the SDK's clients write it last (`{"method":…,"params":…,
 * "jsonrpc":"2.0","id":7}`), behind megabytes of arguments. The bytes are fed
 * as they come, once each, and only a few are ever kept (the key being read,
 * an id of at most `ID_MAX_CHARS`): linear in the line, constant in memory.
 *
 * Only a key of the top-level object counts, so an `"id"` inside `params`
 * (a tool's argument, a string that spells one) is never taken for it. As
 * `JSON.parse` does, a key given twice keeps its last value. Bytes are read
 * as bytes: JSON's structure is ASCII, and no byte of a multi-byte UTF-8
 * character is one of its marks.
 */

/** The longest id kept, in bytes as written (a string's quotes and escapes included); a longer one is not an id to answer with. */
const ID_MAX_CHARS = 256;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN = new Set([0x7b, 0x5b]);
const CLOSE = new Set([0x7d, 0x5d]);
const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

type Expect = 'key' | 'colon' | 'value' | 'other';

export class TopLevelIdScanner {
  private depth = 0;
  /** The line is an object (a request), not an array (a batch) or a scalar. */
  private object = false;
  private inString = false;
  private escaped = false;
  /** What comes next in the top-level object. */
  private expect: Expect = 'other';
  /** The key being read (only whether it is `id` matters), or the key just read. */
  private key: number[] | undefined;
  /** The id's text being read (a string with its quotes, or a number), while the value of `"id"` is read. */
  private value: number[] | undefined;
  private valueIsString = false;
  private found: string | number | null = null;

  /** The id so far: the last top-level `"id"` read whole, if it was a string or a number; null otherwise. */
  get id(): string | number | null {
    return this.found;
  }

  feed(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i++) this.byte(bytes[i]!);
  }

  private byte(b: number): void {
    if (this.value && !this.valueIsString) {
      // A number ends at the first byte that is not part of it.
      if ((b >= 0x30 && b <= 0x39) || b === 0x2d || b === 0x2b || b === 0x2e || b === 0x65 || b === 0x45) {
        this.keep(b);
        return;
      }
      this.settle();
    }
    if (this.inString) {
      if (this.value) this.keep(b);
      else if (this.key && this.key.length <= 2) this.key.push(b);
      else if (this.key) this.key.length = 3;
      if (this.escaped) this.escaped = false;
      else if (b === BACKSLASH) this.escaped = true;
      else if (b === QUOTE) {
        this.inString = false;
        if (this.value) this.settle();
        else if (this.key) this.expect = 'colon';
      }
      return;
    }
    if (SPACE.has(b)) return;
    if (this.depth === 1 && this.expect === 'value') {
      this.expect = 'other';
      if (this.isIdKey()) {
        if (b === QUOTE) {
          this.value = [];
          this.valueIsString = true;
          this.keep(b);
          this.inString = true;
          return;
        }
        if (b === 0x2d || (b >= 0x30 && b <= 0x39)) {
          this.value = [b];
          this.valueIsString = false;
          return;
        }
        // null, true, an object: not an id to answer with.
        this.found = null;
      }
      this.key = undefined;
    }
    if (b === QUOTE) {
      this.inString = true;
      this.key = this.depth === 1 && this.expect === 'key' ? [] : undefined;
      return;
    }
    if (OPEN.has(b)) {
      this.depth++;
      if (this.depth === 1) {
        this.object = b === 0x7b;
        this.expect = this.object ? 'key' : 'other';
      }
      return;
    }
    if (CLOSE.has(b)) {
      this.depth = Math.max(0, this.depth - 1);
      return;
    }
    if (this.depth !== 1 || !this.object) return;
    if (b === COMMA) this.expect = 'key';
    else if (b === COLON && this.expect === 'colon') this.expect = 'value';
  }

  private isIdKey(): boolean {
    // `"id"` read as its bytes: `i`, `d`, then the closing quote.
    const k = this.key;
    return k !== undefined && k.length === 3 && k[0] === 0x69 && k[1] === 0x64 && k[2] === QUOTE;
  }

  private keep(b: number): void {
    if (!this.value) return;
    if (this.value.length <= ID_MAX_CHARS) this.value.push(b);
  }

  /** The id's text is read whole: kept when it is a string or a number JSON reads, and short enough. */
  private settle(): void {
    const text = Buffer.from(this.value!).toString('utf8');
    this.value = undefined;
    this.key = undefined;
    this.found = null;
    if (text.length > ID_MAX_CHARS) return;
    if (!this.valueIsString && !NUMBER.test(text)) return;
    try {
      const id = JSON.parse(text) as unknown;
      if (typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))) this.found = id;
    } catch {
      // Not JSON: no id.
    }
  }
}
