/**
 * The skills' templates filled as their skills say (issue 23): every
 * `{{ … }}` replaced by what it asks for, every Self-check box ticked. A
 * placeholder that asks for a value of a fixed shape (a task id, points, an
 * `AC-` id, an exit code, totals) gets one of that shape; any other gets a
 * sentence of its own. The walks and the skills' test write evidence with it
 * that the engine's judges accept.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './engine.js';

/**
 * The command a filled Result names, as `autopilot exec` prints it, and the
 * words to run it with (`autopilot exec -- ...FILLED_ARGV`): it prints the
 * totals the Result gives, and needs no quoting, so the two read alike.
 */
export const FILLED_ARGV = ['echo', '12', 'passed,', '0', 'failed'];
export const FILLED_COMMAND = FILLED_ARGV.join(' ');
export const FILLED_TOTALS = { passed: 12, failed: 0 };

/** What a placeholder of a fixed shape is filled with, by the words it asks with. */
const SHAPED: [RegExp, string][] = [
  [/^task ids$/, '01'],
  [/^task id$/, '01'],
  [/^points$/, '3'],
  [/^batch$/, '1'],
  [/^depends on$/, '—'],
  [/^ac id$/, 'AC-01'],
  [/^case id/, 'TC-001'],
  [/^exit code$/, '0'],
  [/^totals$/, `${FILLED_TOTALS.passed} passed, ${FILLED_TOTALS.failed} failed`],
  [/^command$|run through autopilot exec$/, FILLED_COMMAND],
  [/^round number/, '01'],
  [/^cycle number$/, '1'],
  [/^count$/, '2'],
];

/** A template's text with every placeholder filled and every box ticked. */
export function fillTemplate(template: string): string {
  let n = 0;
  return template
    .replace(/\{\{\s*([^{}]*?)\s*\}\}/g, (_, asked: string) => {
      const key = asked.toLowerCase();
      const shaped = SHAPED.find(([pattern]) => pattern.test(key));
      if (shaped) return shaped[1];
      n += 1;
      return `Answer ${n} holds this project's own words about ${key.split(/[,;:(]/)[0]!.trim()}`;
    })
    .replace(/^(\s*[-*] )\[ \]/gm, '$1[x]');
}

/** A skill's template, filled. */
export function filledTemplate(skill: string, template: string): string {
  return fillTemplate(readFileSync(join(ROOT, 'skills', skill, template), 'utf8'));
}

/** Each built-in skill's declared outputs, `file` → `template`, read from its front matter's plain lines. */
function declaredTemplates(): { skill: string; file: string; template: string }[] {
  return readdirSync(join(ROOT, 'skills')).flatMap((skill) => {
    const text = readFileSync(join(ROOT, 'skills', skill, 'SKILL.md'), 'utf8');
    const front = text.slice(0, text.indexOf('\n---', 3));
    return [...front.matchAll(/^ {2}- file: (\S+)\n {4}template: (\S+)$/gm)].map((m) => ({ skill, file: m[1]!, template: m[2]! }));
  });
}

const patternRegExp = (pattern: string) => new RegExp(`^${pattern.replace(/[.]/g, '\\.').replace('{cycle}', '\\d+').replace(/\*/g, '[^/]*')}$`);

/**
 * The files that prove a Done-when file (relative to the docs folder, `*` and
 * `{cycle}` already filled) as its skill says: the file itself, its template
 * filled, and for a task index the task file beside it. Name the skill when
 * two declare the file (`02_document/architecture.md`: plan and document).
 * For a report whose Result the engine holds to a recorded run, run
 * `autopilot exec -- ...FILLED_ARGV` in the same attempt.
 */
export function filledEvidence(file: string, skill?: string): Record<string, string> {
  const found = declaredTemplates().filter((d) => patternRegExp(d.file).test(file) && (skill === undefined || d.skill === skill));
  const skills = [...new Set(found.map((d) => d.skill))];
  if (skills.length !== 1) throw new Error(skills.length === 0 ? `no skill declares ${file}` : `${skills.join(' and ')} declare ${file}: name the skill`);
  const declared = found[0]!;
  const files: Record<string, string> = { [file]: filledTemplate(declared.skill, declared.template) };
  if (file.endsWith('/_index.md')) files[file.replace(/_index\.md$/, '01_first_task.md')] = filledTemplate('decompose', 'templates/task.md');
  return files;
}
