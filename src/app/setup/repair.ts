/**
 * `check --repair`: what a crash left that every reader skips but `check`
 * reports for ever — journal lines that are not JSON at all (a line a kill or
 * a full disk cut short) — is cut out of the journal, under the lock. The
 * cut bytes are kept, with their line numbers, in a side file next to the
 * journal, byte for byte (a binary line too), and the repair is journaled
 * (`journal_repaired`). Lines that are JSON but not events (a bad merge, a
 * hand edit) are left for a person: they may mean something.
 */
import { isUtf8 } from 'node:buffer';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chainHash, entry } from '../../formats/journal-line.js';
import { writeFileAtomically } from '../../io/atomic-write.js';
import { displayPath } from '../../io/repo.js';
import type { Context } from '../transaction/context.js';
import { pointerAt, transact } from '../transaction/transact.js';
import { isoTime } from '../../timestamp.js';

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

const NEWLINE = Buffer.from('\n');

/** The journal's lines as they are on disk, split at each newline byte (the last one empty when the file ends with one). */
function splitLines(bytes: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  for (let at = bytes.indexOf(0x0a); at >= 0; at = bytes.indexOf(0x0a, start)) {
    lines.push(bytes.subarray(start, at));
    start = at + 1;
  }
  lines.push(bytes.subarray(start));
  return lines;
}

export async function runRepair(ctx: Context): Promise<RepairResult> {
  const { result } = await transact<undefined, RepairResult>(ctx, { flows: 'read' }, async (tx) => {
    const { repo } = tx;
    if (!existsSync(repo.journalFile)) return { plan: { entries: [] }, answer: () => ({ cut: [] }) };
    const bytes = readFileSync(repo.journalFile);
    if (bytes.length === 0) return { plan: { entries: [] }, answer: () => ({ cut: [] }) };
    const raw = splitLines(bytes);
    // A line that is not UTF-8 is cut whatever it parses as: read as text, its bytes would not survive a rewrite.
    const lines = raw.map((line) => (isUtf8(line) ? line.toString('utf8') : undefined));
    const cut: number[] = [];
    const kept: string[] = [];
    // The line after a cut one names it as `prev`: a seam the repair settles (`seams`), as a merge's are.
    const seams: string[] = [];
    let afterCut = false;
    lines.forEach((line, i) => {
      if (line !== undefined && (line.trim() === '' || isJson(line))) {
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
    // The cut bytes first, byte for byte, flushed: a crash after this and before the rewrite loses nothing.
    writeFileSync(side, Buffer.concat(cut.flatMap((n) => [Buffer.from(`line ${n}: `), raw[n - 1]!, NEWLINE])), { flag: 'wx', flush: true });
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
