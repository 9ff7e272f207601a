/**
 * mocha's spec reporter closes with `  12 passing (34ms)`, then, when there
 * are any, `  2 pending` and `  7 failing`, each on its own line.
 */
import { lastIndex, totalsFrom, type Reader } from './read.js';

const PASSING = /^\s*(\d+) passing\b(?:\s*\(\d+(?:\.\d+)?\s*m?s\))?\s*$/;
const AFTER = /^\s*(\d+) (pending|failing)\s*$/;

export const mocha: Reader = (lines) => {
  const at = lastIndex(lines, (l) => PASSING.test(l));
  if (at < 0) return undefined;
  let pending = 0;
  let failing = 0;
  let end = at;
  for (let i = at + 1; i < lines.length && i <= at + 3; i++) {
    const m = AFTER.exec(lines[i]!);
    if (!m) continue;
    if (m[2] === 'pending') pending = Number(m[1]);
    else failing = Number(m[1]);
    end = i;
    if (m[2] === 'failing') break;
  }
  return { runner: 'mocha', totals: totalsFrom(Number(PASSING.exec(lines[at]!)![1]), failing, pending), end };
};
