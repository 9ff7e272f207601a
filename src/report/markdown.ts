/** The report as Markdown: `_docs/_autopilot_report.md`, for an editor, a pull request or GitHub's Mermaid rendering. */
import { mdText } from './md-text.js';
import { renderMermaid } from './mermaid.js';
import { STATE_LABEL, type ReportModel } from './report-model.js';

export { mdText };

/** `2026-11-26T10:02:44.000Z` → `2026-11-26 10:02:44Z`; blank when absent. */
export const shortTime = (at: string | undefined) => (at ? at.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '');

export function where(model: ReportModel): string {
  const p = model.position;
  if (p.step === 'done') return `${model.flow.id}: done`;
  const sub = p.subStep && p.subStep !== '0' ? ` · sub-step ${p.subStep}` : '';
  const cycle = p.cycle > 1 ? ` · cycle ${p.cycle}` : '';
  return `step ${p.step} of ${model.steps.length} (${p.name}) · ${STATE_LABEL[p.status as keyof typeof STATE_LABEL] ?? p.status}${sub} · retries ${p.retryCount} of 3${cycle}`;
}

export function renderMarkdown(model: ReportModel): string {
  const rows = model.steps.map(
    (s) =>
      `| ${s.number} | ${mdText(s.name)}${s.runs ? ` _(${mdText(s.runs)})_` : ''} | ${s.current ? '▶ ' : ''}${STATE_LABEL[s.state]} | ${shortTime(s.started)} | ${shortTime(s.finished)} | ${s.attempts || ''} | ${s.sessions.map(mdText).join(', ')} |`,
  );
  const decision = model.openDecision;
  const events = model.lastEvents.map(
    (e) =>
      `- ${e.seq ? `\`#${e.seq}\` ` : ''}${shortTime(e.at)} · **${mdText(e.event)}** · ${mdText(e.where)} · ${mdText(e.session)}${e.detail ? ` — ${mdText(e.detail)}` : ''}`,
  );
  return [
    `# Autopilot report: ${mdText(model.flow.title || model.flow.id)}`,
    '',
    `**Where:** ${mdText(where(model))}  `,
    `**Generated:** ${shortTime(model.generatedAt)} by \`autopilot report\` (regenerate it; edits are overwritten)`,
    '',
    '## Flow',
    '',
    '```mermaid',
    renderMermaid(model).trimEnd(),
    '```',
    '',
    'Green: done · grey: skipped · blue: in progress · red: failed · white: not started. Dotted: a session boundary or the next cycle.',
    '',
    '## Steps',
    '',
    '| # | step | status | started | finished | attempts | by |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    ...(model.batches ?? []).flatMap((b) => [
      `## Batches of ${b.step} ${mdText(b.name)}`,
      '',
      '| batch | tasks | status | report |',
      '|---|---|---|---|',
      ...b.rows.map((r) => `| ${r.batch} | ${r.tasks.map(mdText).join(', ')} | ${STATE_LABEL[r.state]} | [${mdText(r.report)}](${encodeURI(r.report)}) |`),
      '',
    ]),
    ...(model.acceptance ? ['## Acceptance criteria', '', `${mdText(model.acceptance.summary)} (\`${model.acceptance.file}\`).`, ''] : []),
    '## Open decisions',
    '',
    ...(decision
      ? [
          `**${mdText(decision.question)}**`,
          '',
          ...decision.options.map((o) => `- ${mdText(o.letter)}) ${mdText(o.choice)} — \`${o.command}\``),
          ...(decision.options.length > 0 ? [''] : []),
          ...(decision.recommendation ? [`Recommended: ${mdText(decision.recommendation)}.  `] : []),
          ...(decision.reason !== undefined ? [`Last reason: ${mdText(decision.reason)}  `] : []),
          `A person answers: \`${decision.command}\`${decision.kind === 'failed' ? ' (then `autopilot next` tries again)' : ''}.`,
        ]
      : ['None.']),
    '',
    '## Last actions',
    '',
    ...(events.length > 0 ? events : ['The journal is empty.']),
    '',
  ].join('\n');
}
