/**
 * The acceptance criteria's coverage, read at the edge for `status` and
 * `report`: one stat for each of the criteria, the task index and the test
 * report; a file is read (within OUTPUT_FILE_MAX_BYTES) only when it is
 * there. Never writes, never fails: a file that cannot be read counts as
 * absent.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { acceptanceFiles, acCoverage, type AcCoverage } from '../../evidence/ac-coverage.js';
import { loopStart, type Flow } from '../../formats/flow/model.js';
import { readBounded } from '../../io/read-bounded.js';
import type { Repo } from '../../io/repo.js';
import { OUTPUT_FILE_MAX_BYTES } from '../../limits.js';

function readIfThere(repo: Repo, file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  const path = join(repo.docs, file);
  if (!existsSync(path)) return undefined;
  const read = readBounded(path, file, 'file', OUTPUT_FILE_MAX_BYTES);
  return 'text' in read ? read.text : undefined;
}

/** Greenfield's criteria, or (a flow that loops: existing-code) the current cycle's. */
export function readAcCoverage(repo: Repo, flow: Flow, cycle: number): AcCoverage | undefined {
  const files = acceptanceFiles(loopStart(flow) !== undefined ? cycle : undefined);
  const criteria = readIfThere(repo, files.criteria);
  if (criteria === undefined) return undefined;
  const tasks = readIfThere(repo, files.tasks);
  const tests = readIfThere(repo, files.tests);
  // Named from the repository root, as `done_when` names them: `_docs/00_problem/acceptance_criteria.md`.
  const shown = (file: string) => `${repo.docsName}/${file}`;
  const named = { criteria: shown(files.criteria), tests: shown(files.tests), ...(files.tasks !== undefined ? { tasks: shown(files.tasks) } : {}) };
  return acCoverage({ files: named, criteria, ...(tasks !== undefined ? { tasks } : {}), ...(tests !== undefined ? { tests } : {}) });
}
