/**
 * Reads the state pointer leniently (docs/state-and-journal.md, "Reading"):
 * the contract's exact template, its six lines bare, hand edits (bullets, bold keys, `Sub-step` for `sub_step`,
 * odd spacing or casing) and extra sections. It never guesses: a value it
 * cannot read is an error naming the line, so the file is never overwritten
 * on a misreading.
 *
 * The format is line-oriented by contract (`key: value` under a heading), so a
 * small line reader does the job in time linear in the file's size: no
 * regular expression here can backtrack over a long run of one character.
 */
import { InputError, type Problem } from '../../errors.js';
import { FLOW_ID_MAX_LENGTH, POINTER_KEY_MAX_LENGTH, POINTER_MAX_PROBLEMS } from '../../limits.js';
import { STATUSES, MAX_RETRIES, type Position, type Status } from './position.js';

export const POINTER_SCHEMA = 1;

/** The title of the engine's section that shows a hand edit held for a person (`serialize-pointer.ts` writes it). */
export const HELD_EDIT_TITLE = 'Held Edit';

export interface ParsedPointer {
  position: Position;
  /** Text a person put under the title, kept verbatim. */
  preamble: string;
  /** Sections the engine does not own, kept verbatim so a rewrite loses nothing. */
  extraSections: string;
  /** Line of each key, for later messages about a value (an unknown flow, a step out of range). */
  lines: Record<'flow' | 'step' | 'name' | 'status' | 'sub_step' | 'retry_count' | 'cycle', number>;
  /** What the schema marker says the engine last wrote: the journal event it reflects and a hash of its position. */
  record?: { seq: number; hash: string };
  /** The `## Last Action` section, as the engine wrote it (a person's edits to it are only text). */
  lastAction?: LastAction;
  /** A value the seed allows or implies, read as the engine's equivalent (a retry count above 3 is a failed step): said, and repaired by the next write. */
  readAs?: string[];
  /**
   * The engine's `## Held Edit` section is there: a hand edit held for a
   * person is still shown (what it says comes from the journal; a person who
   * deletes the section drops the edit).
   */
  heldSection?: true;
}

/** `## Last Action` (docs/state-and-journal.md): what was done, its result, when, and the step (and sub-step) the engine expects next. */
export interface LastAction {
  action: string;
  result: 'success' | 'failure' | 'partial';
  at: string;
  /** `step 6 (Implement)`, `step 6 (Implement), sub-step 2 — Code`, or `done`. */
  next: string;
  /** The step number in `next`, when there is one. */
  nextStep?: number;
}

const TEMPLATE_EXAMPLE = '`## Current Step` followed by `flow: greenfield`, `step: 3`, `name: Plan`, `status: in_progress`, `sub_step: 0`, `retry_count: 0`';
const KEYS = ['flow', 'step', 'name', 'status', 'sub_step', 'retry_count'] as const;
type Key = (typeof KEYS)[number];
/** Keys whose value has a fixed form: for them, `[…]` is the template's placeholder. `name` and `sub_step` are free text. */
const STRUCTURED = new Set<Key>(['flow', 'step', 'status', 'retry_count']);
/** A key is short; anything longer before the colon is not a key. */
const KEY = new RegExp(`^[A-Za-z][A-Za-z _-]{0,${POINTER_KEY_MAX_LENGTH}}$`);
const FLOW_ID = new RegExp(`^[a-z0-9][a-z0-9-]{0,${FLOW_ID_MAX_LENGTH - 1}}$`);

interface Line {
  text: string;
  line: number;
}

interface Section {
  title: string;
  /** The heading line as written. */
  raw: string;
  line: number;
  body: Line[];
}

