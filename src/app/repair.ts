/**
 * `check --repair`: what a crash left that every reader skips but `check`
 * reports for ever — journal lines that are not JSON at all (a line a kill or
 * a full disk cut short) — is cut out of the journal, under the lock. The
 * cut bytes are kept, with their line numbers, in a side file next to the
 * journal, and the repair is journaled (`journal_repaired`). Lines that are
 * JSON but not events (a bad merge, a hand edit) are left for a person: they
 * may mean something.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chainHash, entry } from '../formats/journal-line.js';
import { writeFileAtomically } from '../io/atomic-write.js';
import { displayPath } from '../io/repo.js';
import type { Context } from './context.js';
import { pointerAt, transact } from './transaction.js';
import { isoTime } from '../timestamp.js';

export interface RepairResult {
  /** The lines cut: their numbers in the journal as it was. */
  cut: number[];
  /** Where their bytes are kept (repository-relative), when any were cut. */
  keptIn?: string;
}

const isJson = (line: string): boolean => {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
};

export async function runRepair(ctx: Context): Promise<RepairResult> {
  const { result } = await transact<undefined, RepairResult>(ctx, { flows: 'read' }, async (tx) => {
    const { repo } = tx;
    if (!existsSync(repo.journalFile)) return { plan: { entries: [] }, answer: () => ({ cut: [] }) };
    const text = readFileSync(repo.journalFile, 'utf8');
    if (text === '') return { plan: { entries: [] }, answer: () => ({ cut: [] }) };
    const lines = text.split('\n');
    const cut: number[] = [];
    const kept: string[] = [];
    // The line after a cut one names it as `prev`: a seam the repair settles (`seams`), as a merge's are.
    const seams: string[] = [];
    let afterCut = false;
    lines.forEach((line, i) => {
      if (line.trim() === '' || isJson(line)) {
        kept.push(line);
        if (afterCut && line.trim() !== '') {
          seams.push(chainHash(line));
          afterCut = false;
        }
      } else {
        cut.push(i + 1);
        afterCut = true;
      }
    });
    if (cut.length === 0) return { plan: { entries: [] }, answer: () => ({ cut: [] }) };
    const loaded = await tx.state();
    const stamp = isoTime(ctx.now()).replace(/[:.]/g, '-');
    const side = join(repo.autopilotDir, `journal.cut-${stamp}.txt`);
    // The cut bytes first, flushed: a crash after this and before the rewrite loses nothing.
    writeFileSync(side, cut.map((n) => `line ${n}: ${lines[n - 1]}\n`).join(''), { flag: 'wx' });
    let rewritten = kept.join('\n');
    if (rewritten !== '' && !rewritten.endsWith('\n')) rewritten += '\n';
    writeFileAtomically(repo.journalFile, rewritten);
    const keptIn = displayPath(side, repo.root);
    return {
      plan: {
        entries: [entry('journal_repaired', loaded.reconciled.position, { cut_lines: cut, kept_in: keptIn, seams })],
        pointer: pointerAt(loaded, loaded.reconciled.position),
      },
      answer: () => ({ cut, keptIn }),
    };
  });
  return result;
}
