/**
 * Git opened once per command: the first part of a command that asks
 * (the journal's cut check, the progress commit) starts the one `rev-parse`
 * `openGit` makes, and the others take its answer. Each command opens its
 * own `Repo`, so the answer never outlives the command (an MCP server asks
 * again on its next call); a command that moves HEAD itself (a progress
 * commit) says so with `gitMoved`, and the next ask opens git again. HEAD
 * moved by someone else meanwhile is caught where it matters: the branch's
 * move is a compare-and-swap against the state read here.
 */
import type { OpenGit } from '../../git/repository.js';
import type { Repo } from '../../io/repo.js';
import { DEFAULT_RUN } from '../../formats/run-name.js';

const opened = new WeakMap<Repo, Promise<OpenGit>>();

/** `openGit(repo.root)`, asked once for this command's `repo`. */
export function openGitOnce(repo: Repo): Promise<OpenGit> {
  let found = opened.get(repo);
  if (!found) {
    found = import('../../git/repository.js').then(({ openGit }) => openGit(repo.root, gitFor(repo)));
    opened.set(repo, found);
    // A failure is the caller's to see, and not kept: the next ask tries again.
    found.catch(() => opened.delete(repo));
  }
  return found;
}

/** This command moved HEAD (or may have): the next `openGitOnce` asks git again. */
export function gitMoved(repo: Repo): void {
  opened.delete(repo);
}

/** What a run's git handle is opened with: a named run's name, so its snapshot refs are its own (docs/runs.md). */
export const gitFor = (repo: Pick<Repo, 'run'>): { run: string | undefined } => ({ run: repo.run === DEFAULT_RUN ? undefined : repo.run });
