/**
 * Reads the state pointer leniently: the contract's exact template, hand edits
 * (bullets, bold keys, `Sub-step` for `sub_step`, odd spacing or casing) and
 * extra sections. It never guesses: a value it cannot read is an error naming
 * the line, so the file is never overwritten on a misreading.
 *
 * The format is line-oriented by contract (`key: value` under a heading), so a
 * small line reader does the job; loading the Markdown parser here would cost
 * every call its start-up time.
 */
import { InputError, type Problem } from '../errors.js';
import { STATUSES, MAX_RETRIES, type Position, type Status } from './position.js';

export const POINTER_SCHEMA = 1;
const SCHEMA_MARKER = /<!--\s*autopilot-state\s+v(\d+)\b/i;

export interface ParsedPointer {
  position: Position;
  /** Text a person put under the title, kept verbatim. */
  preamble: string;
  /** Sections the engine does not own, kept verbatim so a rewrite loses nothing. */
  extraSections: string;
  /** Line of each key, for later messages about a value (an unknown flow, a step out of range). */
  lines: Record<'flow' | 'step' | 'name' | 'status' | 'sub_step' | 'retry_count' | 'cycle', number>;
}

const TEMPLATE_EXAMPLE = '`## Current Step` followed by `flow: greenfield`, `step: 3`, `name: Plan`, `status: in_progress`, `sub_step: 0`, `retry_count: 0`';
const KEYS = ['flow', 'step', 'name', 'status', 'sub_step', 'retry_count'] as const;
type Key = (typeof KEYS)[number];
/** Keys whose value has a fixed form: for them, `[…]` is the template's placeholder. `name` and `sub_step` are free text. */
const STRUCTURED = new Set<Key>(['flow', 'step', 'status', 'retry_count']);

interface Section {
  title: string;
  line: number;
  body: { text: string; line: number }[];
}

function splitSections(text: string): { sections: Section[] } {
  const sections: Section[] = [];
  let current: Section | undefined;
  text.split(/\r?\n/).forEach((raw, index) => {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw);
    if (heading) {
      current = { title: heading[1]!, line: index + 1, body: [] };
      sections.push(current);
    } else if (current) {
      current.body.push({ text: raw, line: index + 1 });
    }
  });
  return { sections };
}

/**
 * `- **Sub-step**: x` or `**sub_step:** x` → key `sub_step`, value `x`. Only
 * emphasis around the key is taken off; the value is kept exactly as written.
 */
function readKeyValue(text: string): { key: string; value: string } | undefined {
  const stripped = text.replace(/^\s*[-*+]\s+/, '').trim();
  const match = /^(\*\*|__)?`?([A-Za-z][A-Za-z _-]*?)`?(?::\1|\1:|:)\s*(.*?)\s*$/.exec(stripped);
  if (!match) return undefined;
  return {
    key: match[2]!
      .trim()
      .toLowerCase()
      .replace(/[\s-]+/g, '_'),
    value: match[3]!,
  };
}

function normalizeStatus(value: string): Status | undefined {
  const normalized = value.toLowerCase().replace(/[\s-]+/g, '_');
  return (STATUSES as readonly string[]).includes(normalized) ? (normalized as Status) : undefined;
}

function parseCount(value: string): number | undefined {
  return /^\d+$/.test(value) ? Number(value) : undefined;
}