/** `## Title ##` → `Title`; undefined when the line is not an ATX heading. Linear, no regular expression. */
export function headingTitle(raw: string): string | undefined {
  let i = 0;
  while (i < 3 && raw[i] === ' ') i++;
  let hashes = 0;
  while (raw[i + hashes] === '#') hashes++;
  if (hashes < 1 || hashes > 6) return undefined;
  const rest = raw.slice(i + hashes);
  if (rest !== '' && rest[0] !== ' ' && rest[0] !== '\t') return undefined;
  let title = rest.trim();
  // A closing run of `#` is decoration when a space precedes it (or it is all there is).
  let end = title.length;
  while (end > 0 && title[end - 1] === '#') end--;
  if (end === 0) title = '';
  else if (end < title.length && (title[end - 1] === ' ' || title[end - 1] === '\t')) title = title.slice(0, end).trimEnd();
  return title;
}

/** The schema marker, on a line of its own: `<!-- autopilot-state v1 · event 12 · 1a2b3c4d: … -->`. */
export function readMarker(raw: string): { version: number; seq?: number; hash?: string } | undefined {
  const text = raw.trim();
  if (!text.startsWith('<!--') || !text.endsWith('-->')) return undefined;
  const inner = text.slice(4, -3).trim();
  const prefix = 'autopilot-state v';
  if (!inner.toLowerCase().startsWith(prefix)) return undefined;
  let i = prefix.length;
  while (i < inner.length && i < prefix.length + 6 && inner[i]! >= '0' && inner[i]! <= '9') i++;
  if (i === prefix.length) return undefined;
  const marker: { version: number; seq?: number; hash?: string } = { version: Number(inner.slice(prefix.length, i)) };
  const head = inner.slice(i, i + 80);
  const seq = / event (\d{1,15}) /.exec(head);
  // `\u00b7` (·) written escaped: the bundle stays ASCII (scripts/build.mjs).
  const hash = /\u00b7 ([0-9a-f]{8})\b/.exec(head);
  if (seq) marker.seq = Number(seq[1]);
  if (hash) marker.hash = hash[1]!;
  return marker;
}

function splitLines(text: string): Line[] {
  return text.split('\n').map((raw, index) => ({ text: raw.endsWith('\r') ? raw.slice(0, -1) : raw, line: index + 1 }));
}

function splitSections(lines: Line[]): { sections: Section[]; before: Line[] } {
  const sections: Section[] = [];
  const before: Line[] = [];
  let current: Section | undefined;
  for (const l of lines) {
    const title = headingTitle(l.text);
    if (title !== undefined) {
      current = { title, raw: l.text, line: l.line, body: [] };
      sections.push(current);
    } else if (current) current.body.push(l);
    else before.push(l);
  }
  return { sections, before };
}

const strip = (s: string, mark: string) => (s.startsWith(mark) && s.endsWith(mark) && s.length >= mark.length * 2 ? s.slice(mark.length, -mark.length) : s);

/**
 * `- **Sub-step**: x` or `**sub_step:** x` → key `sub_step`, value `x`. Only
 * emphasis around the key is taken off; the value is kept exactly as written.
 */
function readKeyValue(text: string): { key: string; value: string } | undefined {
  let s = text.trimStart();
  if ((s[0] === '-' || s[0] === '*' || s[0] === '+') && (s[1] === ' ' || s[1] === '\t')) s = s.slice(2).trimStart();
  const colon = s.indexOf(':');
  if (colon < 1 || colon > POINTER_KEY_MAX_LENGTH + 6) return undefined;
  let rawKey = s.slice(0, colon).trim();
  let value = s.slice(colon + 1);
  // `**key:** value`: the closing emphasis follows the colon.
  for (const mark of ['**', '__']) {
    if (rawKey.startsWith(mark) && !rawKey.endsWith(mark) && value.startsWith(mark)) {
      rawKey = rawKey.slice(mark.length);
      value = value.slice(mark.length);
    }
  }
  rawKey = strip(strip(strip(rawKey, '**'), '__'), '`');
  if (!KEY.test(rawKey)) return undefined;
  return {
    key: rawKey
      .trim()
      .toLowerCase()
      .replace(/[\s-]+/g, '_'),
    value: value.trim(),
  };
}

