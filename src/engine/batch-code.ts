/**
 * A batch changes the code (docs/state-and-journal.md, "Batches"; issue 29,
 * point 5). A batch's `done` needs a file outside the docs folder (and
 * outside `.autopilot/`, autopilot's own settings) changed since the batch
 * began, as git sees the work tree against the snapshot `batch_started`
 * recorded. The refusal names, task by task, the files its task file lists
 * under `## Touches` that did not change; a batch that passes with such
 * files unchanged says so in a notice. Where the check cannot see the work
 * tree (no git, no snapshot of the batch's start), the batch is judged on
 * its report alone, and that is said and journaled, never refused blindly.
 * Pure: what the shell saw in, findings and sentences out.
 */
import { findSection, linesOf, withoutComments } from '../evidence/markdown.js';
import type { Finding } from '../evidence/types.js';

/** A task of the batch and the paths its task file names under Touches. */
export interface TaskTouches {
  task: string;
  paths: string[];
}

/** What the shell saw of the work tree for a batch's `done`: the docs folder's name, and each task's Touches paths. */
export type CodeFacts = { docs: string; touches: TaskTouches[] } & (
  | /** Seen: `changed`, the paths (from the repository root) changed since the batch began, outside the docs folder and `.autopilot/`. */
    { seen: true; changed: string[] }
    /** Not seen, and why (`not a git repository`, no snapshot taken as the batch began, the snapshot pruned). */
  | { seen: false; why: string }
);

/** Whether a path (from the repository root) is code for this check: outside the docs folder and autopilot's own settings. */
export function isCode(path: string, docsName: string): boolean {
  return !path.startsWith(`${docsName}/`) && !path.startsWith('.autopilot/');
}

/** A path: segments of name characters split by `/` (a trailing `/` for a folder). */
const PATH = /^(?:[\w.@-]+\/)*[\w.@-]+\/?$/;
/** A last segment with an extension whose stem holds a letter (`config.js`, `app.py`; not `1.5`, not `e.g`). */
const WITH_EXTENSION = /(?:^|\/)[\w@-]*[A-Za-z][\w.@-]*\.[A-Za-z0-9]{1,8}$/;

/** Whether a word of a Touches section names a file or folder: in backticks, any path with a `/` or an extension; bare, one with an extension or ending in `/`. */
function namesPath(word: string, quoted: boolean): boolean {
  if (!PATH.test(word) || word.includes('..') || /^[a-z]\.[a-z]$/i.test(word)) return false;
  if (WITH_EXTENSION.test(word) || (word.endsWith('/') && word.length > 1)) return true;
  return quoted && word.includes('/');
}

/**
 * The paths a task file names under `## Touches`: each word, in backticks or
 * bare, that reads as a path (`src/config.js`, `lib/`, `app.py`), without
 * the punctuation around it; comments left out; each once, in order.
 */
export function touchesOf(text: string): string[] {
  const section = findSection(withoutComments(linesOf(text)), 'Touches');
  if (!section) return [];
  const paths: string[] = [];
  for (const line of section.lines) {
    if (line.code) continue;
    for (const m of line.text.matchAll(/`([^`]+)`|(\S+)/g)) {
      const quoted = m[1] !== undefined;
      const word = (m[1] ?? m[2]!)
        .trim()
        .replace(/^[("'[*_]+|[)"'\],;:.!?*_]+$/g, '')
        .replace(/^\.\//, '');
      if (namesPath(word, quoted) && !paths.includes(word)) paths.push(word);
    }
  }
  return paths;
}

/** The Touches paths of each task that no change touched (a folder counts when anything under it changed). */
export function untouched(touches: readonly TaskTouches[], changed: readonly string[]): TaskTouches[] {
  const hit = (path: string) => {
    const folder = path.replace(/\/+$/, '');
    return changed.some((c) => c === folder || c.startsWith(`${folder}/`));
  };
  return touches.map((t) => ({ task: t.task, paths: t.paths.filter((p) => !hit(p)) })).filter((t) => t.paths.length > 0);
}

/** `01 names src/a.js, src/b.js under Touches; 02 names …`. */
const namesOf = (tasks: readonly TaskTouches[]) => tasks.map((t) => `${t.task} names ${t.paths.join(', ')} under Touches`).join('; ');

/** The finding when a batch's `done` comes with no code changed since it began; none when code changed or the work tree was not seen. */
export function judgeCodeChange(code: CodeFacts | undefined, batch: number, tasks: readonly string[], report: string): Finding[] {
  if (!code?.seen || code.changed.length > 0) return [];
  const unchanged = untouched(code.touches, code.changed);
  return [
    {
      check: 'code-change',
      file: report,
      message: `nothing outside ${code.docs}/ changed since batch ${batch} began (the work tree as git sees it, against its snapshot then): a batch's tasks change the code`,
      write: `the code and tests of tasks ${tasks.join(', ')}${unchanged.length > 0 ? ` (${namesOf(unchanged)}, unchanged)` : ''}, then \`autopilot done\` again`,
    },
  ];
}

/** What a batch recorded done says of the code check: that it could not see, or the Touches files that did not change. */
export function codeNotice(code: CodeFacts | undefined, batch: number): string | undefined {
  if (!code) return undefined;
  if (!code.seen)
    return `${code.why}: the check that batch ${batch} changed code could not see the work tree, so the batch was judged on its report alone (journaled as \`code_unseen\`)`;
  const unchanged = untouched(code.touches, code.changed);
  return unchanged.length > 0 ? `batch ${batch} is done, but ${namesOf(unchanged)}, and ${unchanged.length === 1 ? 'it' : 'they'} did not change` : undefined;
}
