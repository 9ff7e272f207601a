/**
 * A skill's own record of where it is inside its step (contract rule 8;
 * docs/flow-format.md, "A skill's own state"). The skill's SKILL.md names, in
 * its front matter, a JSON file under the docs folder and the field that
 * holds its position,
 *
 *     state: { file: 02_document/state.json, field: position }
 *
 * and the engine reads that position on re-entry, to set it beside the
 * pointer's `sub_step`. Pure: SKILL.md's text → the declaration; the state
 * file's text → the position; each or the problem naming the file and, where
 * there is one, the line. Finding and reading the files is `io/skill-state.ts`.
 * The YAML parser is imported here: only that lazily loaded reader imports
 * this module.
 */
import { isScalar } from 'yaml';
import type { Problem } from '../errors.js';
import { CYCLE_PLACEHOLDER } from './flow/model.js';
import { patternProblem } from './flow/patterns.js';
import { SKILL_STATE_MAX_ALIASES, SKILL_STATE_POSITION_MAX_LENGTH } from '../limits.js';
import { firstLine, readSkillFrontMatter } from './skill-front-matter.js';

export interface SkillStateDeclaration {
  /** Under the docs folder; may hold `{cycle}`. */
  file: string;
  /** A key, or a dotted path to one: `position`, `progress.step`. */
  field: string;
}

const DECLARATION_EXAMPLE = 'state: { file: 02_document/state.json, field: position }';
const FIELD = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
const GLOB = /[*?[\]{}!]/;

/** What a skill's SKILL.md declares under `state:`; undefined when it declares nothing. */
export function parseStateDeclaration(skillText: string, file: string): SkillStateDeclaration | { problem: Problem } | undefined {
  const front = readSkillFrontMatter(skillText, file);
  if (!front || 'problem' in front) return front;
  const { doc, map, lineAt } = front;
  const stateKey = map.items.find((pair) => isScalar(pair.key) && pair.key.value === 'state');
  if (!stateKey) return undefined;
  const line = isScalar(stateKey.key) && stateKey.key.range ? lineAt(stateKey.key.range[0]) : 1;
  const problem = (message: string, received: string): { problem: Problem } => ({ problem: { file, line, message, expected: DECLARATION_EXAMPLE, received } });

  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: SKILL_STATE_MAX_ALIASES }).state;
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

/** The position a state file's text records in `field`. */
export function parseSkillState(json: string, file: string, field: string): { position: string } | { problem: Problem } {
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
  if (position === undefined || position === '' || position.length > SKILL_STATE_POSITION_MAX_LENGTH || [...position].some(breaksTheLine)) {
    return {
      problem: {
        file,
        message: `the skill state's \`${field}\` is not a sub-step`,
        expected: `one line of at most ${SKILL_STATE_POSITION_MAX_LENGTH} characters, e.g. "3 — Components"`,
        received: show(value),
      },
    };
  }
  return { position };
}

/** Control characters and Unicode line separators: the position goes on one line of the pointer and of the terminal. */
function breaksTheLine(char: string): boolean {
  const code = char.charCodeAt(0);
  return code < 0x20 || code === 0x7f || code === 0x2028 || code === 0x2029;
}

/** The state file a skill would write for `position`: the field nested as its dotted path says. */
export function serializeSkillState(position: string, field: string): string {
  return JSON.stringify(nest(field, position), null, 2) + '\n';
}

function nest(field: string, value: string): unknown {
  return field
    .split('.')
    .reverse()
    .reduce<unknown>((inner, key) => ({ [key]: inner }), value);
}

const show = (value: unknown) => {
  const text = value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value));
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
};
