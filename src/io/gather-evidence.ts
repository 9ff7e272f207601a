/** Reads, for the pure rules, what the disk says about a flow: artifacts, conditions, waivers, the cycle. */
import type { Evidence, StepEvidence } from '../engine/evidence.js';
import { hasArtifacts } from '../engine/evidence.js';
import { DOCS_PLACEHOLDER, isPerCycle, loopStart, stepByNumber, withCycle, type Flow, type Step } from '../formats/flow/model.js';
import { DEPENDENCY_FOLDERS, findMatches } from './find-matches.js';
import type { JournalEvidence } from '../formats/journal-index.js';
import type { Repo } from './repo.js';
import { EVIDENCE_MATCH_LIMIT } from '../limits.js';

function stepEvidence(repo: Repo, step: Step, cycle: number): StepEvidence {
  const outside: string[] = [];
  const empty: string[] = [];
  const within = { root: repo.root, refused: (rel: string) => outside.push(rel), empty: (rel: string) => empty.push(rel) };
  const patterns = step.doneWhen.map((p) => {
    const pattern = withCycle(p, cycle);
    return { pattern, matches: findMatches(repo.docs, pattern, EVIDENCE_MATCH_LIMIT, within) };
  });
  const ev: StepEvidence = { step: step.number, patterns };
  if (step.runs.kind === 'if') ev.conditionMet = findMatches(repo.docs, withCycle(step.runs.pattern, cycle), 1, within).length > 0;
  if (outside.length > 0) ev.outside = outside;
  if (empty.length > 0) ev.empty = empty;
  return ev;
}

/**
 * Evidence for every step in `cycle`. The journal is read only when it can
 * change the answer: a step before `upTo` lacks its artifacts (was it skipped
 * or forced?), or the step at `upTo` can be repeated by a decision (which
 * files did this round start with?). The common case reads no journal.
 */
export function gatherEvidence(
  repo: Repo,
  flow: Flow,
  cycle: number,
  upTo: number,
  journalEvidence: (cycle: number, perCycle: (step: number) => boolean) => JournalEvidence,
): Evidence {
  const steps = flow.steps.map((step) => stepEvidence(repo, step, cycle));
  const gap = flow.steps.some(
    (s) => s.number < upTo && !hasArtifacts(steps[s.number - 1]!) && !(s.runs.kind === 'if' && steps[s.number - 1]!.conditionMet === false),
  );
  const current = stepByNumber(flow, upTo);
  const repeatable = current?.then.kind === 'decision' && flow.decisions[current.then.id]?.options.some((o) => o.then === 'repeat');
  if (gap || repeatable) {
    const perCycle = (n: number) => {
      const step = stepByNumber(flow, n);
      return step ? isPerCycle(step) : true;
    };
    const found = journalEvidence(cycle, perCycle);
    for (const [step, waiver] of found.waivers) if (steps[step - 1]) steps[step - 1]!.waiver = waiver;
    for (const [step, files] of found.rounds) if (steps[step - 1]) steps[step - 1]!.roundBaseline = files;
  }
  return { cycle, steps };
}

/**
 * The highest cycle whose loop-start step has its artifacts, 0 when none
 * (or 0 for a flow that does not loop). Cycles are numbered without gaps,
 * so an exponential then binary search needs O(log n) probes.
 */
export function diskCycle(repo: Repo, flow: Flow): number {
  const start = loopStart(flow);
  if (start === undefined) return 0;
  const step = stepByNumber(flow, start)!;
  const has = (cycle: number) => hasArtifacts(stepEvidence(repo, step, cycle));
  if (!has(1)) return 0;
  let low = 1;
  let high = 2;
  while (has(high)) {
    low = high;
    high *= 2;
  }
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (has(mid)) low = mid;
    else high = mid;
  }
  return low;
}

/** Rule 2: the first flow, in scan order, whose detection rules match the folder. */
export function detectFlow(repo: Repo, flows: Flow[]): Flow | undefined {
  // A dependency folder is not the project's code: `*/*.js` must not find it in node_modules/.
  const exists = (pattern: string) => findMatches(repo.root, pattern.replace(DOCS_PLACEHOLDER, repo.docsName), 1, undefined, DEPENDENCY_FOLDERS).length > 0;
  return flows.find((flow) => (flow.detect.any.length === 0 || flow.detect.any.some(exists)) && !flow.detect.none.some(exists));
}
