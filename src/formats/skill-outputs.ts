/**
 * A skill's outputs, declared in its SKILL.md front matter (docs/flow-format.md,
 * "Outputs and their checks"):
 *
 *     outputs:
 *       - file: 00_problem/problem.md
 *         template: templates/problem.md
 *         sections: [Problem, Users, Constraints, Scope]
 *         checks: [placeholders, self-check]
 *
 * `file` is a pattern under the docs folder (the Done-when pattern language:
 * `{cycle}`, globs within a segment); `template` a path inside the skill's
 * folder; `sections` the required `## ` headings; `checks` the judges by name
 * (`evidence/names.ts`: this module goes into a lazy bundle of its own, which
does not carry the judges); `max_clarifications` the `[NEEDS CLARIFICATION]`
 * markers the file may keep. Pure: SKILL.md's text → the declarations, none
 * (no `outputs:`), or the problem naming the file and line. The YAML parser
 * is imported here: only lazily loaded readers import this module.
 */
import { isAlias, isMap, isScalar, isSeq, type Node } from 'yaml';
import type { Problem } from '../errors.js';
import { CHECK_NAMES } from '../evidence/names.js';
import type { OutputDeclaration } from '../evidence/types.js';
import { patternProblem } from './flow/patterns.js';
import { SKILL_OUTPUTS_MAX } from '../limits.js';
import { readSkillFrontMatter } from './skill-front-matter.js';

export const OUTPUTS_EXAMPLE =
  'outputs: [{ file: 00_problem/problem.md, template: templates/problem.md, sections: [Problem, Users], checks: [placeholders, self-check] }]';
const KEYS = new Set(['file', 'template', 'sections', 'checks', 'max_clarifications']);

/** The outputs a SKILL.md declares; undefined when it declares none. */
export function parseOutputsDeclaration(
  skillText: string,
  file: string,
  checks: readonly string[] = CHECK_NAMES,
): { outputs: OutputDeclaration[] } | { problem: Problem } | undefined {
  const front = readSkillFrontMatter(skillText, file);
  if (!front || 'problem' in front) return front;
  const { map, lineAt } = front;
  const pair = map.items.find((p) => isScalar(p.key) && p.key.value === 'outputs');
  if (!pair) return undefined;
  const keyLine = lineAt(isScalar(pair.key) ? pair.key.range?.[0] : undefined);
  const problem = (line: number, message: string, received: string, expected = OUTPUTS_EXAMPLE): { problem: Problem } => ({
    problem: { file, line, message, expected, received },
  });
  const nodeLine = (node: unknown) => lineAt((node as Node | null)?.range?.[0]) || keyLine;
  const value = pair.value as Node | null;
  if (!isSeq(value)) return problem(keyLine, '`outputs` must be a list of outputs, each with its `file`', show(plain(value)));
  if (value.items.length > SKILL_OUTPUTS_MAX)
    return problem(keyLine, `\`outputs\` lists ${value.items.length} outputs`, String(value.items.length), `at most ${SKILL_OUTPUTS_MAX}`);
  const reader: Reader = { problem, nodeLine, checks };
  const outputs: OutputDeclaration[] = [];
  for (const item of value.items) {
    const read = readOutput(item, reader);
    if ('problem' in read) return read;
    outputs.push(read);
  }
  return { outputs };
}

/** What reading one output needs: the problem it makes (file, line), the line of a node, the checks autopilot knows. */
interface Reader {
  problem: (line: number, message: string, received: string, expected?: string) => { problem: Problem };
  nodeLine: (node: unknown) => number;
  checks: readonly string[];
}

type Field = { node: unknown; line: number };