function normalizeStatus(value: string): Status | undefined {
  if (value.length > 40) return undefined;
  const normalized = value.toLowerCase().replace(/[\s-]+/g, '_');
  return (STATUSES as readonly string[]).includes(normalized) ? (normalized as Status) : undefined;
}

function parseCount(value: string): number | undefined {
  return /^\d{1,9}$/.test(value) ? Number(value) : undefined;
}

const isComment = (text: string) => {
  const t = text.trim();
  return t.startsWith('<!--') && t.endsWith('-->');
};

/**
 * The pointer's text → its position and everything kept around it. Read in
 * order: the schema marker, the `Current Step` section, its six values, what
 * they mean, then the other sections. Every problem names its line; all of a
 * stage's problems are said together.
 */
export function parsePointer(text: string, file: string): ParsedPointer {
  const problems = collector(file);
  const lines = splitLines(text);
  const marker = readSchemaMarker(lines, file);
  const { sections, before } = splitSections(lines);
  const section = currentSection(sections, before, file);
  const values = readCurrentValues(section, problems);
  const read = readPositionValues(values, problems);
  const others = readOtherSections(sections, section, problems);
  if (problems.list.length > 0) throw new InputError(problems.list);

  const get = (key: Key) => values.get(key)!;
  const subStep = get('sub_step').value;
  const parsed: ParsedPointer = {
    position: {
      flow: read.flow,
      step: read.step,
      name: get('name').value,
      status: read.status!,
      subStep: subStep === '' ? '0' : subStep,
      retryCount: read.retryCount!,
      cycle: others.cycle,
    },
    preamble: others.preamble,
    extraSections: others.extra.map(renderSection).join('\n').trim(),
    lines: {
      flow: get('flow').line,
      step: get('step').line,
      name: get('name').line,
      status: get('status').line,
      sub_step: get('sub_step').line,
      retry_count: get('retry_count').line,
      cycle: others.cycleLine,
    },
  };
  if (marker?.seq !== undefined && marker.hash !== undefined) parsed.record = { seq: marker.seq, hash: marker.hash };
  if (others.lastAction) parsed.lastAction = others.lastAction;
  if (read.readAs.length > 0) parsed.readAs = read.readAs;
  if (others.heldSection) parsed.heldSection = true;
  return parsed;
}

/** The problems found so far in one file, each with its line; a received value is cut to 120 characters. */
interface Problems {
  list: Problem[];
  add(line: number, message: string, expected: string, received?: string): void;
}

function collector(file: string): Problems {
  const list: Problem[] = [];
  const add = (line: number, message: string, expected: string, received?: string) =>
    list.push({ file, line, message, expected, ...(received === undefined ? {} : { received: received.slice(0, 120) }) });
  return { list, add };
}

/** The first schema marker; any marker from a newer schema is refused, since this autopilot cannot know what it means. */
function readSchemaMarker(lines: Line[], file: string): ReturnType<typeof readMarker> {
  let marker: ReturnType<typeof readMarker>;
  for (const l of lines) {
    const m = readMarker(l.text);
    if (!m) continue;
    if (m.version > POINTER_SCHEMA) {
      throw new InputError({
        file,
        line: l.line,
        message: `the pointer was written by a newer autopilot (schema v${m.version})`,
        expected: `schema v${POINTER_SCHEMA} or older; upgrade autopilot to read this file`,
        received: l.text.trim().slice(0, 80),
      });
    }
    marker ??= m;
  }
  return marker;
}

const isCurrent = (s: Section) => s.title.toLowerCase().replace(/\s+/g, ' ') === 'current step';

