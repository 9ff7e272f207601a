// Stands in for mdast-util-to-markdown in autopilot's bundles (scripts/build.mjs). remark-gfm
// brings GFM's Markdown writers along with its readers, and they name this package's handlers;
// autopilot reads flows and task tables and never writes Markdown from a tree, so no handler
// is ever called.
export const defaultHandlers = {};
