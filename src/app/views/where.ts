/**
 * What the command line says about where it works and how to call it again,
 * beside every answer: the repository's root when it is not the folder the
 * command started in (`-C DIR`, or the current one), and the launch its hints
 * name (`run \`autopilot next\``) where a bare `autopilot` would not run this
 * copy. Neither ever fails a command: a folder that cannot be read is the
 * command's own error to give.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { delimiter, join, relative, resolve } from 'node:path';
import { AGENT_BIN } from '../../clients/client.js';
import { packageRoot } from '../../io/package-root.js';
import { DEFAULT_DOCS, findRoot, holdsDocs, isInside, type RepoOptions, type RootMark } from '../../io/repo.js';

/** The root a command works in, when it is not where it started, and what made it the root. */
export interface RootElsewhere {
  root: string;
  mark: RootMark;
}

/** Where the command started: `-C DIR`, or the current folder. */
const startOf = (options: RepoOptions, cwd: string) => resolve(cwd, options.dir ?? '.');

/** The root found from the starting folder, as `openRepo` finds it; undefined when that is the starting folder itself, or cannot be told. */
export function rootElsewhere(options: RepoOptions, cwd = process.cwd(), env: NodeJS.ProcessEnv = process.env): RootElsewhere | undefined {
  try {
    const start = startOf(options, cwd);
    if (!statSync(start, { throwIfNoEntry: false })?.isDirectory()) return undefined;
    const docs = (options.docs ?? DEFAULT_DOCS).replace(/[\\/]+$/, '') || DEFAULT_DOCS;
    if (holdsDocs(start, docs)) return undefined; // the root is where the command started
    const found = findRoot(start, docs, env);
    if (!found.mark) return undefined;
    const root = realpathSync.native(found.root);
    return root === realpathSync.native(start) ? undefined : { root, mark: found.mark };
  } catch {
    return undefined;
  }
}

const MARK_SAID: Record<RootMark, (docs: string) => string> = {
  '.git': () => 'the git repository (.git)',
  '.autopilot': () => '.autopilot/',
  pointer: (docs) => `${docs}/_autopilot_state.md`,
  journal: (docs) => `${docs}/_autopilot/journal.jsonl`,
  docs: (docs) => `${docs}/`,
};

/** The line that names the root: `autopilot works in /repo, the folder above that holds .git (…)`. */
export function rootLine(found: RootElsewhere, options: RepoOptions): string {
  const docs = (options.docs ?? DEFAULT_DOCS).replace(/[\\/]+$/, '') || DEFAULT_DOCS;
  return `autopilot works in ${found.root}, the nearest folder above that holds ${MARK_SAID[found.mark](docs)} (\`-C DIR\` names another).`;
}

/**
 * The first `name` on PATH, as a person's shell would find it; undefined when
 * none is there. A `node_modules/.bin` folder is passed over: npm and npx put
 * the project's on PATH for the command they run, not for the person's shell.
 */
function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '' || /(^|[\\/])node_modules[\\/]\.bin[\\/]?$/.test(dir)) continue;
    const file = join(dir, name);
    if (existsSync(file)) return file;
  }
  return undefined;
}

const realOr = (path: string) => {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
};

const quoted = (word: string) => (/^[\w./@-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);

/** The form of `npx` that hands every option to autopilot (`npx --no autopilot --version` is npm's version; `-C` is npm's too). */
export const NPX_LAUNCH = 'npx --no -- autopilot';

/**
 * How to run autopilot again in this project, as a hint names it:
 * - `autopilot` where that name on PATH is this very copy (a global install;
 *   not a `node_modules/.bin` that npx put there);
 * - the project's installed binary: `node_modules/.bin/autopilot` from the
 *   root (the form the agents' files use), `npx --no -- autopilot` from
 *   anywhere else in it;
 * - else this copy by its path, `node bin/autopilot.js` (relative where it is
 *   below the current folder).
 */
export function hintLaunch(options: RepoOptions, cwd = process.cwd(), env: NodeJS.ProcessEnv = process.env): string {
  const script = join(packageRoot(), 'bin', 'autopilot.js');
  const named = onPath('autopilot', env);
  if (named && realOr(named) === realOr(script)) return 'autopilot';
  const root = rootElsewhere(options, cwd, env)?.root ?? realOr(startOf(options, cwd));
  if (existsSync(join(root, AGENT_BIN))) return realOr(cwd) === root ? AGENT_BIN : NPX_LAUNCH;
  return `node ${quoted(isInside(cwd, script) ? relative(cwd, script) : script)}`;
}