/** One output: known keys only, a usable `file` pattern, then its template, sections, checks and clarification cap, each checked. */
function readOutput(item: unknown, { problem, nodeLine, checks }: Reader): OutputDeclaration | { problem: Problem } {
  const at = nodeLine(item);
  if (!isMap(item)) return problem(at, 'each output must be a map with its `file`', show(plain(item)));
  const fields = new Map<string, Field>();
  for (const p of item.items) {
    const key = isScalar(p.key) ? String(p.key.value) : show(plain(p.key));
    const line = nodeLine(p.key);
    if (!KEYS.has(key)) return problem(line, `an output has the unknown key \`${key}\``, key, `one of ${[...KEYS].join(', ')}`);
    fields.set(key, { node: p.value, line });
  }
  const fileField = fields.get('file');
  const pattern = fileField && isScalar(fileField.node) ? fileField.node.value : undefined;
  if (typeof pattern !== 'string' || pattern.trim() === '')
    return problem(fileField?.line ?? at, 'an output needs `file`: a path under the docs folder', show(plain(fileField?.node)));
  // A batch report's pattern holds `{batch}` (docs/flow-format.md, "Batches").
  const bad = patternProblem(pattern.replaceAll('{batch}', '00'));
  if (bad) return problem(fileField!.line, `the output's \`file\` is not usable: ${bad}`, pattern);
  const out: OutputDeclaration = { file: pattern, sections: [], checks: [] };
  const template = fields.get('template');
  if (template) {
    const t = isScalar(template.node) ? template.node.value : undefined;
    if (!isInsidePath(t))
      return problem(
        template.line,
        "the output's `template` must be a path inside the skill's folder, like `templates/problem.md`",
        show(plain(template.node)),
      );
    out.template = t;
  }
  for (const key of ['sections', 'checks'] as const) {
    const field = fields.get(key);
    if (!field) continue;
    const names = readNames(key, field, { problem, nodeLine, checks });
    if ('problem' in names) return names;
    out[key] = names;
  }
  const cap = fields.get('max_clarifications');
  if (cap) {
    const n = isScalar(cap.node) ? cap.node.value : undefined;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
      return problem(cap.line, '`max_clarifications` must be a whole number, 0 or more', show(plain(cap.node)), 'max_clarifications: 3');
    out.maxClarifications = n;
  }
  return out;
}

/** A relative path that stays inside the skill's folder: no leading `/` or drive, no backslash, no `..`, `.` or empty segment. */
function isInsidePath(t: unknown): t is string {
  return (
    typeof t === 'string' &&
    t.trim() !== '' &&
    !t.startsWith('/') &&
    !/^[A-Za-z]:/.test(t) &&
    !t.includes('\\') &&
    !t.split('/').some((s) => s === '..' || s === '' || s === '.')
  );
}

/** `sections` or `checks`: a list of names, trimmed; each check one autopilot knows. */
function readNames(key: 'sections' | 'checks', field: Field, { problem, checks }: Reader): string[] | { problem: Problem } {
  const list = isSeq(field.node) ? field.node.items.map((n) => (isScalar(n) ? n.value : undefined)) : undefined;
  if (!list || list.some((v) => typeof v !== 'string' || v.trim() === ''))
    return problem(
      field.line,
      `the output's \`${key}\` must be a list of names`,
      show(plain(field.node)),
      key === 'sections' ? 'sections: [Problem, Users]' : `checks: [${checks.slice(0, 3).join(', ')}]`,
    );
  const names = (list as string[]).map((s) => s.trim());
  if (key === 'checks') {
    const unknown = names.find((n) => !checks.includes(n));
    if (unknown) return problem(field.line, `the output's check \`${unknown}\` is not one autopilot knows`, unknown, `one of ${checks.join(', ')}`);
  }
  return names;
}

/** A node as shown in a message: a scalar's value, an alias by name, a collection as its YAML text (aliases are never expanded). */
const plain = (node: unknown): unknown => {
  if (node === null || node === undefined) return undefined;
  if (isScalar(node)) return node.value;
  if (isAlias(node)) return `*${node.source}`;
  try {
    return String(node);
  } catch {
    return '(a YAML value)';
  }
};
const show = (value: unknown) => {
  const text = value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value));
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
};
