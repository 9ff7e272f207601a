/**
 * `autopilot report [--html]`: the run for people — `_docs/_autopilot_report.md`
 * (a Mermaid diagram, the steps with their times, attempts and sessions, the
 * open decision, the last actions) and, with `--html`, the same as one
 * self-contained page. Written through `commit` under the lock; no event is
 * journaled (a report changes no state).
 */
import { join } from 'node:path';
import { boundaryDecision } from '../engine/boundary.js';
import type { Decision } from '../flow/model.js';
import { readJournal } from '../io/journal.js';
import { displayPath, openRepo } from '../io/repo.js';
import { renderHtml } from '../report/html.js';
import { renderMarkdown } from '../report/markdown.js';
import { buildReport } from '../report/report-model.js';
import { commit } from './commit.js';
import type { Context } from './context.js';
import type { Loaded } from './load-state.js';
import { readState } from './read-state.js';
import { takeLock } from './step.js';
import { loadRepoFlows } from './flows.js';

export const REPORT_MD = '_autopilot_report.md';
export const REPORT_HTML = '_autopilot_report.html';

/** The decision waiting for an answer: a session boundary, or a flow decision after a finished step. */
export function openDecision(loaded: Loaded): Decision | undefined {
  const { flow } = loaded;
  const position = loaded.reconciled.position;
  if (loaded.boundary) return boundaryDecision(flow, loaded.boundary.after, position.step);
  if ((position.status !== 'completed' && position.status !== 'skipped') || typeof position.step !== 'number') return undefined;
  const then = flow.steps[position.step - 1]?.then;
  return then?.kind === 'decision' ? flow.decisions[then.id] : undefined;
}

export async function runReport(ctx: Context, html: boolean): Promise<{ file: string; html?: string }> {
  const repo = openRepo(ctx.repo);
  const flows = await loadRepoFlows(repo, false);
  const lock = await takeLock(repo, ctx.session, ctx.lockWaitMs ?? 10_000);
  try {
    const loaded = await readState(repo, flows);
    const { entries } = readJournal(repo.journalFile, displayPath(repo.journalFile, repo.root));
    const decision = openDecision(loaded);
    const model = buildReport({
      flow: loaded.flow,
      position: loaded.reconciled.position,
      entries,
      ...(decision ? { openDecision: decision } : {}),
      now: ctx.now(),
    });
    const md = join(repo.docs, REPORT_MD);
    const page = join(repo.docs, REPORT_HTML);
    const files = [{ path: md, text: renderMarkdown(model) }, ...(html ? [{ path: page, text: renderHtml(model) }] : [])];
    commit(repo, lock, loaded.lastSeq, { entries: [], files }, { session: ctx.session, now: ctx.now });
    return { file: displayPath(md, repo.root), ...(html ? { html: displayPath(page, repo.root) } : {}) };
  } finally {
    lock.release();
  }
}
