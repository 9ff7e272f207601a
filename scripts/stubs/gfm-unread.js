// Stands in for GFM's footnotes, strikethrough and bare-link literals (their micromark syntax and
// their mdast readers and writers) in autopilot's bundles (scripts/build.mjs). Every Markdown reader
// of autopilot switches the three off (src/formats/flow/unread-constructs.ts): a cell reads as the text it is
// written in. remark-gfm still brings tables and task-list items. Saves about 5 KB of the packed package.
const none = () => ({});
export const gfmAutolinkLiteral = none;
export const gfmAutolinkLiteralHtml = none;
export const gfmFootnote = none;
export const gfmFootnoteHtml = none;
export const gfmStrikethrough = none;
export const gfmStrikethroughHtml = none;
export const gfmAutolinkLiteralFromMarkdown = none;
export const gfmAutolinkLiteralToMarkdown = none;
export const gfmFootnoteFromMarkdown = none;
export const gfmFootnoteToMarkdown = none;
export const gfmStrikethroughFromMarkdown = none;
export const gfmStrikethroughToMarkdown = none;
