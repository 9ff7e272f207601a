/**
 * Node's test runner (`node --test`): every reporter closes with the same
 * block of counts, prefixed by the reporter — `ℹ tests 4` (spec), `# tests 4`
 * (TAP), `<!-- tests 4 -->` (JUnit) — followed by `pass`, `fail`,
 * `cancelled`, `skipped`, `todo`. A cancelled test counts as failed, a todo
 * as skipped.
 */
import { lastIndex, totalsFrom, type Reader } from './read.js';

const LINE = /^\s*(?:\u2139|#|<!--)\s*(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms)\s+(\d+(?:\.\d+)?)\s*(?:-->)?\s*$/;

export const nodeTest: Reader = (lines) => {
  const pass = lastIndex(lines, (l) => LINE.exec(l)?.[1] === 'pass');
  if (pass < 0) return undefined;
  let from = pass;
  while (from > 0 && LINE.test(lines[from - 1]!)) from--;
  let to = pass;
  while (to + 1 < lines.length && LINE.test(lines[to + 1]!)) to++;
  const counts = new Map<string, number>();
  for (let i = from; i <= to; i++) {
    const m = LINE.exec(lines[i]!)!;
    counts.set(m[1]!, Number(m[2]));
  }
  if (!counts.has('tests') || !counts.has('fail')) return undefined;
  const n = (key: string) => counts.get(key) ?? 0;
  return { runner: 'node --test', totals: totalsFrom(n('pass'), n('fail') + n('cancelled'), n('skipped') + n('todo')), end: to };
};
