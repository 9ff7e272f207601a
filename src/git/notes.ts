/**
 * Notes on commits under autopilot's own notes ref, so a breadcrumb can ride
 * on a commit without changing it (`git log --notes=autopilot` shows them).
 * Notes stay local until someone pushes `refs/notes/autopilot`.
 */
import { runGit, runGitOr, type GitHandle } from './run.js';

export const NOTES_REF = 'refs/notes/autopilot';

export interface AddNoteOptions {
  /** Replace the commit's note instead of adding a paragraph to it. */
  replace?: boolean;
}

/**
 * Stores `text` as the note of commit `sha` (any name git resolves: a sha,
 * `HEAD`). By default a second note on the same commit is appended below the
 * first, so earlier breadcrumbs survive. Git tidies the text as it does a
 * commit message (trailing blanks, blank runs).
 */
export async function addNote(handle: GitHandle, sha: string, text: string, options: AddNoteOptions = {}): Promise<void> {
  if (!text.trim()) throw new TypeError('addNote: an empty note would remove the note');
  refuseOption(sha);
  const command = options.replace ? ['add', '--force'] : ['append'];
  await runGit(handle, ['notes', `--ref=${NOTES_REF}`, ...command, '--file=-', sha], { input: text });
}

/** The note autopilot keeps on `sha`, or undefined when there is none. */
export async function readNote(handle: GitHandle, sha: string): Promise<string | undefined> {
  refuseOption(sha);
  return runGitOr(handle, ['notes', `--ref=${NOTES_REF}`, 'show', sha], 1);
}

function refuseOption(sha: string): void {
  if (sha.startsWith('-')) throw new TypeError(`not a commit name: ${sha}`);
}
