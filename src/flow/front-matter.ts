/** Reads a flow's YAML front matter: id, title, scan order, detection rules. */
import { isMap, isScalar, LineCounter, parseDocument } from 'yaml';
import type { Problem } from '../errors.js';
import type { Detection } from './model.js';
import { patternProblem } from './patterns.js';

export interface FrontMatter {
  id: string;
  title: string;
  scanOrder: number;
  detect: Detection;
}

const EXAMPLE = 'front matter like `id: greenfield`, `title: Greenfield project`, `scan_order: 2`';

/**
 * `source` is the YAML between the `---` fences; `firstLine` is the line of
 * the first of them, so problems name lines of the flow file itself.
 */
export function readFrontMatter(source: string, file: string, firstLine: number, expectedId: string): { value?: FrontMatter; problems: Problem[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter });
  const at = (offset: number) => firstLine + lineCounter.linePos(offset).line;
  // yaml's messages end with its own " at line N, column M:" (counted inside the front matter); the file line replaces it.
  const problems: Problem[] = doc.errors.map((e) => ({
    file,
    line: at(e.pos[0]),
    message: `the front matter is not valid YAML: ${e.message
      .split('\n')[0]!
      .replace(/ at line \d+, column \d+:?$/, '')
      .replace(/:$/, '')}`,
    expected: EXAMPLE,
  }));
  if (problems.length > 0) return { problems };
  if (!isMap(doc.contents))
    return {
      problems: [{ file, line: firstLine, message: 'the front matter is not a YAML mapping', expected: EXAMPLE, received: source.trim().slice(0, 60) }],
    };

  const lineOfKey = (key: string): number => {
    const pair = (doc.contents as { items: { key: unknown }[] }).items.find((p) => isScalar(p.key) && p.key.value === key);
    const range = pair && isScalar(pair.key) ? pair.key.range : undefined;
    return range ? at(range[0]) : firstLine;
  };
  const data = doc.toJS() as Record<string, unknown>;
  const known = new Set(['id', 'title', 'scan_order', 'detect', 'description']);
  for (const key of Object.keys(data)) {
    if (!known.has(key))
      problems.push({ file, line: lineOfKey(key), message: `unknown front matter key \`${key}\``, expected: `one of ${[...known].join(', ')}`, received: key });
  }

  const id = data.id;
  if (typeof id !== 'string' || id !== expectedId) {
    problems.push({
      file,
      line: lineOfKey('id'),
      message: 'the flow id must match the file name',
      expected: `\`id: ${expectedId}\` in ${expectedId}.md`,
      received: id === undefined ? 'no id' : `id: ${String(id)}`,
    });
  }
  const title = data.title;
  if (typeof title !== 'string' || title.trim() === '')
    problems.push({
      file,
      line: lineOfKey('title'),
      message: 'the flow has no title',
      expected: '`title: Greenfield project`',
      received: String(title ?? 'nothing'),
    });
  const scanOrder = data.scan_order;
  if (typeof scanOrder !== 'number' || !Number.isInteger(scanOrder)) {
    problems.push({
      file,
      line: lineOfKey('scan_order'),
      message: 'scan_order must be a whole number (folder scans try flows in ascending order)',
      expected: '`scan_order: 1`',
      received: String(scanOrder ?? 'nothing'),
    });
  }

  const detect: Detection = { any: [], none: [] };
  const raw = data.detect;
  if (raw !== undefined) {
    const line = lineOfKey('detect');
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      problems.push({
        file,
        line,
        message: '`detect` must be a mapping with `any` and/or `none` lists',
        expected: 'detect: { any: [package.json], none: ["{docs}/00_problem"] }',
        received: JSON.stringify(raw),
      });
    } else {
      for (const [key, list] of Object.entries(raw as Record<string, unknown>)) {
        if ((key !== 'any' && key !== 'none') || !Array.isArray(list) || !list.every((p) => typeof p === 'string')) {
          problems.push({
            file,
            line,
            message: `\`detect.${key}\` is not a list of path patterns`,
            expected: '`any:` or `none:` with a list like [package.json, "{docs}/02_document"]',
            received: JSON.stringify(list),
          });
          continue;
        }
        for (const pattern of list as string[]) {
          const problem = patternProblem(pattern, true);
          if (problem)
            problems.push({
              file,
              line,
              message: `the detection pattern \`${pattern}\` is not usable: ${problem}`,
              expected: 'a path relative to the repository, e.g. `package.json` or `{docs}/00_problem`',
              received: pattern,
            });
        }
        detect[key] = list as string[];
      }
    }
  }
  if (problems.length > 0) return { problems };
  return { value: { id: id as string, title: (title as string).trim(), scanOrder: scanOrder as number, detect }, problems };
}
