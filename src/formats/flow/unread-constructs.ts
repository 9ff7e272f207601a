/**
 * The Markdown constructs autopilot's readers never read, switched off in the
 * parser (a micromark `disable` extension, added as a unified plugin). GFM's
 * footnotes, strikethrough and bare-link literals are off in every reader: a
 * cell reads as the text it is written in (`~~x~~`, `[^1]`, `www.x.com`), and
 * the package carries none of the three (scripts/stubs/gfm-unread.js).
 * Tables and task-list items are what autopilot reads of GFM.
 */
import type { Processor } from 'unified';

export const GFM_UNREAD = [
  'strikethrough',
  'gfmFootnoteDefinition',
  'gfmFootnoteCall',
  'gfmPotentialFootnoteCall',
  'wwwAutolink',
  'protocolAutolink',
  'emailAutolink',
];

/** A unified plugin that switches the named constructs off. */
export function withoutConstructs(this: Processor, names: readonly string[]): void {
  const data = this.data();
  (data.micromarkExtensions ??= []).push({ disable: { null: [...names] } });
}
