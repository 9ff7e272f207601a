/**
 * The YAML front matter of a SKILL.md, as the readers of its declarations
 * (`skill-state.ts`'s `state:`, `skill-outputs.ts`'s `outputs:`) take it:
 * the document's top-level map, a function from a YAML offset to the file's
 * line, or the problem naming the line; undefined where the file has no
 * front matter or the front matter is not a map. Pure; the YAML parser is
 * imported here, so only lazily loaded readers import this module.
 */
import { isMap, LineCounter, parseDocument, type Document, type YAMLMap } from 'yaml';
import type { Problem } from '../errors.js';
import { nestingProblem } from './flow/yaml-nesting.js';

export interface SkillFrontMatter {
  doc: Document.Parsed;
  map: YAMLMap;
  /** The file's line of a YAML offset (the YAML starts on the file's second line); line 1 where there is none. */
  lineAt: (offset: number | undefined) => number;
}

export function readSkillFrontMatter(skillText: string, file: string): SkillFrontMatter | { problem: Problem } | undefined {
  const lines = skillText.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trimEnd() !== '---') return undefined;
  const end = lines.findIndex((line, i) => i > 0 && /^(---|\.\.\.)\s*$/.test(line));
  if (end < 0) return { problem: { file, line: 1, message: 'the front matter is never closed', expected: 'a line `---` after it', received: 'no such line' } };
  const yaml = lines.slice(1, end).join('\n');
  // Brackets nested thousands deep cost yaml seconds: refused first, in one pass.
  const nesting = nestingProblem(yaml, file, 1);
  if (nesting) return { problem: nesting };
  const lineCounter = new LineCounter();
  const doc = parseDocument(yaml, { lineCounter, prettyErrors: false });
  const lineAt = (offset: number | undefined) => 1 + (offset === undefined ? 0 : lineCounter.linePos(offset).line);
  const [error] = doc.errors;
  if (error)
    return {
      problem: {
        file,
        line: lineAt(error.pos[0]),
        message: 'the front matter is not valid YAML',
        expected: 'YAML between `---` lines',
        received: firstLine(error.message),
      },
    };
  return isMap(doc.contents) ? { doc, map: doc.contents, lineAt } : undefined;
}

/** The first line of a message, at most 160 characters: what a problem's `received` quotes. */
export const firstLine = (text: string) => (text.split('\n')[0] ?? '').slice(0, 160);
