/**
 * A skill's own record of where it is inside its step (contract rule 8): the
 * skill's SKILL.md names a JSON file under the docs folder and the field that
 * holds its position,
 *
 *     state: { file: 02_document/state.json, field: position }
 *
 * and the engine reads that position on re-entry, to set it beside the
 * pointer's `sub_step`. Only the front matter of SKILL.md and the one state
 * file are read; both are refused when too large, and every error is a
 * Problem, never an exception.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isScalar, LineCounter, parseDocument } from 'yaml';
import type { Problem } from '../errors.js';
import { CYCLE_PLACEHOLDER, withCycle } from '../flow/model.js';
import { patternProblem } from '../flow/patterns.js';
import { displayPath, isInside, type Repo } from './repo.js';

export interface SkillStateDeclaration {
  /** Under the docs folder; may hold `{cycle}`. */
  file: string;
  /** A key, or a dotted path to one: `position`, `progress.step`. */
  field: string;
}

export interface SkillState {
  /** The state file, relative to the repository root (`_docs/02_document/state.json`). */
  file: string;
  position: string;
}

/** Skill files and state files are a few kilobytes; these bound what a hostile one can cost. */
const MAX_FILE_BYTES = 256 * 1024;
/** A position is a sub-step's name, shown on one line beside the pointer's `sub_step`. */
const MAX_POSITION_LENGTH = 200;
/** YAML aliases have no use in a skill's front matter; a few are tolerated, a billion laughs are not. */
const MAX_ALIAS_COUNT = 10;

const DECLARATION_EXAMPLE = 'state: { file: 02_document/state.json, field: position }';
const FIELD = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
const GLOB = /[*?[\]{}!]/;

/**
 * The position a skill recorded, undefined when the skill declares no state
 * file or the file does not exist yet (the skill has not started), or the
 * problem that keeps it from being read.
 */
export function readSkillState(repo: Pick<Repo, 'root' | 'docs'>, skillFile: string, cycle: number): SkillState | { problem: Problem } | undefined {
  const skill = readSmallFile(skillFile, displayPath(skillFile, repo.root));
  if (!skill || 'problem' in skill) return skill;
  const declaration = readStateDeclaration(skill.text, displayPath(skillFile, repo.root));
  if (!declaration || 'problem' in declaration) return declaration;

  const path = join(repo.docs, withCycle(declaration.file, cycle));
  const file = displayPath(path, repo.root);
  const real = realPath(path);
  if (real === undefined) return undefined;
  if (!isInside(realPath(repo.docs) ?? repo.docs, real)) {
    return {
      problem: {
        file,
        message: 'the skill state file leads outside the docs folder (through a symlink); autopilot does not read it',
        expected: 'a file inside the docs folder',
        received: real,
      },
    };
  }
  const state = readSmallFile(path, file);
  if (!state || 'problem' in state) return state;
  const position = positionIn(state.text, declaration.field, file);
  return 'problem' in position ? position : { file, position: position.value };
}

/** What a skill's SKILL.md declares under `state:`; undefined when it declares nothing. Pure. */
export function readStateDeclaration(skillText: string, file: string): SkillStateDeclaration | { problem: Problem } | undefined {
  const lines = skillText.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trimEnd() !== '---') return undefined;
  const end = lines.findIndex((line, i) => i > 0 && /^(---|\.\.\.)\s*$/.test(line));
  if (end < 0) return { problem: { file, line: 1, message: 'the front matter is never closed', expected: 'a line `---` after it', received: 'no such line' } };

  const lineCounter = new LineCounter();
  const doc = parseDocument(lines.slice(1, end).join('\n'), { lineCounter, prettyErrors: false });
  // The YAML starts on the file's second line.
  const lineAt = (offset: number) => 1 + lineCounter.linePos(offset).line;
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
  if (!isMap(doc.contents)) return undefined;
  const stateKey = doc.contents.items.find((pair) => isScalar(pair.key) && pair.key.value === 'state');
  if (!stateKey) return undefined;
  const line = isScalar(stateKey.key) && stateKey.key.range ? lineAt(stateKey.key.range[0]) : 1;
  const problem = (message: string, received: string): { problem: Problem } => ({ problem: { file, line, message, expected: DECLARATION_EXAMPLE, received } });

  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }).state;
  } catch (e) {
    return problem('the front matter could not be read', firstLine(e instanceof Error ? e.message : String(e)));
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return problem('`state` must name the file and the field', show(value));
  const { file: stateFile, field, ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) return problem(`\`state\` has unknown key(s): ${unknown.join(', ')}`, show(value));
  if (typeof stateFile !== 'string' || stateFile.trim() === '') return problem('`state.file` must be a path under the docs folder', show(stateFile));
  const pathProblem = statePathProblem(stateFile);
  if (pathProblem) return problem(`\`state.file\` ${pathProblem}`, stateFile);
  if (typeof field !== 'string' || !FIELD.test(field))
    return problem('`state.field` must be a key or a dotted path to one, like `position` or `progress.step`', show(field));
  return { file: stateFile, field };
}