/** The one `## Current Step` section, or the six bare lines before any heading; none or two is an error. */
function currentSection(sections: Section[], before: Line[], file: string): Section {
  const current = sections.filter(isCurrent);
  if (current.length === 1) return current[0]!;
  if (current.length === 0 && before.some((l) => readKeyValue(l.text)?.key === 'flow')) {
    // The six lines with no headings (or before the first one), as a hand-written pointer has them.
    return { title: 'Current Step', raw: '', line: 1, body: before };
  }
  throw new InputError({
    file,
    line: current[1]?.line ?? 1,
    message: current.length === 0 ? 'no `## Current Step` section' : 'more than one `## Current Step` section',
    expected: TEMPLATE_EXAMPLE,
    received:
      current.length === 0
        ? sections.length
          ? sections
              .slice(0, 5)
              .map((s) => `\`${s.title.slice(0, 40)}\` (line ${s.line})`)
              .join(', ')
          : 'no headings at all'
        : `sections at lines ${current.map((s) => s.line).join(', ')}`,
  });
}

type Values = Map<Key, { value: string; line: number }>;

/** Each of the six keys once, with its line; an unknown line, a key twice, a placeholder or a missing key is refused here. */
function readCurrentValues(section: Section, problems: Problems): Values {
  const values: Values = new Map();
  for (const { text: lineText, line } of section.body) {
    const trimmed = lineText.trim();
    if (trimmed === '' || isComment(lineText) || trimmed.startsWith('```')) continue;
    const kv = readKeyValue(lineText);
    if (!kv || !(KEYS as readonly string[]).includes(kv.key)) {
      problems.add(
        line,
        kv ? `unknown key \`${kv.key}\` in Current Step` : 'a line that is not `key: value`',
        `one of ${KEYS.join(', ')} (e.g. \`status: in_progress\`)`,
        trimmed,
      );
      if (problems.list.length > POINTER_MAX_PROBLEMS) break;
      continue;
    }
    const key = kv.key as Key;
    if (values.has(key)) {
      problems.add(line, `\`${key}\` is given twice (first at line ${values.get(key)!.line})`, 'each key once', trimmed);
      continue;
    }
    if (STRUCTURED.has(key) && kv.value.startsWith('[') && kv.value.endsWith(']')) {
      problems.add(line, `\`${key}\` still holds the template's placeholder`, `a value, e.g. \`${key}: ${exampleFor(key)}\``, kv.value);
    }
    values.set(key, { value: kv.value, line });
  }
  for (const key of KEYS) {
    if (!values.has(key)) {
      problems.add(section.line, `\`${key}\` is missing from Current Step`, `a line \`${key}: ${exampleFor(key)}\``, 'no such line');
    }
  }
  if (problems.list.length > 0) throw new InputError(problems.list);
  return values;
}

/** The flow id, step, status and retry count as the engine's values; a value it cannot read is a problem (status and count undefined then). */
function readPositionValues(values: Values, problems: Problems) {
  const get = (key: Key) => values.get(key)!;
  const flow = get('flow');
  if (!FLOW_ID.test(flow.value))
    problems.add(flow.line, 'the flow id is not a flow id', 'lowercase letters, digits and dashes, e.g. `flow: greenfield`', flow.value);

  const stepValue = get('step');
  let step: number | 'done' = 'done';
  if (stepValue.value.toLowerCase() === 'done') step = 'done';
  else {
    const n = parseCount(stepValue.value);
    if (n === undefined || n < 1) problems.add(stepValue.line, 'the step is not a step number', 'a number from 1, or `done` (e.g. `step: 3`)', stepValue.value);
    else step = n;
  }

  const statusValue = get('status');
  let status = normalizeStatus(statusValue.value);
  if (!status)
    problems.add(statusValue.line, 'the status is not one autopilot knows', `one of ${STATUSES.join(', ')} (e.g. \`status: in_progress\`)`, statusValue.value);

  const retryValue = get('retry_count');
  let retryCount = parseCount(retryValue.value);
  const readAs: string[] = [];
  // Above 3 by hand: more failed attempts than the rule allows is a failed step, read as 3 (the seed caps the count there).
  if (retryCount !== undefined && retryCount > MAX_RETRIES) {
    readAs.push(`retry_count ${retryCount} is above ${MAX_RETRIES}: read as ${MAX_RETRIES}, a failed step (line ${retryValue.line})`);
    retryCount = MAX_RETRIES;
    status = 'failed';
  }
  if (retryCount === undefined) {
    problems.add(retryValue.line, 'the retry count is out of range', `a whole number from 0 to ${MAX_RETRIES} (e.g. \`retry_count: 0\`)`, retryValue.value);
  }
  // Three failed attempts is a failed step, whatever the status line says (a hand edit, a merge).
  if (retryCount === MAX_RETRIES && (status === 'in_progress' || status === 'not_started')) status = 'failed';
  return { flow: flow.value, step, status, retryCount, readAs };
}

