/** `_docs/_autopilot/lease.json`: who drives the repository (machine-local: git-ignored). */
import { readFileSync, unlinkSync } from 'node:fs';
import { isLease, type Lease } from '../engine/lease.js';

export type LeaseOnDisk = { lease?: Lease } | { unreadable: string };

export function readLease(file: string): LeaseOnDisk {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    return { unreadable: (error as NodeJS.ErrnoException).code ?? 'unreadable' };
  }
  try {
    const value: unknown = JSON.parse(text);
    return isLease(value) ? { lease: value } : { unreadable: 'not a lease' };
  } catch {
    return { unreadable: 'not JSON' };
  }
}

export function removeLease(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
