/**
 * `autopilot report [--html]`: the run for people — `_docs/_autopilot_report.md`
 * (a Mermaid diagram, the steps with their times, attempts and sessions, the
 * open decision, the last actions) and, with `--html`, the same as one
 * self-contained page. Written in the one transaction; no event is journaled
 * (a report changes no state).
 */
import { join } from 'node:path';
import { forkDecision } from '../../engine/fork.js';
import { pendingQuestion } from '../../engine/pending.js';
import { readDetail } from '../../formats/journal-line.js';
import { readJournal } from '../../io/journal.js';
import { displayPath } from '../../io/repo.js';
import { renderHtml } from '../../report/html.js';
import { renderMarkdown } from '../../report/markdown.js';
import { buildReport } from '../../report/report-model.js';
import type { Context } from '../transaction/context.js';
import { transact } from '../transaction/transact.js';
import { readAcCoverage } from './ac-coverage.js';
import { acCoverageLine } from '../../evidence/ac-coverage.js';

export const REPORT_MD = '_autopilot_report.md';
export const REPORT_HTML = '_autopilot_report.html';

export async function runReport(ctx: Context, html: boolean): Promise<{ file: string; html?: string }> {
  const { result } = await transact(ctx, { flows: 'read' }, async ({ repo, state }) => {
    const loaded = await state();
    const { entries } = readJournal(repo.journalFile, displayPath(repo.journalFile, repo.root));
    const position = loaded.reconciled.position;
    const fork = loaded.fork?.verdict.kind === 'disagree' ? forkDecision(loaded.fork.verdict) : undefined;
    const failed =
      position.status === 'failed' ? entries.findLast((e) => e.event === 'step_failed' && e.step === position.step && e.cycle === position.cycle) : undefined;
    const reason = failed && typeof readDetail(failed, 'reason') === 'string' ? (readDetail(failed, 'reason') as string) : undefined;
    const pending = pendingQuestion(loaded.flow, position, loaded.boundary, fork, reason);
    const coverage = readAcCoverage(repo, loaded.flow, position.cycle);
    const model = buildReport({
      flow: loaded.flow,
      position,
      entries,
      ...(pending ? { pending } : {}),
      now: ctx.now(),
      ...(coverage ? { acceptance: { file: coverage.file, summary: acCoverageLine(coverage) } } : {}),
    });
    const md = join(repo.docs, REPORT_MD);
    const page = join(repo.docs, REPORT_HTML);
    const files = [{ path: md, text: renderMarkdown(model) }, ...(html ? [{ path: page, text: renderHtml(model) }] : [])];
    return {
      plan: { entries: [], files },
      answer: () => ({ file: displayPath(md, repo.root), ...(html ? { html: displayPath(page, repo.root) } : {}) }),
    };
  });
  return result;
}
