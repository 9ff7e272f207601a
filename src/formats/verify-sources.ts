/**
 * What the project's test command runs that the repository holds (issue 29,
 * point 4), so a run can pin it with the command: the package.json scripts
 * it runs (`npm test` runs `scripts.pretest`, `scripts.test` and
 * `scripts.posttest`), a Makefile target's rule (and its prerequisites'),
 * and the script files these run by name (`./run-tests.sh`, `bash
 * scripts/test.sh`, `node tools/test.js`; not a runner's arguments, such as
 * the test files of `node --test test/a.test.js`, which a step may edit).
 * Each piece is named (`package.json scripts.test`, `Makefile test:`,
 * `scripts/test.sh`) and kept as a sha1, or null where it is absent. Pure:
 * the caller hands in the repository's files.
 */
import { shellWords } from '../evidence/exit-code.js';
import { hashText } from '../hash.js';

/** The text of a regular file inside the repository by its repository-relative path, or undefined. */
export type ReadRepoFile = (path: string) => string | undefined;

/** Each piece the command runs, by name: its sha1, or null where it is absent. */
export type VerifySources = Record<string, string | null>;

const MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
const INTERPRETERS = new Set(['node', 'bash', 'sh', 'zsh', 'python', 'python3', 'ruby', 'perl', 'php', 'deno']);
const SEPARATORS = new Set(['&&', '||', ';', '|', '&']);
/** How deep a script that runs another is followed: `npm test` → `npm run unit` → its files. */
const MAX_DEPTH = 3;

/** The command's pieces the repository holds, each hashed. */
export function verifySources(command: string, read: ReadRepoFile): VerifySources {
  const sources: VerifySources = {};
  const scripts = packageScripts(read);
  const makefile = ['GNUmakefile', 'makefile', 'Makefile'].find((name) => read(name) !== undefined);
  const visit = (line: string, depth: number) => {
    if (depth > MAX_DEPTH) return;
    for (const segment of segments(line)) {
      const [program, ...args] = segment;
      if (program === undefined) continue;
      if (MANAGERS.has(program)) {
        const name = scriptName(program, args);
        if (!name) continue;
        for (const key of [`pre${name}`, name, `post${name}`]) {
          const script = scripts?.[key];
          const id = `package.json scripts.${key}`;
          if (Object.hasOwn(sources, id)) continue;
          sources[id] = typeof script === 'string' ? hashText(script) : null;
          if (typeof script === 'string') visit(script, depth + 1);
        }
      } else if (program === 'make' && makefile) {
        const targets = args.filter((a) => !a.startsWith('-') && !a.includes('='));
        for (const target of targets) makeRule(read(makefile)!, makefile, target, sources, depth);
      } else {
        const file = runsFile(program, args);
        const path = file && inside(file);
        if (path && !Object.hasOwn(sources, path)) {
          const text = read(path);
          if (text !== undefined) sources[path] = hashText(text);
        }
      }
    }
  };
  visit(command, 0);
  return sources;
}

/** The pieces that differ between the pinned sources and those of now, in words. */
export function sourceChanges(pinned: VerifySources, now: VerifySources): string[] {
  const changes: string[] = [];
  for (const key of [...new Set([...Object.keys(pinned), ...Object.keys(now)])].sort()) {
    const was = pinned[key] ?? null;
    const is = now[key] ?? null;
    if (was === is) continue;
    changes.push(was === null ? `${key} is new` : is === null ? `${key} is gone` : `${key} changed`);
  }
  return changes;
}

function packageScripts(read: ReadRepoFile): Record<string, unknown> | undefined {
  const text = read('package.json');
  if (text === undefined) return undefined;
  try {
    const scripts = (JSON.parse(text) as { scripts?: unknown } | null)?.scripts;
    return typeof scripts === 'object' && scripts !== null ? (scripts as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The command's words in segments, one a simple command (split at `&&`, `||`, `;`, `|`), leading `VAR=value` and `env` left out. */
function segments(line: string): string[][] {
  const words = shellWords(line) ?? line.split(/\s+/);
  const out: string[][] = [[]];
  for (const word of words) {
    if (SEPARATORS.has(word)) out.push([]);
    else out.at(-1)!.push(word);
  }
  return out.map((segment) => {
    let i = 0;
    while (i < segment.length && (/^[A-Za-z_]\w*=/.test(segment[i]!) || segment[i] === 'env')) i++;
    return segment.slice(i);
  });
}

/** The package script a manager's command runs: `npm test`, `npm t`, `npm run unit`, `yarn unit`, `pnpm test`. */
function scriptName(manager: string, args: string[]): string | undefined {
  const words = args.filter((a) => !a.startsWith('-'));
  const [first, second] = words;
  if (first === undefined) return undefined;
  if (first === 'test' || first === 't' || first === 'tst') return 'test';
  if (first === 'run' || first === 'run-script') return second;
  return manager === 'npm' ? undefined : first;
}

/** The file a command runs by name: the program itself when it is a path, or an interpreter's script (its first word, not an option). */
function runsFile(program: string, args: string[]): string | undefined {
  if (program.includes('/')) return program;
  const base = program.split('/').at(-1)!;
  if (!INTERPRETERS.has(base)) return undefined;
  const first = args[0];
  return first !== undefined && !first.startsWith('-') ? first : undefined;
}

/** A repository-relative path, or undefined for one that leaves the repository. */
function inside(path: string): string | undefined {
  const clean = path.replace(/^(\.\/)+/, '');
  if (clean === '' || clean.startsWith('/') || clean.split('/').includes('..')) return undefined;
  return clean;
}

/** A Makefile target's rule (its line and its recipe), pinned as `Makefile test:`; its prerequisites' rules too. */
function makeRule(text: string, file: string, target: string, sources: VerifySources, depth: number): void {
  const id = `${file} ${target}:`;
  if (Object.hasOwn(sources, id) || depth > MAX_DEPTH) return;
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => new RegExp(`^${target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*:(?!=)`).test(l));
  if (start < 0) {
    sources[id] = null;
    return;
  }
  let end = start + 1;
  while (end < lines.length && (lines[end]!.startsWith('\t') || (lines[end]!.trim() === '' && lines[end + 1]?.startsWith('\t')))) end++;
  sources[id] = hashText(lines.slice(start, end).join('\n'));
  const prerequisites = lines[start]!.slice(lines[start]!.indexOf(':') + 1).split(/[\s|;]+/);
  for (const p of prerequisites) if (/^[\w./-]+$/.test(p)) makeRule(text, file, p, sources, depth + 1);
}
