import { describe, expect, it } from 'vitest';
import { addNote, NOTES_REF, readNote } from '../../src/git/notes.js';
import { git, handleFor, repoWith } from '../helpers/git.js';

describe('addNote', () => {
  it("keeps notes under autopilot's own ref, adding below an earlier note unless told to replace it", async () => {
    const repo = repoWith({ 'a.md': 'a\n' });
    const sha = git(repo, 'rev-parse', 'HEAD').trim();
    const handle = await handleFor(repo);
    expect(await readNote(handle, sha)).toBeUndefined();

    await addNote(handle, sha, '**Autopilot** · greenfield 3/10 Plan\n');
    await addNote(handle, 'HEAD', 'second breadcrumb');
    expect(git(repo, 'notes', `--ref=${NOTES_REF}`, 'show', sha)).toBe('**Autopilot** · greenfield 3/10 Plan\n\nsecond breadcrumb\n');
    // The commit itself is unchanged, and the default notes ref untouched.
    expect(git(repo, 'rev-parse', 'HEAD').trim()).toBe(sha);
    expect(git(repo, 'notes', 'list')).toBe('');

    await addNote(handle, sha, 'only this', { replace: true });
    expect(await readNote(handle, sha)).toBe('only this\n');
  });

  it('refuses an empty note (git would remove the note) and a name that reads as an option', async () => {
    const handle = await handleFor(repoWith({ 'a.md': 'a\n' }));
    await expect(addNote(handle, 'HEAD', '  \n')).rejects.toThrow(/empty note/);
    await expect(addNote(handle, '--help', 'x')).rejects.toThrow(/not a commit name/);
    await expect(addNote(handle, 'no-such-commit', 'x')).rejects.toThrow(/git notes failed/);
  });
});
