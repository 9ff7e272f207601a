/** The JSON an agent reads: the contract's keys first, then what the outcome adds. */
import type { Decision } from '../flow/model.js';
import { problemJson } from '../errors.js';
import { formatAge } from '../engine/lease.js';
import { boundaryDecision } from '../engine/boundary.js';
import { stepByNumber } from '../flow/model.js';
import { currentStep, doneWhenPaths, type View } from './view.js';

export function decisionJson(decision: Decision) {
  return {
    id: decision.id,
    question: decision.question,
    options: decision.options.map((o) => ({ option: o.letter, choice: o.choice, then: o.then })),
    recommendation: { option: decision.recommendation.letter, reason: decision.recommendation.reason },
    answer_with: `autopilot decide <${decision.options.map((o) => o.letter).join('|')}>`,
  };
}

export function viewJson(view: View): Record<string, unknown> {
  const { position, outcome } = view;
  const json: Record<string, unknown> = {
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
  };
  if (view.notices) json.notices = view.notices;
  if (view.committed) json.commit = view.committed;
  if (view.command === 'status') {
    const step = currentStep(view);
    if (step) json.done_when = doneWhenPaths(view.repo, step, position.cycle);
    json.journal = { events: view.journalSeq ?? 0 };
    if (view.lease) {
      const l = view.lease;
      json.lease = l.holder
        ? {
            session: l.holder.session,
            host: l.holder.host,
            heartbeat: l.holder.heartbeat,
            age: formatAge(l.ageMs ?? 0),
            mine: l.mine === true,
            stale: l.stale === true,
          }
        : l.problem
          ? { problem: l.problem }
          : null;
    }
    json.guards = view.guards ?? [];
    json.git_fallback = view.gitOff ? { on: false, reason: view.gitOff } : { on: true };
    if (view.boundary) {
      json.boundary_pending = {
        after: view.boundary.after,
        reached_by: view.boundary.session,
        decision: decisionJson(boundaryDecision(view.flow, view.boundary.after, position.step)),
      };
    }
    return json;
  }
  if (!outcome) return json;
  json.outcome = outcome.kind;
  switch (outcome.kind) {
    case 'work':
      json.action = outcome.action;
      json.skill = view.work?.skill;
      json.done_when = view.work?.doneWhen;
      if (position.subStep !== '0') json.resume = position.subStep;
      break;
    case 'decision':
      json.decision = decisionJson(outcome.decision);
      break;
    case 'boundary': {
      const after = stepByNumber(view.flow, outcome.after)!;
      json.boundary = {
        after: { step: after.number, name: after.name },
        next: { step: position.step, name: position.name },
        ...(outcome.answered
          ? { answered: 'A', message: 'Stop this conversation now; start a new one and run `/autopilot` (`autopilot next`).' }
          : { decision: decisionJson(boundaryDecision(view.flow, outcome.after, position.step)) }),
        ...(view.summary ? { summary: view.summary } : {}),
      };
      break;
    }
    case 'failed':
      json.message = 'Failed three times: a person runs `autopilot ack`, then `autopilot next` tries again.';
      break;
    case 'duplicate':
      json.duplicate_of = { seq: outcome.of, event: outcome.event };
      json.message = `Already recorded (journal event ${outcome.of}, ${outcome.event}); nothing was written again.`;
      break;
    case 'refused':
      json.error = problemJson(outcome.problem);
      if (outcome.missing) json.missing = outcome.missing.map((m) => `${view.repo.docsName}/${m}`);
      break;
    default:
      break;
  }
  if (view.reason) json.reason = view.reason;
  return json;
}
