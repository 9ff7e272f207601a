/**
 * The JSON an agent reads, for every front end (the CLI's `--json`, the MCP
 * tools' structured content): the contract's keys first, then what the
 * outcome adds. Typed by the schemas in `answers.ts`.
 */
import { runJson } from './runs.js';
import type { Finding } from '../evidence/types.js';
import type { CheckResult } from '../app/views/check.js';
import type { AcCoverage, Traced } from '../evidence/ac-coverage.js';
import type { Seam } from '../app/transaction/log.js';
import { currentStep, doneWhenPaths, type View } from '../app/views/view.js';
import { boundaryDecision } from '../engine/boundary.js';
import type { PendingQuestion } from '../engine/pending.js';
import type { StampedEntry } from '../formats/journal-line.js';
import { formatAge } from '../engine/lease.js';
import { problemJson, type Problem } from '../errors.js';
import { stepByNumber, type Decision } from '../formats/flow/model.js';
import type { SideName, SideSummary } from '../engine/fork.js';
import { failedTimes } from '../formats/pointer/position.js';
import type { CheckAnswer, LogAnswer, StatusAnswer, StepAnswer } from './answers.js';
import { alreadyText } from './text.js';

type Json<T> = T extends object ? { -readonly [K in keyof T]: T[K] } : T;

export function decisionJson(decision: Decision) {
  return {
    id: decision.id,
    question: decision.question,
    options: decision.options.map((o) => ({ option: o.letter, choice: o.choice, then: o.then })),
    recommendation: { option: decision.recommendation.letter, reason: decision.recommendation.reason },
    answer_with: `ask the person: only they answer (autopilot decide <${decision.options.map((o) => o.letter).join('|')}>); never answer it yourself`,
  };
}

/** A fork's two sides, as an agent reads them. */
function forkJson(reasons: string[], sides: Record<SideName, SideSummary>) {
  const side = (s: SideSummary) => ({
    position: s.position
      ? { step: s.position.step, name: s.position.name, status: s.position.status, sub_step: s.position.sub_step, retry_count: s.position.retry_count }
      : null,
    events: s.seqs,
    did: s.did,
  });
  return { reasons, sides: { A: side(sides.A), B: side(sides.B) } };
}

/** The keys every position-bearing answer starts with. */
function positionJson(view: View) {
  const { position } = view;
  return {
    flow: position.flow,
    step: position.step,
    name: position.name,
    status: position.status,
    sub_step: position.subStep,
    retry_count: position.retryCount,
    cycle: position.cycle,
    steps: view.flow.steps.length,
    source: view.source,
    drift: view.drift.map((d) => ({ kind: d.kind, step: d.step, message: d.message })),
    notices: view.notices,
    ...(view.committed ? { commit: view.committed } : {}),
    // The status summary's last action: in `status`, and in the `next` that began a session (re-entry).
    ...(view.lastAction && (view.command === 'status' || view.reentry)
      ? { last_action: { action: view.lastAction.action, result: view.lastAction.result, at: view.lastAction.at, next: view.lastAction.next } }
      : {}),
    ...(view.reentry ? { reentry: true } : {}),
  };
}

/** The criteria's coverage as `status --json` gives it: the ids, and per file the ids it names and those it misses. */
function acceptanceJson(c: AcCoverage): NonNullable<StatusAnswer['acceptance']> {
  const traced = (t: Traced) => ({ file: t.file, ids: t.named, missing: t.missing });
  return { file: c.file, ids: c.ids, covered: c.covered && traced(c.covered), tested: c.tested && traced(c.tested) };
}

export function statusJson(view: View): StatusAnswer {
  const step = currentStep(view);
  const lease = view.lease;
  return {
    ...positionJson(view),
    done_when: step && doneWhenPaths(view.repo, step, view.position.cycle),
    journal: { events: view.journalSeq ?? 0 },
    lease:
      lease &&
      (lease.holder
        ? {
            session: lease.holder.session,
            host: lease.holder.host,
            heartbeat: lease.holder.heartbeat,
            age: formatAge(lease.ageMs ?? 0),
            mine: lease.mine === true,
            stale: lease.stale === true,
            gone: lease.gone === true,
            ahead: lease.aheadMs ? formatAge(lease.aheadMs) : undefined,
            ...(lease.seen?.since ? { seen_since: lease.seen.since } : {}),
            ...(lease.seen?.staleAt ? { stale_at: lease.seen.staleAt } : {}),
          }
        : lease.problem
          ? { problem: lease.problem }
          : null),
    guards: view.guards ?? [],
    git_fallback: view.gitOff ? { on: false, reason: view.gitOff } : { on: true },
    progress_commit_owed: view.owedCommit === undefined ? undefined : { event: view.owedCommit, about: view.owed?.about, files: view.owed?.files },
    progress_commits: view.commits,
    acceptance: view.acceptance && acceptanceJson(view.acceptance),
    batches: view.batches,
    boundary_pending: view.boundary && {
      after: view.boundary.after,
      reached_by: view.boundary.session,
      decision: decisionJson(boundaryDecision(view.flow, view.boundary.after, view.position.step)),
    },
    fork_pending: view.fork && { ...forkJson(view.fork.reasons, view.fork.sides), decision: decisionJson(view.fork.decision) },
    pending: view.pending && pendingJson(view.pending),
    runs: view.runs?.map(runJson),
  };
}

