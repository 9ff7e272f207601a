/** The flows a command works with, and what a changed flow file means for a run: shared by every command, light to load. */
import { InputError, type Problem } from '../../errors.js';
import { FLOW_FIX_HINT, setInvalidFlows } from './invalid-flows.js';
import type { Flow } from '../../formats/flow/model.js';
import { loadFlows } from '../../io/load-flows.js';
import type { Repo } from '../../io/repo.js';
import type { Loaded } from './load-state.js';

/**
 * The flows that parse. A flow file with problems is an error (exit 2, every
 * problem named) unless a run is pinned to it: the read (`loadState`) decides,
 * by `invalidFlows`.
 */
export async function loadRepoFlows(repo: Repo, writeCache: boolean): Promise<Flow[]> {
  const { flows, problems, invalid } = await loadFlows(repo, { writeCache });
  // A problem of no flow file of its own (a bad file name, a link out of the repository) stops every command, as always.
  if (problems.length > invalid.reduce((n, f) => n + f.problems.length, 0)) throw new InputError(problems, FLOW_FIX_HINT);
  if (invalid.length > 0) setInvalidFlows(flows, invalid);
  return flows;
}

/** Where a problem is: `file:line`. */
const at = (p: Problem) => `${p.file ?? ''}${p.line ? `:${p.line}` : ''}`;

/** What a changed flow file means for the run, in one sentence. */
export function flowChangeNotice(loaded: Loaded): string {
  const change = loaded.flowChange!;
  if (change.invalid) {
    const first = change.invalid[0]!;
    const more = change.invalid.length > 1 ? ` (and ${change.invalid.length - 1} more: \`autopilot check\` lists them)` : '';
    return `${at(first)}: ${first.message}${more}. The flow file no longer reads, so the run goes on with the ${loaded.flow.steps.length} steps it started with; fix the file (then \`autopilot repin\` adopts it if its steps changed)`;
  }
  return `${loaded.flow.file} changed since this run started (${change.changes.join('; ')}): the run goes on with the steps it started with; a person adopts the new file with \`autopilot repin\``;
}
