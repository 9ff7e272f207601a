/**
 * A reader for the plain subset of YAML the settings file is usually written
 * in, so that reading `.autopilot/config.yml` after `init` does not load the
 * YAML parser (a bundle of its own, docs/architecture.md "Start-up"): comment
 * and blank lines, top-level `key: value` lines, and `key:` followed by
 * indented `key: value` lines (one level). A value is a number, `true`,
 * `false`, `null`, a quoted string or a plain string that cannot mean
 * anything else; a comment may close a line. Anything outside this subset
 * (tabs, lists, flow collections, anchors, a key twice, a value YAML would
 * read differently) returns undefined, and the caller hands the text to the
 * YAML parser: on the texts it accepts, the result is the one `yaml` gives
 * (a property test holds it). Pure.
 */

const KEY = /^([A-Za-z_][\w-]*):(?:\s+(.*?))?\s*$/;
const NESTED = /^( +)([A-Za-z_][\w-]*):(?:\s+(.*?))?\s*$/;
/** What a plain string may not start with: YAML's indicators. */
const INDICATOR = /^[-?:,[\]{}#&*!|>'"%@`]/;

/** One scalar as YAML's core schema reads it; undefined when this reader cannot be sure. */
function scalar(raw: string | undefined): { value: unknown } | undefined {
  if (raw === undefined || raw === '') return { value: null };
  let text = raw;
  if (text.startsWith('"')) {
    const end = closingQuote(text);
    if (end < 0 || !/^(\s+#.*)?\s*$/.test(text.slice(end + 1))) return undefined;
    try {
      return { value: JSON.parse(text.slice(0, end + 1)) as unknown };
    } catch {
      return undefined;
    }
  }
  if (text.startsWith("'")) {
    const m = /^'((?:[^']|'')*)'(\s+#.*)?\s*$/.exec(text);
    return m ? { value: m[1]!.replaceAll("''", "'") } : undefined;
  }
  const comment = text.search(/\s#/);
  if (comment >= 0) text = text.slice(0, comment).trimEnd();
  if (/^(true|false)$/.test(text)) return { value: text === 'true' };
  if (/^(null|~)$/.test(text)) return { value: null };
  if (/^-?(0|[1-9]\d{0,14})(\.\d{1,6})?$/.test(text)) return { value: Number(text) };
  if (INDICATOR.test(text) || /: |:$|\t/.test(text)) return undefined;
  // What the core schema reads as something else, or could: other spellings of numbers, booleans, nulls, infinities.
  if (/^[-+.]?\d|^[-+]?\.(inf|nan)$|^(True|TRUE|False|FALSE|Null|NULL)$/i.test(text)) return undefined;
  return { value: text };
}

/** The index of the `"` that closes a double-quoted scalar starting at 0, or -1. */
function closingQuote(text: string): number {
  for (let i = 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

/** The settings text as a plain object, or undefined when it is not in the plain subset (the YAML parser decides then). */
export function readPlainYaml(text: string): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  let block: Record<string, unknown> | undefined;
  let indent: number | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (/^\s*(#.*)?$/.test(line) && !line.includes('\t')) continue;
    if (line.includes('\t') || line.startsWith('---') || line.startsWith('...')) return undefined;
    const nested = NESTED.exec(line);
    if (nested) {
      if (!block || (indent !== undefined && nested[1]!.length !== indent) || Object.hasOwn(block, nested[2]!)) return undefined;
      indent = nested[1]!.length;
      const value = scalar(nested[3]);
      if (!value) return undefined;
      block[nested[2]!] = value.value;
      continue;
    }
    const top = KEY.exec(line);
    if (!top || Object.hasOwn(out, top[1]!)) return undefined;
    block = undefined;
    indent = undefined;
    if (top[2] === undefined || top[2] === '' || top[2].startsWith('#')) {
      // `key:` alone opens a block; left empty, YAML reads it as null.
      block = {};
      out[top[1]!] = block;
      continue;
    }
    const value = scalar(top[2]);
    if (!value) return undefined;
    out[top[1]!] = value.value;
  }
  for (const [key, value] of Object.entries(out)) if (value !== null && typeof value === 'object' && Object.keys(value).length === 0) out[key] = null;
  return out;
}
