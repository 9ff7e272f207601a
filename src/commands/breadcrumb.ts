/** `autopilot breadcrumb [--note]`: a short Markdown progress block for an issue or a pull request. */
import { runBreadcrumb } from '../app/breadcrumb.js';
import { EXIT } from '../errors.js';
import { defineCommand } from './command.js';

export const breadcrumb = defineCommand({
  name: 'breadcrumb',
  summary: 'a short Markdown progress block for an issue or a pull request',
  options: [{ key: 'note', flags: '--note', type: 'boolean', summary: 'also store it as a git note on the last progress commit' }],
  mcp: { tool: 'A Markdown progress block for an issue or PR.', answer: 'breadcrumb' },
  run: (ctx, a: { note?: boolean }) => runBreadcrumb(ctx, a.note === true),
  view: (r) => ({ json: { markdown: r.markdown, ...(r.noted ? { noted: r.noted } : {}) }, text: r.markdown, exit: EXIT.ok }),
});