/** The state file must be one JSON file under the docs folder: no escape, no glob. */
function statePathProblem(path: string): string | undefined {
  const problem = patternProblem(path);
  if (problem) return `is not usable: ${problem.replace(/^the pattern/, 'the path')}`;
  if (GLOB.test(path.replaceAll(CYCLE_PLACEHOLDER, ''))) return 'names one file: it may hold `{cycle}` but no glob';
  if (!path.endsWith('.json')) return 'must be a JSON file (`.json`)';
  return undefined;
}

/** The text of a file, undefined when there is none; a folder or a file too large to be the one meant is a problem. */
function readSmallFile(path: string, file: string): { text: string } | { problem: Problem } | undefined {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return undefined;
  if (!stat.isFile())
    return { problem: { file, message: 'this should be a file', expected: 'a file', received: stat.isDirectory() ? 'a folder' : 'something else' } };
  if (stat.size > MAX_FILE_BYTES)
    return {
      problem: {
        file,
        message: `the file is too large (${Math.ceil(stat.size / 1024)} KB)`,
        expected: `at most ${MAX_FILE_BYTES / 1024} KB`,
        received: `${stat.size} bytes`,
      },
    };
  try {
    return { text: readFileSync(path, 'utf8') };
  } catch (e) {
    return {
      problem: { file, message: 'the file cannot be read', expected: 'a readable file', received: firstLine(e instanceof Error ? e.message : String(e)) },
    };
  }
}

function positionIn(json: string, field: string, file: string): { value: string } | { problem: Problem } {
  const expected = `a JSON object whose \`${field}\` is the sub-step, e.g. ${JSON.stringify(nest(field, '3 — Components'))}`;
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch (e) {
    const message = firstLine(e instanceof Error ? e.message : String(e));
    // Node names the line, or only the character offset, of most syntax errors (not all); people read lines.
    const named = /\(line (\d+)/.exec(message);
    const offset = /position (\d+)/.exec(message);
    const line = named ? Number(named[1]) : offset ? json.slice(0, Number(offset[1])).split('\n').length : undefined;
    return { problem: { file, ...(line ? { line } : {}), message: 'the skill state file is not valid JSON', expected, received: message } };
  }
  let value = data;
  for (const key of field.split('.')) {
    // Own keys only: `constructor` or `__proto__` must not reach into Object.prototype.
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, key)) {
      return { problem: { file, message: `the skill state file has no \`${field}\``, expected, received: show(data) } };
    }
    value = (value as Record<string, unknown>)[key];
  }
  const position = typeof value === 'string' ? value.trim() : typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined;
  if (position === undefined || position === '' || position.length > MAX_POSITION_LENGTH || [...position].some(breaksTheLine)) {
    return {
      problem: {
        file,
        message: `the skill state's \`${field}\` is not a sub-step`,
        expected: `one line of at most ${MAX_POSITION_LENGTH} characters, e.g. "3 — Components"`,
        received: show(value),
      },
    };
  }
  return { value: position };
}

/** Control characters and Unicode line separators: the position goes on one line of the pointer and of the terminal. */
function breaksTheLine(char: string): boolean {
  const code = char.charCodeAt(0);
  return code < 0x20 || code === 0x7f || code === 0x2028 || code === 0x2029;
}

/** The real path of an existing file, undefined when there is none. */
function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function nest(field: string, value: string): unknown {
  return field
    .split('.')
    .reverse()
    .reduce<unknown>((inner, key) => ({ [key]: inner }), value);
}

const firstLine = (text: string) => (text.split('\n')[0] ?? '').slice(0, 160);
const show = (value: unknown) => {
  const text = value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value));
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
};