/** The question waiting for a person, as an agent or a person's tool reads it. */
export function pendingJson(p: PendingQuestion): NonNullable<StatusAnswer['pending']> {
  return {
    kind: p.kind,
    step: p.step,
    name: p.name,
    question: p.question,
    options: p.options.map((o) => ({ option: o.letter, choice: o.choice, command: o.command })),
    recommendation: p.recommendation && { option: p.recommendation.letter, reason: p.recommendation.reason },
    reason: p.reason,
    command: p.command,
  };
}

export function stepJson(view: View): StepAnswer {
  const { position, outcome } = view;
  const json: Json<StepAnswer> = { ...positionJson(view), outcome: outcome!.kind };
  if (view.batch) json.batch = view.batch;
  switch (outcome!.kind) {
    case 'work':
      json.action = outcome!.action;
      if (view.work) {
        json.skill = view.work.skill;
        json.done_when = view.work.doneWhen;
        if (view.work.write.length > 0) json.write = view.work.write;
        if (view.work.have.length > 0) json.have = view.work.have;
      }
      if (view.templates) json.templates = view.templates;
      if (view.reads) json.reads = view.reads;
      if (position.subStep !== '0') json.resume = position.subStep;
      if (view.findings) json.findings = findingsJson(view.repo.docsName, view.findings);
      break;
    case 'decision':
      json.decision = decisionJson(outcome!.decision);
      if (view.again) json.message = alreadyText(view, outcome!.after, 'the decision still waits for a person').slice(2);
      break;
    case 'boundary': {
      const after = stepByNumber(view.flow, outcome!.after)!;
      json.boundary = {
        after: { step: after.number, name: after.name },
        next: { step: position.step, name: position.name },
        ...(outcome!.answered
          ? { answered: 'A' as const, message: 'Stop this conversation now; start a new one and run `/autopilot` (`autopilot next`).' }
          : { decision: decisionJson(boundaryDecision(view.flow, outcome!.after, position.step)) }),
        summary: view.summary,
      };
      if (view.again) json.message = alreadyText(view, outcome!.after, 'the session boundary still waits').slice(2);
      break;
    }
    case 'fork':
      json.decision = decisionJson(outcome!.decision);
      json.fork = forkJson(outcome!.reasons, outcome!.sides);
      json.message =
        "The journal holds two branches' work that disagree: ask the person; only they keep one side (`autopilot decide A` or `autopilot decide B`).";
      break;
    case 'complete':
      json.message = `${view.flow.id} is done: no step is left. Tell the person the flow is complete, and run nothing more for it.`;
      break;
    case 'failed':
      json.message = `${failedTimes(position.retryCount).replace(/^f/, 'F')}: ask the person; only they run \`autopilot ack\`, then \`autopilot next\` tries again.`;
      break;
    case 'duplicate':
      json.duplicate_of = { seq: outcome!.of, event: outcome!.event };
      json.message = `Already recorded (journal event ${outcome!.of}, ${outcome!.event}); nothing was written again.`;
      break;
    case 'refused':
      json.error = problemJson(outcome!.problem) as StepAnswer['error'];
      if (outcome!.missing) json.missing = outcome!.missing.map((m) => `${view.repo.docsName}/${m}`);
      if (outcome!.findings) json.findings = findingsJson(view.repo.docsName, outcome!.findings);
      break;
    default:
      break;
  }
  if (view.reason) json.reason = view.reason;
  if (view.checkpoint) json.checkpoint = view.checkpoint;
  return json;
}

/** The checks' findings about a step's files: where, what is wrong, what to write. */
function findingsJson(docs: string, findings: Finding[]): NonNullable<StepAnswer['findings']> {
  return findings.map((f) => ({
    check: f.check,
    file: `${docs}/${f.file}`,
    line: f.line,
    heading: f.heading,
    message: f.message,
    write: f.write,
    acceptable: f.acceptable,
  }));
}

/** `status` or a step command's answer, by the view's command. */
export function viewJson(view: View): StatusAnswer | StepAnswer {
  return view.command === 'status' ? statusJson(view) : stepJson(view);
}

export function checkJson(r: CheckResult): CheckAnswer {
  return {
    ok: r.problems.length === 0,
    problems: r.problems,
    flows: r.flows,
    skills: r.skills,
    pointer: r.pointer,
    journal_events: r.journalEvents,
    git_fallback: r.gitOff ? { on: false, reason: r.gitOff } : { on: true },
    runs: r.runs.map((p) => ({ run: p.run, proven: p.proven.length, lost: p.lost, changed: p.changed, unrecorded: p.unrecorded })),
  };
}

function withoutCarriedIndex(e: StampedEntry): StampedEntry {
  const { journal_index: _carried, ...rest } = e;
  return rest as StampedEntry;
}

export function logJson(r: { entries: StampedEntry[]; problems: Problem[]; seams?: Seam[] }): LogAnswer {
  const seams = r.seams?.map((s) => ({
    line: s.line,
    forked_after: s.forkLine,
    settled_at: s.settledAt,
  }));
  // The index a line carries (`journal_index`) repeats what the events before it say: left out.
  const events = r.entries.map((e) => (e.journal_index === undefined ? e : withoutCarriedIndex(e)));
  return { events: events as LogAnswer['events'], problems: r.problems, seams: seams && seams.length > 0 ? seams : undefined };
}
