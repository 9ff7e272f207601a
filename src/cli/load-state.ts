/**
 * The read half of every command: repository, flows, pointer, evidence, and
 * the reconciled position. Nothing here writes (the flow cache aside, when asked).
 */
import { readFileSync } from 'node:fs';
import type { Evidence } from '../engine/evidence.js';
import { locate, type Reconciled } from '../engine/reconcile.js';
import { InputError } from '../errors.js';
import { stepByNumber, type Flow } from '../flow/model.js';
import { detectFlow, diskCycle, gatherEvidence } from '../io/gather-evidence.js';
import { loadFlows } from '../io/load-flows.js';
import { displayPath, openRepo, type Repo, type RepoOptions } from '../io/repo.js';
import { parsePointer, type ParsedPointer } from '../state/parse-pointer.js';

export interface Loaded {
  repo: Repo;
  flows: Flow[];
  flow: Flow;
  pointer: ParsedPointer | null;
  evidence: Evidence;
  reconciled: Reconciled;
}

export function readPointerText(repo: Repo): string | null {
  try {
    return readFileSync(repo.pointerFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

export function recoveryHint(repo: Repo): string {
  const file = displayPath(repo.pointerFile, repo.root);
  const git = repo.root === process.cwd() ? 'git' : `git -C ${repo.root}`;
  return [
    `${file} was left exactly as it is. To recover, either:`,
    '  - correct the line named above by hand (`autopilot check` re-validates it), or',
    `  - restore the last committed version: ${git} checkout HEAD -- ${file}, or`,
    `  - move it aside: autopilot next then rebuilds the position from the folder and the journal.`,
  ].join('\n');
}

export function readPointer(repo: Repo): ParsedPointer | null {
  const text = readPointerText(repo);
  if (text === null) return null;
  try {
    return parsePointer(text, displayPath(repo.pointerFile, repo.root));
  } catch (error) {
    if (error instanceof InputError) throw new InputError(error.problems, recoveryHint(repo));
    throw error;
  }
}

/** The flow the pointer names, checked: an unknown flow or a step it lacks is an error naming the pointer's line. */
export function flowOfPointer(repo: Repo, flows: Flow[], pointer: ParsedPointer): Flow {
  const file = displayPath(repo.pointerFile, repo.root);
  const flow = flows.find((f) => f.id === pointer.position.flow);
  if (!flow) {
    throw new InputError(
      {
        file,
        line: pointer.lines.flow,
        message: `the pointer names the flow \`${pointer.position.flow}\`, which autopilot does not know`,
        expected: `one of ${flows.map((f) => f.id).join(', ')}`,
        received: pointer.position.flow,
      },
      recoveryHint(repo),
    );
  }
  const step = pointer.position.step;
  if (step !== 'done' && !stepByNumber(flow, step)) {
    throw new InputError(
      {
        file,
        line: pointer.lines.step,
        message: `${flow.id} has no step ${step}`,
        expected: `a step from 1 to ${flow.steps.length}, or \`done\``,
        received: String(step),
      },
      recoveryHint(repo),
    );
  }
  return flow;
}

export async function loadState(options: RepoOptions, { writeCache }: { writeCache: boolean }): Promise<Loaded> {
  const repo = openRepo(options);
  const { flows, problems } = await loadFlows(repo, { writeCache });
  if (problems.length > 0) throw new InputError(problems, 'Fix the flow file(s) named above; `autopilot check` lists every problem.');
  const pointer = readPointer(repo);
  const flow = pointer ? flowOfPointer(repo, flows, pointer) : detectFlow(repo, flows);
  if (!flow) {
    throw new InputError({
      message: 'no flow matches this folder',
      expected: 'a flow chosen by hand: `autopilot init --flow <id>`',
      received: `tried ${flows.map((f) => f.id).join(', ')}`,
    });
  }
  const upTo = typeof pointer?.position.step === 'number' ? pointer.position.step : Infinity;
  const { evidence, ...reconciled } = locate(flow, pointer?.position ?? null, diskCycle(repo, flow), (cycle) => gatherEvidence(repo, flow, cycle, upTo));
  return { repo, flows, flow, pointer, evidence, reconciled };
}
