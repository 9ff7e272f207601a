/** Generated content for the bench's scenarios. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/**
 * Where a large project keeps its many small documents. None of these paths
 * matches a pattern of the built-in flows, so the position does not change:
 * the bench compares the same answer on a small and a large folder.
 */
const TREES = [
  { share: 0.4, perFolder: 100, folder: (i: number) => `02_document/modules/m${pad(i, 4)}`, file: (j: number) => `f${pad(j, 4)}.md` },
  { share: 0.2, perFolder: 200, folder: (i: number) => `02_tasks/epic-${pad(i, 3)}`, file: (j: number) => `task-${pad(j, 3)}.md` },
  { share: 0.4, perFolder: 100, folder: (i: number) => `03_implementation/batches/batch-${pad(i, 4)}`, file: (j: number) => `note-${pad(j, 3)}.md` },
] as const;

/** Writes `total` small Markdown files in nested folders under `docs`; returns how many it wrote. */
export function addGeneratedDocs(docs: string, total: number): number {
  let written = 0;
  TREES.forEach((tree, t) => {
    const count = t === TREES.length - 1 ? total - written : Math.round(total * tree.share);
    for (let k = 0; k < count; k++) {
      const folder = join(docs, tree.folder(Math.floor(k / tree.perFolder) + 1));
      if (k % tree.perFolder === 0) mkdirSync(folder, { recursive: true });
      const name = tree.file((k % tree.perFolder) + 1);
      writeFileSync(join(folder, name), `# ${name}\n\nA generated note (${k + 1} of ${count} in this tree) for the autopilot bench.\n`);
      written++;
    }
  });
  return written;
}
