/**
 * The files `done`'s judges read, with the text each read: the step's
 * progress commit holds them as judged, not as they are when it is made
 * (docs/git.md, "The bytes judged are the bytes committed"). Taken from the
 * evidence the decision was made on: the aimed step's declared outputs, the
 * acceptance criteria a trace read, the batch report. Pure.
 */
import { posix } from 'node:path';
import { ACCEPTANCE_FILE } from '../../evidence/index.js';
import type { Evidence } from '../../engine/evidence.js';
import type { Repo } from '../../io/repo.js';

export interface JudgedText {
  /** Relative to the repository root. */
  path: string;
  text: string;
}

/** Every file a judge read for the decision, once each (relative to the root), with its text. */
export function judgedTexts(repo: Pick<Repo, 'docsName'>, evidence: Evidence): JudgedText[] {
  const found = new Map<string, string>();
  const read = (file: string, text: string | undefined) => {
    if (text !== undefined) found.set(`${repo.docsName}/${file}`, text);
  };
  for (const step of evidence.steps) {
    for (const output of step.outputs?.outputs ?? [])
      for (const file of output.files) {
        read(file.file, file.text);
        // The task files an index names, read by its judge beside it.
        for (const [name, task] of Object.entries(file.taskFiles ?? {})) read(posix.join(posix.dirname(file.file), name), task.text);
      }
    read(ACCEPTANCE_FILE, step.outputs?.acceptance);
    const report = step.batches?.report;
    if (report) read(report.file, report.text);
  }
  return [...found].map(([path, text]) => ({ path, text }));
}
