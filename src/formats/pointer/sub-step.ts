/**
 * The pointer's `sub_step`, read as a kind. It stays one readable line; the
 * engine tells two kinds apart:
 * - a batch of the task index: `batch 2 of 4 — 03, 04`, optionally with the
 *   agent's own position inside it in parentheses
 *   (`batch 2 of 4 — 03, 04 (2 — Review)`);
 * - free text (`4 — Architecture Review`), or `0` for none: as the seed
 *   wrote it, read as it always was.
 * Pure: `readSubStep` and `batchSubStep` are inverse on a batch.
 */

export type SubStep =
  | { kind: 'none' }
  | { kind: 'text'; text: string }
  /** `batch`: 1-based, of `of`; `tasks`: the batch's task ids; `note`: the agent's position inside it. */
  | { kind: 'batch'; batch: number; of: number; tasks: string[]; note?: string };

const BATCH = /^batch (\d{1,4}) of (\d{1,4}) \u2014 ([^()]*?)(?: \((.*)\))?$/;

export function readSubStep(text: string): SubStep {
  const t = text.trim();
  if (t === '' || t === '0') return { kind: 'none' };
  const m = BATCH.exec(t);
  if (m) {
    const batch = Number(m[1]);
    const of = Number(m[2]);
    const tasks = m[3]!
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (batch >= 1 && batch <= of && tasks.length > 0) return { kind: 'batch', batch, of, tasks, ...(m[4] ? { note: m[4] } : {}) };
  }
  return { kind: 'text', text: t };
}

/** The one line for a batch: `batch 2 of 4 — 03, 04`, with the agent's note in parentheses when it gave one. */
export function batchSubStep(batch: number, of: number, tasks: readonly string[], note?: string): string {
  const clean = note?.replace(/[()]/g, '').replace(/\s+/g, ' ').trim();
  return `batch ${batch} of ${of} \u2014 ${tasks.join(', ')}${clean ? ` (${clean})` : ''}`;
}
