/**
 * Where a named run starts (docs/runs.md "Driving a run"). Two features of
 * one existing codebase do not each document it again: a named run of a flow
 * that loops (existing-code's New Task on) starts at its loop where the
 * repository's docs folder already holds the flow's first step's output (the
 * default run's Document output, `02_document/`), and the steps before the
 * loop are the repository's, journaled on its `run_started` with the folder
 * it reads. Elsewhere, and for the default run, a run starts at step 1.
 */
import { DEFAULT_RUN } from '../../formats/run-name.js';
import { loopStart, stepByNumber, type Flow, type Step } from '../../formats/flow/model.js';
import { findMatches } from '../../io/find-matches.js';
import type { Repo } from '../../io/repo.js';

/** A named run's start on the repository's own output: the step it starts at, the steps that are the repository's, the folder it reads. */
export interface RepositoryStart {
  start: Step;
  /** `run_started`'s `repository`: the folder read (as the agent names it) and the steps it stands for. */
  repository: { read: string; steps: number[] };
}

/** The folder a pattern of the docs folder lies in (`02_document/architecture.md` → `02_document/`), or the pattern itself. */
const folderOf = (pattern: string) => (pattern.includes('/') ? `${pattern.slice(0, pattern.lastIndexOf('/'))}/` : pattern);

/** Where the named run `repo.run` of `flow` starts on the repository's output; undefined where it starts at step 1. */
export function repositoryStart(repo: Repo, flow: Flow): RepositoryStart | undefined {
  const to = loopStart(flow);
  const first = flow.steps[0];
  if (repo.run === DEFAULT_RUN || to === undefined || to <= 1 || !first || first.doneWhen.length === 0) return undefined;
  // A pattern per cycle is a run's own work, never the repository's.
  if (first.doneWhen.some((p) => p.includes('{cycle}'))) return undefined;
  if (!first.doneWhen.every((p) => findMatches(repo.repoDocs, p, 1).length > 0)) return undefined;
  const read = [...new Set(first.doneWhen.map((p) => `${repo.repoDocsName}/${folderOf(p)}`))].join(', ');
  const steps = flow.steps.filter((s) => s.number < to).map((s) => s.number);
  return { start: stepByNumber(flow, to)!, repository: { read, steps } };
}
