/** The flows a command works with, and what a changed flow file means for a run: shared by every command, light to load. */
import { InputError } from '../errors.js';
import type { Flow } from '../flow/model.js';
import { loadFlows } from '../io/load-flows.js';
import type { Repo } from '../io/repo.js';
import type { Loaded } from './load-state.js';

export async function loadRepoFlows(repo: Repo, writeCache: boolean): Promise<Flow[]> {
  const { flows, problems } = await loadFlows(repo, { writeCache });
  if (problems.length > 0) throw new InputError(problems, 'Fix the flow file(s) named above; `autopilot check` lists every problem.');
  return flows;
}

/** What a changed flow file means for the run, in one sentence. */
export function flowChangeNotice(loaded: Loaded): string {
  const change = loaded.flowChange!;
  return `${loaded.flow.file} changed since this run started (${change.changes.join('; ') || 'no step changed'}): the run goes on with the steps it started with; a person adopts the new file with \`autopilot repin\``;
}
