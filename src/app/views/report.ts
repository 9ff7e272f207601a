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
import { displayPath, openRepo, type Repo } from '../../io/repo.js';
import { holdsRun, listRuns } from '../../io/run.js';
import { DEFAULT_RUN, commandForRun } from '../../formats/run-name.js';
import { renderHtmlRuns, renderMarkdownRuns, type RunSection } from '../../report/runs.js';
import type { ReportModel } from '../../report/report-model.js';
import type { Loaded } from '../transaction/load-state.js';
import { loadRepoFlows } from '../transaction/flows.js';
import { readState } from '../transaction/read-state.js';
import { renderHtml } from '../../report/html.js';
import { renderMarkdown } from '../../report/markdown.js';
import { buildReport } from '../../report/report-model.js';
import type { Context } from '../transaction/context.js';
import { transact } from '../transaction/transact.js';
import { readAcCoverage } from './ac-coverage.js';
import { acCoverageLine } from '../../evidence/ac-coverage.js';

export const REPORT_MD = '_autopilot_report.md';
export const REPORT_HTML = '_autopilot_report.html';

/** One run's report model, from its state as read (`loaded`) and its journal. */
function modelOf(repo: Repo, loaded: Loaded, now: Date): ReportModel {
  const { entries } = readJournal(repo.journalFile, displayPath(repo.journalFile, repo.root));
  const position = loaded.reconciled.position;
  const fork = loaded.fork?.verdict.kind === 'disagree' ? forkDecision(loaded.fork.verdict) : undefined;
  const failed =
    position.status === 'failed' ? entries.findLast((e) => e.event === 'step_failed' && e.step === position.step && e.cycle === position.cycle) : undefined;
  const reason = failed && typeof readDetail(failed, 'reason') === 'string' ? (readDetail(failed, 'reason') as string) : undefined;
  const found = pendingQuestion(loaded.flow, position, loaded.boundary, fork, reason);
  // A named run's answers name it: the command a person runs is the one printed.
  const pending = found && {
    ...found,
    command: commandForRun(found.command, repo.run),
    options: found.options.map((o) => ({ ...o, command: commandForRun(o.command, repo.run) })),
  };
  const coverage = readAcCoverage(repo, loaded.flow, position.cycle);
  return buildReport({
    flow: loaded.flow,
    position,
    entries,
    ...(pending ? { pending } : {}),
    now,
    ...(coverage ? { acceptance: { file: coverage.file, summary: acCoverageLine(coverage) } } : {}),
  });
}

/**
 * Every other run of the repository, each as its own section (docs/runs.md
 * "Seeing every run"), read without a lock as `status` reads: its model, or
 * the problem that kept it from being read.
 */
async function otherSections(ctx: Context, shown: string, docs: string): Promise<RunSection[]> {
  const sections: RunSection[] = [];
  for (const run of listRuns(docs).filter((r) => r !== shown)) {
    try {
      const repo = openRepo({ ...ctx.repo, run });
      sections.push({ run, model: modelOf(repo, await readState(repo, await loadRepoFlows(repo, false)), ctx.now()) });
    } catch (error) {
      sections.push({ run, problem: (error instanceof Error ? error.message : String(error)).split('\n', 1)[0]! });
    }
  }
  return sections;
}

export async function runReport(ctx: Context, html: boolean): Promise<{ file: string; html?: string }> {
  const { result } = await transact(ctx, { flows: 'read' }, async ({ repo, state }) => {
    // With named runs only and none named, the report is every named run's; the default run, which is not there, is not read.
    const own: RunSection[] =
      holdsRun(repo.docs) || listRuns(repo.repoDocs).length === 0 ? [{ run: repo.run, model: modelOf(repo, await state(), ctx.now()) }] : [];
    const others = await otherSections(ctx, repo.run, repo.repoDocs);
    // The default run first, then the named ones by name; one run alone is reported as it always was.
    const sections = [...own, ...others].sort((a, b) => (a.run === DEFAULT_RUN ? -1 : b.run === DEFAULT_RUN ? 1 : a.run.localeCompare(b.run)));
    const md = join(repo.docs, REPORT_MD);
    const page = join(repo.docs, REPORT_HTML);
    const one = sections.length === 1 && sections[0]!.model ? sections[0]!.model : undefined;
    const files = [
      { path: md, text: one ? renderMarkdown(one) : renderMarkdownRuns(sections) },
      ...(html ? [{ path: page, text: one ? renderHtml(one) : renderHtmlRuns(sections) }] : []),
    ];
    return {
      plan: { entries: [], files },
      answer: () => ({ file: displayPath(md, repo.root), ...(html ? { html: displayPath(page, repo.root) } : {}) }),
    };
  });
  return result;
}