/** The sections around `Current Step`: the preamble, the last action, a held edit, the cycle, and the rest kept verbatim. */
function readOtherSections(sections: Section[], section: Section, problems: Problems) {
  // The cycle lives in its own short section; a file without it is in cycle 1 (`cycle` is 0 in `lines` then).
  const found = { cycle: 1, cycleLine: 0, lastAction: undefined as LastAction | undefined, preamble: '', heldSection: false, extra: [] as Section[] };
  for (const s of sections) {
    if (s === section || isCurrent(s)) continue;
    const title = s.title.toLowerCase();
    if (title === 'autopilot state') {
      found.preamble = s.body
        .filter((b) => !readMarker(b.text))
        .map((b) => b.text)
        .join('\n')
        .trim();
    } else if (title === 'last action') found.lastAction = readLastAction(s.body);
    else if (title === HELD_EDIT_TITLE.toLowerCase()) found.heldSection = true;
    else if (title === 'cycle') readCycle(s, found, problems);
    else found.extra.push(s);
  }
  return found;
}

/** `## Cycle`: each `cycle: N` line read (the last one wins); anything else that is `key: value` must be a cycle number. */
function readCycle(s: Section, found: { cycle: number; cycleLine: number }, problems: Problems): void {
  for (const { text: lineText, line } of s.body) {
    const kv = readKeyValue(lineText);
    if (!kv) continue;
    const n = kv.key === 'cycle' || kv.key === 'cycle_number' ? parseCount(kv.value) : undefined;
    if (n === undefined || n < 1) problems.add(line, 'the cycle is not a cycle number', 'a whole number from 1, e.g. `cycle: 2`', lineText.trim());
    else {
      found.cycle = n;
      found.cycleLine = line;
    }
  }
}

/** Seed 000's names for the last action's lines (its state file's keys), read as the engine's own. */
const SEED_000_NAMES: Record<string, string> = { last_action: 'action', last_action_result: 'result', timestamp: 'at', next_target: 'next' };

/** Reads the engine's own `## Last Action` lines (or seed 000's names for them); anything it does not recognise makes it absent, never an error. */
function readLastAction(body: Line[]): LastAction | undefined {
  const values = new Map<string, string>();
  for (const { text } of body) {
    const kv = readKeyValue(text);
    if (kv) values.set(SEED_000_NAMES[kv.key] ?? kv.key, kv.value);
  }
  const action = values.get('action');
  const result = values.get('result');
  const at = values.get('at');
  const next = values.get('next');
  if (!action || !at || !next || (result !== 'success' && result !== 'failure' && result !== 'partial')) return undefined;
  const step = /^step (\d{1,6})\b/.exec(next);
  return { action, result, at, next, ...(step ? { nextStep: Number(step[1]) } : {}) };
}

/** A kept section as written (a heading with no title, `##`, reads back as one). */
function renderSection(section: Section): string {
  const body = section.body.filter((b) => !readMarker(b.text)).map((b) => b.text);
  return [section.raw.trim(), ...body].join('\n');
}

function exampleFor(key: Key): string {
  return { flow: 'greenfield', step: '3', name: 'Plan', status: 'in_progress', sub_step: '0', retry_count: '0' }[key];
}