export function parsePointer(text: string, file: string): ParsedPointer {
  const problems: Problem[] = [];
  const problem = (line: number, message: string, expected: string, received?: string) =>
    problems.push({ file, line, message, expected, ...(received === undefined ? {} : { received }) });

  const marker = SCHEMA_MARKER.exec(text);
  if (marker && Number(marker[1]) > POINTER_SCHEMA) {
    const line = text.slice(0, marker.index).split('\n').length;
    throw new InputError({
      file,
      line,
      message: `the pointer was written by a newer autopilot (schema v${marker[1]})`,
      expected: `schema v${POINTER_SCHEMA} or older; upgrade autopilot to read this file`,
      received: marker[0],
    });
  }

  const { sections } = splitSections(text);
  const isCurrent = (s: Section) => s.title.toLowerCase().replace(/\s+/g, ' ') === 'current step';
  const current = sections.filter(isCurrent);
  if (current.length !== 1) {
    throw new InputError({
      file,
      line: current[1]?.line ?? 1,
      message: current.length === 0 ? 'no `## Current Step` section' : 'more than one `## Current Step` section',
      expected: TEMPLATE_EXAMPLE,
      received:
        current.length === 0
          ? sections.length
            ? sections.map((s) => `\`${s.title}\` (line ${s.line})`).join(', ')
            : 'no headings at all'
          : `sections at lines ${current.map((s) => s.line).join(', ')}`,
    });
  }
  const section = current[0]!;

  const values = new Map<Key, { value: string; line: number }>();
  for (const { text: lineText, line } of section.body) {
    if (lineText.trim() === '' || /^\s*<!--.*-->\s*$/.test(lineText) || /^\s*```/.test(lineText)) continue;
    const kv = readKeyValue(lineText);
    if (!kv || !(KEYS as readonly string[]).includes(kv.key)) {
      problem(
        line,
        kv ? `unknown key \`${kv.key}\` in Current Step` : 'a line that is not `key: value`',
        `one of ${KEYS.join(', ')} (e.g. \`status: in_progress\`)`,
        lineText.trim(),
      );
      continue;
    }
    const key = kv.key as Key;
    if (values.has(key)) {
      problem(line, `\`${key}\` is given twice (first at line ${values.get(key)!.line})`, 'each key once', lineText.trim());
      continue;
    }
    if (STRUCTURED.has(key) && /^\[.*\]$/.test(kv.value)) {
      problem(line, `\`${key}\` still holds the template's placeholder`, `a value, e.g. \`${key}: ${exampleFor(key)}\``, kv.value);
    }
    values.set(key, { value: kv.value, line });
  }
  for (const key of KEYS) {
    if (!values.has(key)) {
      problem(section.line, `\`${key}\` is missing from Current Step`, `a line \`${key}: ${exampleFor(key)}\``, 'no such line');
    }
  }
  if (problems.length > 0) throw new InputError(problems);

  const get = (key: Key) => values.get(key)!;
  const flow = get('flow');
  if (!/^[a-z0-9][a-z0-9-]*$/.test(flow.value))
    problem(flow.line, 'the flow id is not a flow id', 'lowercase letters, digits and dashes, e.g. `flow: greenfield`', flow.value);

  const stepValue = get('step');
  let step: number | 'done' = 'done';
  if (stepValue.value.toLowerCase() === 'done') step = 'done';
  else {
    const n = parseCount(stepValue.value);
    if (n === undefined || n < 1) problem(stepValue.line, 'the step is not a step number', 'a number from 1, or `done` (e.g. `step: 3`)', stepValue.value);
    else step = n;
  }

  const statusValue = get('status');
  const status = normalizeStatus(statusValue.value);
  if (!status)
    problem(statusValue.line, 'the status is not one autopilot knows', `one of ${STATUSES.join(', ')} (e.g. \`status: in_progress\`)`, statusValue.value);

  const retryValue = get('retry_count');
  const retryCount = parseCount(retryValue.value);
  if (retryCount === undefined || retryCount > MAX_RETRIES) {
    problem(retryValue.line, 'the retry count is out of range', `a whole number from 0 to ${MAX_RETRIES} (e.g. \`retry_count: 0\`)`, retryValue.value);
  }

  // The cycle lives in its own short section; a file without it is in cycle 1.
  let cycle = 1;
  let cycleLine = 0;
  let preamble = '';
  const extra: Section[] = [];
  for (const s of sections) {
    if (s === section) continue;
    if (/^autopilot state$/i.test(s.title)) {
      preamble = s.body
        .map((b) => b.text)
        .filter((t) => !SCHEMA_MARKER.test(t))
        .join('\n')
        .trim();
      continue;
    }
    if (/^cycle$/i.test(s.title)) {
      for (const { text: lineText, line } of s.body) {
        const kv = readKeyValue(lineText);
        if (!kv) continue;
        const n = kv.key === 'cycle' ? parseCount(kv.value) : undefined;
        if (n === undefined || n < 1) problem(line, 'the cycle is not a cycle number', 'a whole number from 1, e.g. `cycle: 2`', lineText.trim());
        else {
          cycle = n;
          cycleLine = line;
        }
      }
      continue;
    }
    extra.push(s);
  }
  if (problems.length > 0) throw new InputError(problems);

  const subStep = get('sub_step').value;
  return {
    position: {
      flow: flow.value,
      step,
      name: get('name').value,
      status: status!,
      subStep: subStep === '' ? '0' : subStep,
      retryCount: retryCount!,
      cycle,
    },
    preamble,
    extraSections: extra
      .map((s) => renderSection(text, s))
      .join('\n')
      .trim(),
    lines: {
      flow: flow.line,
      step: stepValue.line,
      name: get('name').line,
      status: statusValue.line,
      sub_step: get('sub_step').line,
      retry_count: retryValue.line,
      cycle: cycleLine,
    },
  };
}

function renderSection(text: string, section: Section): string {
  const lines = text.split(/\r?\n/);
  const body = section.body.map((b) => b.text).filter((t) => !SCHEMA_MARKER.test(t));
  return [lines[section.line - 1]!, ...body].join('\n');
}

function exampleFor(key: Key): string {
  return { flow: 'greenfield', step: '3', name: 'Plan', status: 'in_progress', sub_step: '0', retry_count: '0' }[key];
}
