/**
 * Reads a flow's YAML front matter: id, title, scan order, detection rules,
 * the steps a checkpoint is taken before.
 * The YAML is untrusted: whatever yaml reports or throws (alias bombs,
 * aliases to no anchor, nesting past the stack) becomes a problem naming the
 * line, never an exception.
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, visit, type Alias, type Document } from 'yaml';
import type { Problem } from '../../errors.js';
import { YAML_MAX_ALIASES } from '../../limits.js';
import { nestingProblem } from './yaml-nesting.js';
import type { CheckpointMark, Detection } from './model.js';
import { patternProblem } from './patterns.js';

export interface FrontMatter {
  id: string;
  title: string;
  scanOrder: number;
  detect: Detection;
  /** Absent when the key is, or names no step. */
  checkpointBefore?: CheckpointMark[];
}

const EXAMPLE = 'front matter like `id: greenfield`, `title: Greenfield project`, `scan_order: 2`';

/**
 * `source` is the YAML between the `---` fences; `firstLine` is the line of
 * the first of them, so problems name lines of the flow file itself.
 */
export function readFrontMatter(source: string, file: string, firstLine: number, expectedId: string): { value?: FrontMatter; problems: Problem[] } {
  const lineCounter = new LineCounter();
  const at = (offset: number) => firstLine + lineCounter.linePos(offset).line;
  const nesting = nestingProblem(source, file, firstLine);
  if (nesting) return { problems: [nesting] };
  let doc: Document.Parsed | undefined;
  try {
    // logLevel: yaml's warnings (a collection as a key) would go to stderr; the checks below report what matters.
    doc = parseDocument(source, { lineCounter, logLevel: 'error' });
    const problems = yamlErrors(doc, file, at);
    if (problems.length > 0) return { problems };
    const aliases = aliasProblem(doc, file, at);
    if (aliases) return { problems: [aliases] };
    return readValues(doc, source, file, firstLine, expectedId, at);
  } catch (error) {
    // Whatever yaml throws (an alias bomb expanding past the limit, anything else): a problem, at the first alias if there is one.
    const message = error instanceof Error ? error.message : String(error);
    const alias = doc ? firstAlias(doc) : undefined;
    return {
      problems: [
        {
          file,
          line: alias?.range ? at(alias.range[0]) : firstLine,
          message: /alias/i.test(message) ? `the front matter's YAML aliases cannot be expanded: ${message}` : `the front matter could not be read: ${message}`,
          expected: EXAMPLE,
          received: clip(source.trim()),
        },
      ],
    };
  }
}

function yamlErrors(doc: Document.Parsed, file: string, at: (offset: number) => number): Problem[] {
  // yaml's messages end with its own " at line N, column M:" (counted inside the front matter); the file line replaces it.
  return doc.errors.map((e) => ({
    file,
    line: at(e.pos[0]),
    message: `the front matter is not valid YAML: ${e.message
      .split('\n')[0]!
      .replace(/ at line \d+, column \d+:?$/, '')
      .replace(/:$/, '')}`,
    expected: EXAMPLE,
  }));
}

function firstAlias(doc: Document.Parsed): Alias | undefined {
  let found: Alias | undefined;
  visit(doc, {
    Alias: (_key, node) => {
      found = node;
      return visit.BREAK;
    },
  });
  return found;
}

/**
 * Aliases are checked before yaml expands them: yaml resolves each alias by
 * scanning the document, and throws on one whose anchor comes later or not at all.
 */
function aliasProblem(doc: Document.Parsed, file: string, at: (offset: number) => number): Problem | undefined {
  const anchors = new Set<string>();
  let count = 0;
  let problem: Problem | undefined;
  visit(doc, {
    Node: (_key, node) => {
      if (isAlias(node)) {
        count += 1;
        const line = node.range ? at(node.range[0]) : undefined;
        if (count > YAML_MAX_ALIASES)
          problem = {
            file,
            line,
            message: `the front matter uses more than ${YAML_MAX_ALIASES} YAML aliases`,
            expected: 'values written out; a flow needs no anchors (`&a`) or aliases (`*a`)',
            received: `${count} aliases by this line`,
          };
        else if (!anchors.has(node.source))
          problem = {
            file,
            line,
            message: `the YAML alias \`*${clip(node.source)}\` names no anchor defined before it`,
            expected: `an anchor \`&${clip(node.source)}\` earlier in the front matter, or the value written out`,
            received: `*${clip(node.source)}`,
          };
        return problem ? visit.BREAK : undefined;
      }
      if (node.anchor) anchors.add(node.anchor);
      return undefined;
    },
  });
  return problem;
}

/** A value as a message shows it: one line, short. */
function clip(text: string, max = 80): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** A value as JSON, safe for the circular data a self-referencing alias makes. */
function asJson(value: unknown): string {
  try {
    return clip(JSON.stringify(value) ?? String(value));
  } catch {
    return clip(String(value));
  }
}

/**
 * The front matter's values, read in order: no key it does not know, the
 * flow's id, title and scan order, its detection patterns, the steps that
 * take a checkpoint first. Every problem is said, with its key's line.
 */
