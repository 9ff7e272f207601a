/**
 * Named runs driven through the built command line (docs/runs.md): a run
 * started and committed, and its steps worked as an agent works them (each
 * file `next` asks for written from its skill's template, then `done`).
 */
import { expect } from 'vitest';
import { autopilot, write } from './cli.js';
import { git } from './git.js';
import { stepEvidence } from './templates.js';

/** The `--run` words for a run (none for the default run), after the command word as a person's command needs them. */
export const runArgs = (run: string) => (run === 'default' ? [] : ['--run', run]);

/** A run's docs folder in a repository whose docs folder is `_docs`. */
export const runDocs = (run: string) => (run === 'default' ? '_docs' : `_docs/_runs/${run}`);

/** Starts a greenfield run (`init --run`) and commits what `init` wrote, as a person does. */
export function startRun(dir: string, run: string): void {
  expect(autopilot(dir, 'init', '--flow', 'greenfield', ...runArgs(run)).code).toBe(0);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', `start run ${run}`);
}

/** Writes what the step `next` handed out asks for, in the run's own folder, each file filled from its template. */
export function workStep(dir: string, run: string, doneWhen: readonly string[]): void {
  const docs = `${runDocs(run)}/`;
  // The templates are found by the path below the docs folder: asked as the default run's, written in the run's folder.
  const asked = doneWhen.map((path) => (path.startsWith(docs) ? `_docs/${path.slice(docs.length)}` : path));
  for (const [path, text] of Object.entries(stepEvidence(asked))) write(dir, `${docs}${path.slice('_docs/'.length)}`, text);
}

/** `next`, the work, `done`: one step of the run completed (its progress commit made). Answers the decision `done` stops at with `answer`. */
export function driveStep(dir: string, run: string, answer = 'B'): { step: number; name: string } {
  const next = autopilot(dir, 'next', '--json', ...runArgs(run));
  expect(next.code, next.stdout + next.stderr).toBe(0);
  const at = next.json<{ step: number; name: string; done_when: string[] }>();
  workStep(dir, run, at.done_when);
  const done = autopilot(dir, 'done', '--json', ...runArgs(run));
  if (done.code === 3) expect(autopilot(dir, 'decide', answer, ...runArgs(run)).code).toBe(0);
  else expect(done.code, done.stdout + done.stderr).toBe(0);
  return { step: at.step, name: at.name };
}
