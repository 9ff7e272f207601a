/** `autopilot report [--html]`: the run for people, as Markdown with a Mermaid diagram, or one HTML page. */
import { EXIT } from '../errors.js';
import { defineCommand } from './command.js';

export const report = defineCommand({
  name: 'report',
  anyRun: true,
  summary: 'the run for people: _docs/_autopilot_report.md with a Mermaid diagram; --html also one self-contained page',
  examples: [
    { line: 'autopilot report', does: 'write _docs/_autopilot_report.md, the run with a Mermaid diagram' },
    { line: 'autopilot report --html', does: 'also write one self-contained HTML page' },
  ],
  options: [{ key: 'html', flags: '--html', type: 'boolean', summary: 'also write _docs/_autopilot_report.html (inline SVG and CSS, no network)' }],
  mcp: { tool: 'Write the run report (html: also a page).', answer: 'report' },
  // The report's renderers load only for this command.
  run: async (ctx, a: { html?: boolean }) => (await import('../app/views/report.js')).runReport(ctx, a.html === true),
  view: (r) => ({ json: r, text: [`✓ Wrote ${r.file}`, ...(r.html ? [`✓ Wrote ${r.html}`] : [])].join('\n'), exit: EXIT.ok }),
});