function readValues(
  doc: Document.Parsed,
  source: string,
  file: string,
  firstLine: number,
  expectedId: string,
  at: (offset: number) => number,
): { value?: FrontMatter; problems: Problem[] } {
  const problems: Problem[] = [];
  if (!isMap(doc.contents))
    return {
      problems: [{ file, line: firstLine, message: 'the front matter is not a YAML mapping', expected: EXAMPLE, received: clip(source.trim(), 60) }],
    };

  const pairOf = (key: string) => (doc.contents as { items: { key: unknown; value: unknown }[] }).items.find((p) => isScalar(p.key) && p.key.value === key);
  const lineOfKey = (key: string): number => {
    const pair = pairOf(key);
    const range = pair && isScalar(pair.key) ? pair.key.range : undefined;
    return range ? at(range[0]) : firstLine;
  };
  const data = doc.toJS({ maxAliasCount: YAML_MAX_ALIASES }) as Record<string, unknown>;
  const known = new Set(['id', 'title', 'scan_order', 'detect', 'description', 'checkpoint_before']);
  for (const key of Object.keys(data)) {
    if (!known.has(key))
      problems.push({
        file,
        line: lineOfKey(key),
        message: `unknown front matter key \`${clip(key)}\``,
        expected: `one of ${[...known].join(', ')}`,
        received: clip(key),
      });
  }
  const { id, title, scanOrder } = readIdentity(data, expectedId, file, lineOfKey, problems);
  const detect = data.detect === undefined ? { any: [], none: [] } : readDetect(data.detect, file, lineOfKey('detect'), problems);
  const checkpointBefore = readCheckpointBefore(data.checkpoint_before, pairOf('checkpoint_before')?.value, lineOfKey('checkpoint_before'), file, at, problems);

  if (problems.length > 0) return { problems };
  return {
    value: {
      id: id as string,
      title: (title as string).trim(),
      scanOrder: scanOrder as number,
      detect,
      ...(checkpointBefore.length > 0 ? { checkpointBefore } : {}),
    },
    problems,
  };
}

/** The flow's id (its file's name), title and scan order, each checked; what is wrong is added to `problems`. */
function readIdentity(data: Record<string, unknown>, expectedId: string, file: string, lineOfKey: (key: string) => number, problems: Problem[]) {
  const id = data.id;
  if (typeof id !== 'string' || id !== expectedId) {
    problems.push({
      file,
      line: lineOfKey('id'),
      message: 'the flow id must match the file name',
      expected: `\`id: ${expectedId}\` in ${expectedId}.md`,
      received: id === undefined ? 'no id' : `id: ${clip(String(id))}`,
    });
  }
  const title = data.title;
  if (typeof title !== 'string' || title.trim() === '')
    problems.push({
      file,
      line: lineOfKey('title'),
      message: 'the flow has no title',
      expected: '`title: Greenfield project`',
      received: clip(String(title ?? 'nothing')),
    });
  const scanOrder = data.scan_order;
  if (typeof scanOrder !== 'number' || !Number.isInteger(scanOrder)) {
    problems.push({
      file,
      line: lineOfKey('scan_order'),
      message: 'scan_order must be a whole number (folder scans try flows in ascending order)',
      expected: '`scan_order: 1`',
      received: clip(String(scanOrder ?? 'nothing')),
    });
  }
  return { id, title, scanOrder };
}

/** `detect`: a mapping of `any` and `none` to lists of usable path patterns; what is wrong is added to `problems`. */
function readDetect(raw: unknown, file: string, line: number, problems: Problem[]): Detection {
  const detect: Detection = { any: [], none: [] };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problems.push({
      file,
      line,
      message: '`detect` must be a mapping with `any` and/or `none` lists',
      expected: 'detect: { any: [package.json], none: ["{docs}/00_problem"] }',
      received: asJson(raw),
    });
    return detect;
  }
  for (const [key, list] of Object.entries(raw as Record<string, unknown>)) {
    if ((key !== 'any' && key !== 'none') || !Array.isArray(list) || !list.every((p) => typeof p === 'string')) {
      problems.push({
        file,
        line,
        message: `\`detect.${key}\` is not a list of path patterns`,
        expected: '`any:` or `none:` with a list like [package.json, "{docs}/02_document"]',
        received: asJson(list),
      });
      continue;
    }
    for (const pattern of list as string[]) {
      const problem = patternProblem(pattern, true);
      if (problem)
        problems.push({
          file,
          line,
          message: `the detection pattern \`${clip(pattern)}\` is not usable: ${problem}`,
          expected: 'a path relative to the repository, e.g. `package.json` or `{docs}/00_problem`',
          received: clip(pattern),
        });
    }
    detect[key] = list as string[];
  }
  return detect;
}

const CHECKPOINT_EXAMPLE = '`checkpoint_before: [Deploy]`: names from the Name column';

/**
 * `checkpoint_before`: a YAML list of step names, each kept with its own line
 * (a list written on one line gives every name that line). Whether each names
 * a step is `validateFlow`'s to judge, once the step table is read.
 */
function readCheckpointBefore(
  raw: unknown,
  node: unknown,
  keyLine: number,
  file: string,
  at: (offset: number) => number,
  problems: Problem[],
): CheckpointMark[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    problems.push({ file, line: keyLine, message: '`checkpoint_before` is not a list of step names', expected: CHECKPOINT_EXAMPLE, received: asJson(raw) });
    return [];
  }
  const lineOf = (i: number): number => {
    const range = isSeq(node) ? (node.items[i] as { range?: [number, number, number] } | undefined)?.range : undefined;
    return range ? at(range[0]) : keyLine;
  };
  const marks: CheckpointMark[] = [];
  raw.forEach((name: unknown, i) => {
    if (typeof name === 'string' && name.trim() !== '') marks.push({ step: name.trim(), line: lineOf(i) });
    else
      problems.push({
        file,
        line: lineOf(i),
        message: `\`checkpoint_before\` lists steps by name; ${asJson(name)} is not a name`,
        expected: CHECKPOINT_EXAMPLE,
        received: asJson(name),
      });
  });
  return marks;
}
