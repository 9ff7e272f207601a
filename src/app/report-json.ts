/** The JSON of `check` and `log`, shared by every front end (the CLI's `--json`, the MCP tools). */
import type { StampedEntry } from '../engine/journal-entry.js';
import type { Problem } from '../errors.js';
import type { CheckResult } from './check.js';

export function checkJson(r: CheckResult): Record<string, unknown> {
  return {
    ok: r.problems.length === 0,
    problems: r.problems,
    flows: r.flows,
    skills: r.skills,
    pointer: r.pointer,
    journal_events: r.journalEvents,
    git_fallback: r.gitOff ? { on: false, reason: r.gitOff } : { on: true },
  };
}

export function logJson(r: { entries: StampedEntry[]; problems: Problem[] }): Record<string, unknown> {
  return { events: r.entries, problems: r.problems };
}
