/**
 * `check`'s text for a journal that holds lines that are not JSON (a binary
 * file, a crash's torn lines): the first few named with their line, the rest
 * in one line, and the command that moves them aside (`check --repair`,
 * their bytes kept, journaled). The JSON answer keeps every problem.
 */
import type { Problem } from '../errors.js';

/** Lines named one by one before the rest are counted. */
export const UNREADABLE_SHOWN = 3;

/** A journal line `check --repair` moves aside: not JSON at all (cut short, binary), as `io/journal.ts` and `formats/journal-line.ts` say it. */
const notJson = (p: Problem) => /^(a journal line is not JSON|the last journal line is torn)/.test(p.message);

/** `1-4, 7, 9-12`: line numbers as ranges. */
function ranges(lines: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < lines.length;) {
    let j = i;
    while (j + 1 < lines.length && lines[j + 1] === lines[j]! + 1) j++;
    out.push(j === i ? `${lines[i]}` : `${lines[i]}-${lines[j]}`);
    i = j + 1;
  }
  return out.join(', ');
}

/**
 * The problems as `check` prints them: past the first few journal lines that
 * are not JSON, one problem counts the rest; and, when there is any, the hint
 * that names `check --repair`.
 */
export function summariseUnreadable(problems: Problem[]): { problems: Problem[]; repair?: string } {
  const unreadable = problems.filter(notJson);
  if (unreadable.length === 0) return { problems };
  const shown = new Set(unreadable.slice(0, UNREADABLE_SHOWN));
  const rest = unreadable.slice(UNREADABLE_SHOWN);
  const out = problems.filter((p) => !notJson(p) || shown.has(p));
  if (rest.length > 0) {
    const at = out.indexOf(unreadable[UNREADABLE_SHOWN - 1]!) + 1;
    const lines = rest.map((p) => p.line).filter((n): n is number => n !== undefined);
    out.splice(at, 0, {
      ...(rest[0]!.file ? { file: rest[0]!.file } : {}),
      message: `${rest.length} more journal lines are not JSON either (lines ${ranges(lines)}); every reader skips them`,
    });
  }
  const count = unreadable.length === 1 ? 'the journal line that is not JSON' : `the ${unreadable.length} journal lines that are not JSON`;
  return {
    problems: out,
    repair: `\`autopilot check --repair\` moves ${count} aside: their bytes are kept in a side file beside the journal, and the repair is journaled.`,
  };
}
