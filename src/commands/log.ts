/** `autopilot log [-n N]`: the journal, newest last; `-n` reads only the end of the file. */
import { runLog, type Seam } from '../app/transaction/log.js';
import { EXIT, formatProblem, type Problem } from '../errors.js';
import type { StampedEntry } from '../formats/journal-line.js';
import { logJson } from '../render/json.js';
import { oneLine, safe } from '../render/text.js';
import { defineCommand } from './command.js';

export const log = defineCommand({
  name: 'log',
  summary: 'the journal, newest last',
  examples: [
    { line: 'autopilot log', does: 'the journal, newest last' },
    { line: 'autopilot log -n 20', does: 'only the last 20 events' },
  ],
  options: [{ key: 'limit', flags: '-n, --limit <count>', type: 'count', summary: 'only the last <count> events (read from the end of the file)' }],
  readOnly: true,
  mcp: { tool: 'The journal, newest last.', answer: 'log' },
  run: async (ctx, a: { limit?: number }) => ({ ...runLog(ctx, a.limit), limit: a.limit }),
  view: (r) => ({ json: logJson(r), text: logText(r, r.limit), exit: EXIT.ok }),
});

const LOG_BASE_KEYS = new Set([
  'prev',
  'unsettled',
  'seq',
  'at',
  'session',
  'event',
  'flow',
  'cycle',
  'step',
  'name',
  'step_index',
  'index',
  'status',
  'retry_count',
  'key',
  'pointer',
  // The index a line carries repeats what the events before it say: not news.
  'journal_index',
]);

/** A pinned step list is long: the log names it by flow and hash. */
function pinnedLabel(value: unknown): string {
  const p = value as { id?: unknown; hash?: unknown; steps?: unknown[] } | null;
  return `${String(p?.id)}@${String(p?.hash).slice(0, 8)} (${Array.isArray(p?.steps) ? p.steps.length : '?'} steps)`;
}

/** The skills a run pins are long too: the log names them. */
const skillsLabel = (value: unknown) => (typeof value === 'object' && value !== null ? Object.keys(value).join(',') : String(value));

/** One event, one line: its number, time, event, where the run was, its details and its session. */
function logLine(e: StampedEntry): string {
  const details = Object.entries(e)
    .filter(([key]) => !LOG_BASE_KEYS.has(key))
    .map(
      ([key, value]) =>
        `${key}=${key === 'pinned' ? pinnedLabel(value) : key === 'skills' ? skillsLabel(value) : typeof value === 'string' ? value : JSON.stringify(value)}`,
    )
    .join(' ');
  const at = e.step === 'done' ? 'done' : `step ${e.step} ${e.name}`;
  const seq = typeof e.seq === 'number' ? `#${e.seq} ` : '';
  return oneLine(
    `${seq}${String(e.at).replace(/\.\d+Z$/, 'Z')}  ${String(e.event).padEnd(20)} ${e.flow}#${e.cycle} ${at}  [${e.status}, retries ${e.retry_count}]${details ? `  ${details}` : ''}  (${e.session})`,
  );
}

/** The line `log` prints above the first event a merge put after another branch's (a seam of the chain). */
function seamLine(seam: Seam): string {
  const from = seam.names === '' ? 'an empty journal' : seam.forkLine !== undefined ? `line ${seam.forkLine}` : 'a line no longer in the journal';
  const settled = seam.settledAt !== undefined ? `settled at line ${seam.settledAt}` : 'not settled';
  return `── line ${seam.line}: another branch's events follow, forked after ${from} (${settled}) ──`;
}

/** The journal's events, a seam of the chain marked above its first event, then the lines that could not be read. */
function logText(r: { entries: StampedEntry[]; problems: Problem[]; seams?: Seam[] }, limit: number | undefined): string {
  const marks = new Map<number, string[]>();
  for (const seam of r.seams ?? []) marks.set(seam.entry, [...(marks.get(seam.entry) ?? []), seamLine(seam)]);
  const events = r.entries.flatMap((e, i) => [...(marks.get(i) ?? []), logLine(e)]);
  const lines = [...events, ...r.problems.map((p) => `! ${safe(formatProblem(p))}`)];
  return lines.length > 0 ? lines.join('\n') : limit === 0 ? '' : 'The journal is empty.';
}
