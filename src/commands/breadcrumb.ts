/** `autopilot breadcrumb [--note]`: a short Markdown progress block for an issue or a pull request. */
import { runBreadcrumb } from '../app/views/breadcrumb.js';
import { EXIT } from '../errors.js';
import { defineCommand } from './command.js';

export const breadcrumb = defineCommand({
  name: 'breadcrumb',
  summary: 'a short Markdown progress block for an issue or a pull request',
  plain: true,
  examples: [
    { line: 'autopilot breadcrumb', does: 'a Markdown progress block to paste in an issue or pull request' },
    { line: 'autopilot breadcrumb --note', does: 'the same, stored as a git note on the last progress commit' },
  ],
  options: [
    { key: 'mark', flags: '--mark', type: 'boolean', summary: 'journal it: the next breadcrumb starts from here (printing alone changes nothing)' },
    { key: 'note', flags: '--note', type: 'boolean', summary: 'mark it, and store it as a git note on the last progress commit' },
  ],
  mcp: { tool: 'A Markdown progress block for an issue or PR.', answer: 'breadcrumb' },
  run: (ctx, a: { note?: boolean; mark?: boolean }) => runBreadcrumb(ctx, a),
  view: (r) => ({ json: { markdown: r.markdown, marked: r.marked, ...(r.noted ? { noted: r.noted } : {}) }, text: r.markdown, exit: EXIT.ok }),
});
