/**
 * A code step needs a work tree of its own (docs/runs.md, "Commits,
 * worktrees and merging back"). Runs may share a work tree for their
 * document steps: each run's files sit in its own folder, and its commit
 * holds only them. Code sits outside the docs folder, where nothing says
 * which run wrote it: a run's code step starting where another run is
 * mid-step with uncommitted code would take that code into its evidence
 * (a test run sees it) and its commit. So such a start is refused (exit 2,
 * nothing written), with the `git worktree add` line that gives the run a
 * work tree of its own.
 *
 * Precisely: a step (or a batch) starts, another run of the repository has
 * a step in progress (its pointer says `in_progress`), one of the two is a
 * code step (it walks a task index in batches, or an output its skill
 * declares holds a test run), and the work tree holds, outside the
 * repository's docs folder, changes HEAD does not (modified, staged, deleted,
 * untracked and not ignored). The other way round matters too: a document
 * step's commit holds the code changed during it. Costs a `readdir` of
 * `<docs>/_runs/` as a step starts, the other runs' pointers where there are
 * some, and one `git status` only where one of the two is a code step.
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Transition } from '../../engine/transitions.js';
import { InputError } from '../../errors.js';
import { stepByNumber, type Step } from '../../formats/flow/model.js';
import { parsePointer } from '../../formats/pointer/parse-pointer.js';
import { DEFAULT_RUN } from '../../formats/run-name.js';
import { checksOf } from '../../evidence/index.js';
import { listRuns, runDocsFolder } from '../../io/run.js';
import { displayPath, type Repo } from '../../io/repo.js';
import { openGitOnce } from '../git/once.js';
import type { Loaded } from '../transaction/load-state.js';
import type { OutputsOf } from './run.js';

/** Whether a step's evidence rests on code: it walks a task index in batches, or an output it declares holds a test run. */
export async function isCodeStep(repo: Repo, step: Step, outputsOf: OutputsOf): Promise<boolean> {
  if (step.batches) return true;
  const declared = await outputsOf(repo, step.skill);
  return declared?.outputs.some((o) => checksOf(o).includes('exit-code')) ?? false;
}

/**
 * Refuses, before anything is written, a step that would share uncommitted
 * code with another run's step (exit 2): a code step where another run is
 * mid-step, or any step where another run is mid-way through a code step,
 * while the work tree holds changes outside the docs folder HEAD does not.
 */
export async function ownTreeForCode(loaded: Loaded, transition: Transition, outputsOf: OutputsOf): Promise<void> {
  const { repo, flow } = loaded;
  const start = transition.entries.find((e) => e.event === 'step_started' || e.event === 'batch_started');
  const step = start && typeof start.step === 'number' ? stepByNumber(flow, start.step) : undefined;
  if (!step) return;
  const others = othersInProgress(loaded);
  if (others.length === 0) return;
  const code = await isCodeStep(repo, step, outputsOf);
  const blocking: string[] = [];
  for (const other of others) if (code || (other.step && (await isCodeStep(repo, other.step, outputsOf)))) blocking.push(other.label);
  if (blocking.length === 0) return;
  const opened = await openGitOnce(repo);
  if (!opened.handle) return;
  const { changedOutsideDocs } = await import('../../git/outside-docs.js');
  const changed = await changedOutsideDocs(opened.handle, displayPath(repo.repoDocs, repo.root));
  if (changed.length === 0) return;
  const why = code ? 'works on code' : "shares the work tree with another run's code step";
  throw sharedTreeError(repo, `step ${step.number} ${step.name} ${why}`, blocking, changed, basename(opened.handle.top));
}

/** The other runs whose pointer says a step is in progress: `run login (step 6 Implement)`, and that step where its flow is known. */
function othersInProgress(loaded: Loaded): { label: string; step?: Step }[] {
  const { repo, flows } = loaded;
  const busy: { label: string; step?: Step }[] = [];
  for (const run of listRuns(repo.repoDocs)) {
    if (run === repo.run) continue;
    const file = join(runDocsFolder(repo.repoDocs, run), '_autopilot_state.md');
    try {
      const { position } = parsePointer(readFileSync(file, 'utf8'), displayPath(file, repo.root));
      if (position.status !== 'in_progress' || typeof position.step !== 'number') continue;
      const theirs = flows.find((f) => f.id === position.flow);
      const label = `${run === DEFAULT_RUN ? 'the default run' : `run ${run}`} (step ${position.step} ${position.name})`;
      busy.push({ label, step: theirs ? stepByNumber(theirs, position.step) : undefined });
    } catch {
      // A pointer that does not read: that run's own commands say so.
    }
  }
  return busy;
}

/** Exit 2: which run is mid-step, what code lies uncommitted, and the `git worktree add` line that gives this run a work tree of its own. */
function sharedTreeError(repo: Repo, step: string, others: string[], changed: string[], top: string): InputError {
  const named = repo.run !== DEFAULT_RUN;
  const tree = `../${top}-${repo.run}`;
  const add = `git worktree add ${tree} -b autopilot/${repo.run}`;
  const go = `cd ${tree} && autopilot ${named ? `--run ${repo.run} ` : ''}next`;
  return new InputError(
    {
      message: `${step}, and needs a work tree of its own: ${others.join(', ')} ${others.length === 1 ? 'has a step' : 'have steps'} in progress here, and the work tree holds changes outside ${displayPath(repo.repoDocs, repo.root)}/ that HEAD does not (${changed.join(', ')}); this step's commit (and its test runs) would take them in. Nothing was written`,
      expected: `a work tree where no other run is mid-step with uncommitted code: \`${add}\`, then \`${go}\``,
      received: changed.join(', '),
    },
    `Give this run a work tree of its own: \`${add}\`, then \`${go}\` (commit or finish the other run's step first if this run's branch needs its code). Document steps may share a work tree.`,
  );
}
