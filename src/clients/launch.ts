/**
 * How every client starts autopilot (docs/sessions.md, "Calling the command
 * line"): the binary named directly, never through `npx` (a start of its own
 * on every call, and a download where the package is missing): the installed
 * `node_modules/.bin/autopilot`, found from any folder of the project, or
 * `node` with the absolute path of the running `bin/autopilot.js` (a checkout
 * used from elsewhere).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_BIN, PACKAGE_NAMES, type Launch, type Token } from './client.js';

/** Finds the project's installed binary from any folder below it: the nearest `node_modules/.bin/autopilot` above. */
const FIND_BIN = `d=$PWD; while [ ! -x "$d/${AGENT_BIN}" ] && [ "$d" != / ]; do d=$(dirname "$d"); done; exec "$d/${AGENT_BIN}"`;

/** The package runners an agent may reach for instead of the binary, each run the project's installed autopilot. */
const RUNNERS: readonly (readonly Token[])[] = [
  ['npx', PACKAGE_NAMES],
  ['npx', ['--no', '--no-install', '--yes', '-y', '--offline'], PACKAGE_NAMES],
  [['npm', 'pnpm'], 'exec', PACKAGE_NAMES],
  [['npm', 'pnpm'], 'exec', '--', PACKAGE_NAMES],
  [['yarn', 'pnpm'], PACKAGE_NAMES],
];

const quote = (word: string) => (/^[\w./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);

/** The installed binary, found from any folder of the project. */
function installed(): Launch {
  return {
    bin: AGENT_BIN,
    words: [AGENT_BIN],
    // The binary from the project's root, or by name where the shell finds it on its PATH.
    spellings: [[[AGENT_BIN, `./${AGENT_BIN}`, 'autopilot']], ...RUNNERS],
    mcp: { command: 'sh', args: ['-c', `${FIND_BIN} mcp`] },
    // A client that names the folder it started in (where it read these settings) gives the root; else the binary is found.
    hook: (event, rootEnv) => (rootEnv === undefined ? `${FIND_BIN} hook ${event}` : `"$${rootEnv}"/${AGENT_BIN} hook ${event}`),
  };
}

/** This copy of autopilot, by its absolute path. */
function byPath(script: string): Launch {
  const line = (event: string) => ['node', script, 'hook', event].map(quote).join(' ');
  return {
    bin: `node ${quote(script)}`,
    words: ['node', script],
    // The script runs by itself too (it starts with `#!/usr/bin/env node`).
    spellings: [['node', script], [script], ...RUNNERS],
    mcp: { command: 'node', args: [script, 'mcp'] },
    hook: line,
  };
}

/** `root`: the repository; `script`: the running `bin/autopilot.js`, used where the project has no installed binary. */
export function launchOf(root: string, script: string): Launch {
  return existsSync(join(root, AGENT_BIN)) ? installed() : byPath(script);
}

/** Both ways a file may call autopilot, whichever `init` wrote it with (what `uninstall` recognises). */
export const everyLaunch = (script: string): Launch[] => [installed(), byPath(script)];
