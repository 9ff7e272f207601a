/**
 * A declared output whose template is not the one the run pinned
 * (docs/state-and-journal.md, "Pinned runs"): the judges do not read a
 * template the agent could have rewritten, so the output is not judged
 * done until the template is put back or a person adopts it. Pure.
 */
import type { Finding } from '../evidence/types.js';

export function pinnedTemplateFinding(file: string, changed: string): Finding {
  return {
    check: 'pinned',
    file,
    message: `${changed}: the judges cannot read the template this run pinned`,
    write: "the template put back as it was, or a person's `autopilot repin` to adopt it",
  };
}
