/**
 * Atomic replace: write-file-atomic writes a temporary file beside the target,
 * fsyncs it and renames it over the old one; we then fsync the folder so the
 * rename itself survives a power cut. A reader sees the old file or the new
 * one, never half of either.
 */
import { closeSync, fsyncSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';

export function writeFileAtomically(file: string, text: string): void {
  const folder = dirname(file);
  mkdirSync(folder, { recursive: true });
  writeFileAtomic.sync(file, text, { fsync: true });
  fsyncFolder(folder);
}

export function fsyncFolder(folder: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(folder, 'r');
    fsyncSync(fd);
  } catch (error) {
    // Some platforms (Windows) cannot open or fsync a folder; the rename is still atomic there.
    if (!['EISDIR', 'EPERM', 'EINVAL', 'EBADF'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
