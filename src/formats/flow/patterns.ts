/** What a path pattern in a flow may be: checked when the flow is read, so detection never walks a tree. */
import { CYCLE_PLACEHOLDER, DOCS_PLACEHOLDER } from './model.js';

/**
 * Alternatives within one segment, as picomatch reads them: `*.{py,go}`,
 * `{src,lib}`. Not nested, no `/`, no empty alternative. A comma tells them
 * from a placeholder.
 */
const ALTERNATIVES = /\{[^{}/,]+(?:,[^{}/,]+)+\}/g;

/**
 * Returns what is wrong with a pattern, or undefined. Patterns are relative,
 * stay inside their folder, and use globs within a path segment only (`*`,
 * `?`, `[ab]`, `{a,b}`): `**` would make every call walk the folder tree.
 */
export function patternProblem(pattern: string, allowDocs = false): string | undefined {
  if (pattern.trim() === '') return 'the pattern is empty';
  if (pattern.startsWith('/') || /^[A-Za-z]:/.test(pattern)) return 'the pattern is absolute; patterns are relative';
  if (pattern.includes('\\')) return 'the pattern uses `\\`; separate folders with `/`';
  const segments = pattern.replace(/\/$/, '').split('/');
  if (segments.some((s) => s === '..')) return 'the pattern leaves its folder with `..`';
  if (segments.some((s) => s === '' || s === '.')) return 'the pattern has an empty or `.` segment';
  if (pattern.includes('**')) return '`**` would walk the whole tree on every call; name the folder, e.g. `02_tasks/*.md`';
  const placeholders = pattern.replace(ALTERNATIVES, '').match(/\{[^}]*\}/g) ?? [];
  for (const p of placeholders) {
    if (p === CYCLE_PLACEHOLDER) continue;
    if (allowDocs && p === DOCS_PLACEHOLDER) continue;
    if (p.includes(','))
      return `\`${p}\` is not a list of alternatives autopilot can use: write \`{a,b}\` within one segment, with no empty or nested alternative`;
    return `\`${p}\` is not a placeholder autopilot knows (${allowDocs ? '`{docs}`, ' : ''}\`{cycle}\`)`;
  }
  if (allowDocs && pattern.includes(DOCS_PLACEHOLDER) && !pattern.startsWith(DOCS_PLACEHOLDER)) return '`{docs}` may only start a pattern';
  return undefined;
}
