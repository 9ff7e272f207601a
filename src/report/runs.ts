/**
 * The report of a repository that holds several runs (docs/runs.md "Seeing
 * every run"): one section a run, the default run first, each with its own
 * diagram, steps, open decision and last actions, as the one-run report has
 * them one heading level down. A run that could not be read has a section
 * that says why. Pure: models in, text out.
 */
import { esc, renderHtml } from './html.js';
import { renderMarkdown } from './markdown.js';
import { mdText } from './md-text.js';
import type { ReportModel } from './report-model.js';

export interface RunSection {
  run: string;
  model?: ReportModel;
  /** Why the run could not be read. */
  problem?: string;
}

const title = (s: RunSection) => `Run ${s.run}${s.model ? `: ${s.model.flow.title || s.model.flow.id}` : ''}`;

/** Every run's section in Markdown, under one title and a line a run. */
export function renderMarkdownRuns(sections: readonly RunSection[]): string {
  const parts = sections.map((s) => {
    if (!s.model) return `## ${mdText(title(s))}\n\nThis run cannot be read: ${mdText(s.problem ?? 'unknown')}\n`;
    const [, ...rest] = renderMarkdown(s.model).split('\n');
    // One heading level down: the run's title is a section of the page.
    return [`## ${mdText(title(s))}`, ...rest.map((line) => (/^#{1,5} /.test(line) ? `#${line}` : line))].join('\n');
  });
  return [
    `# Autopilot report: ${sections.length} runs`,
    '',
    ...sections.map((s) => `- **${mdText(s.run)}**${s.model ? ` · ${s.model.flow.id}` : ' · cannot be read'}`),
    '',
    ...parts,
  ].join('\n');
}

/** Every run's section on one self-contained HTML page. */
export function renderHtmlRuns(sections: readonly RunSection[]): string {
  let head = '';
  const bodies = sections.map((s) => {
    if (!s.model) return `<h2>${esc(title(s))}</h2>\n<p>This run cannot be read: ${esc(s.problem ?? 'unknown')}</p>\n`;
    const page = renderHtml(s.model);
    const open = page.indexOf('<body>');
    head ||= page.slice(0, open);
    const body = page.slice(open + '<body>'.length, page.lastIndexOf('</body>'));
    // One heading level down, the page's title made the run's.
    return body
      .replace(/<(\/?)h([1-5])>/g, (_, slash: string, n: string) => `<${slash}h${Number(n) + 1}>`)
      .replace(/<h2>[^<]*<\/h2>/, `<h2>${esc(title(s))}</h2>`);
  });
  const name = `Autopilot report: ${sections.length} runs`;
  const top = head
    ? head.replace(/<title>[^<]*<\/title>/, `<title>${esc(name)}</title>`)
    : `<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>${esc(name)}</title></head>\n`;
  return `${top}<body>\n<h1>${esc(name)}</h1>\n${bodies.join('\n')}</body>\n</html>\n`;
}
