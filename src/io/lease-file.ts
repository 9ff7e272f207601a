/** Reads and removes `_docs/_autopilot/lease.json` (its format: `formats/lease.ts`; `app/transaction/commit.ts` writes it). */
import { readFileSync, unlinkSync } from 'node:fs';
import { parseLease, type Lease } from '../formats/lease.js';

export type LeaseOnDisk = { lease?: Lease } | { unreadable: string };

export function readLease(file: string): LeaseOnDisk {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    return { unreadable: (error as NodeJS.ErrnoException).code ?? 'unreadable' };
  }
  const parsed = parseLease(text, file);
  return 'lease' in parsed ? parsed : { unreadable: parsed.problem.message };
}

export function removeLease(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
