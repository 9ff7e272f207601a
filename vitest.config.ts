import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Five projects, so a developer runs the fast one alone (`npm run test:unit`,
 * in process, no build) and `npm test` runs them all:
 * - unit: the pure rules, the file formats and the command layer in process;
 * - e2e: the built CLI and real git in temporary repositories;
 * - faults: kills, races and leases with real processes;
 * - fuzz: a bounded fuzz run;
 * - agents: autopilot under the real Claude Code and Codex CLIs, against scripted models;
 * - facts: what those clients do that autopilot relies on (docs/claude-code-facts.md,
 *   docs/codex-facts.md); run when a client is upgraded (`npm run test:facts`), not by `npm test`.
 */
/** A command that ran outside its test repository fails its test file and the run (test/tmp-guard.ts). */
export const TMP_GUARD = { globalSetup: ['test/tmp-guard.ts'], setupFiles: ['test/tmp-guard-file.ts'] };
const built = { globalSetup: [...TMP_GUARD.globalSetup, 'test/global-setup.ts'], setupFiles: TMP_GUARD.setupFiles };

export default defineConfig({
  test: {
    // End-to-end tests spawn the built CLI and real git; give slow CI machines room.
    testTimeout: 30_000,
    // Two files at a time on two cores: most of a test's time is its child processes (the CLI, git, the agent
    // clients) and their waits, so a second file uses what the first leaves idle.
    maxWorkers: 2,
    hookTimeout: 30_000,
    // Test repositories are folders of the system's temporary folder: neither autopilot nor git looks above
    // it for a root, so a stray `_docs/` or `.git` there (another program's) is never every test's root.
    // `autopilot` on PATH is this copy (test/path/autopilot links to bin/autopilot.js), as after a global install: the
    // hints every test reads say `autopilot next` as they would there (test/e2e/newcomer.test.ts runs without it).
    env: { GIT_CEILING_DIRECTORIES: realpathSync(tmpdir()), PATH: `${join(import.meta.dirname, 'test', 'path')}${delimiter}${process.env.PATH ?? ''}` },
    projects: [
      // One module graph a worker, not one a file: the unit files import the same sources (the engine, the formats, the
      // command layer), and re-importing them for each of 90-odd files was most of the run. Safe because they share no
      // state but what they restore: fake clocks are put back after each test, and the run passes in shuffled orders.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false, ...TMP_GUARD } },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts', 'test/git/**/*.test.ts'], ...built } },
      { extends: true, test: { name: 'faults', include: ['test/faults/**/*.test.ts'], ...built } },
      // Alone, after the others: its promise is a time per case (under a second), which another file's processes would blur.
      { extends: true, test: { name: 'fuzz', include: ['test/fuzz/**/*.test.ts'], sequence: { groupOrder: 1 }, ...built } },
      // A real agent client starts in seconds (Node reading a 13 MB bundle) and takes several model turns a test.
      { extends: true, test: { name: 'agents', include: ['test/agents/*.test.ts'], testTimeout: 180_000, ...built } },
      { extends: true, test: { name: 'facts', include: ['test/agents/facts/*.test.ts'], ...built } },
    ],
  },
});
