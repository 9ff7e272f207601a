// Stands in for markdown-table in autopilot's bundles (scripts/build.mjs): remark-gfm's table
// writer lays tables out with it, and autopilot never writes Markdown from a tree.
export function markdownTable() {
  throw new Error('autopilot never writes Markdown tables from a tree');
}
