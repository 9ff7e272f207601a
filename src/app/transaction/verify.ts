/**
 * The project's test command for a run (issue 29, point 4;
 * docs/flow-format.md, "Outputs and their checks"): the one the run is
 * pinned to (`verify_pinned`, kept by the journal index), the settings'
 * `verify:`, and one found in the project's files. A run without a pin takes
 * one as soon as a command knows it (a step starting, `autopilot exec`):
 * the settings' command, else one found; `none` only by a person's
 * `autopilot repin --verify none --reason …`. What the pinned command runs
 * that the repository holds is pinned with it: when it differs, the run
 * waits for a person's `repin`.
 */
import { realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandRun, VerifyFacts } from '../../evidence/types.js';
import type { VerifyPin } from '../../formats/journal-index.js';
import { entry, type JournalEntry, type KnownEntry } from '../../formats/journal-line.js';
import type { Position } from '../../formats/pointer/position.js';
import type { Settings } from '../../formats/settings.js';
import { findTestCommand, type FoundTestCommand } from '../../formats/test-command.js';
import { sourceChanges, verifySources, type ReadRepoFile, type VerifySources } from '../../formats/verify-sources.js';
import { loadJournalIndex } from '../../io/journal-index.js';
import { readBounded } from '../../io/read-bounded.js';
import { gatePath, isInside, type Repo } from '../../io/repo.js';
import { VERIFY_SOURCE_MAX_BYTES } from '../../limits.js';
import type { Loaded } from './load-state.js';

/** The settings' word for a project with no tests, which only a person's repin pins. */
export const NO_TESTS = 'none';

/** The command a person runs to name the test command (or say there is none). */
export const NAME_IT = 'autopilot repin --verify "<command>"` (or `autopilot repin --verify none --reason "<why>"`)';

/** A file of the repository as the test command's pieces are read: a regular file inside it, within the limit; else undefined. */
export function repoFileReader(repo: Repo): ReadRepoFile {
  return (path) => {
    const file = join(repo.root, path);
    try {
      if (!statSync(file).isFile() || !isInside(repo.root, realpathSync(file))) return undefined;
    } catch {
      return undefined;
    }
    const read = readBounded(file, path, 'file', VERIFY_SOURCE_MAX_BYTES);
    return 'text' in read ? read.text : undefined;
  };
}

/** The run's pin: the journal index as the state read found it, or read now. */
export function pinOf(loaded: Loaded): VerifyPin | undefined {
  const index =
    loaded.index?.index ?? (loaded.head.index ? loaded.head.index.read() : loadJournalIndex(loaded.repo.journalFile, loaded.repo.journalIndexFile).index);
  return index.verify;
}

/** The commands an attempt ran (`command_run`), as the judges read them. */
export function runsOf(entries: readonly Extract<KnownEntry, { event: 'command_run' }>[]): CommandRun[] {
  return entries.map((r) => ({
    command: typeof r.command === 'string' ? r.command : '',
    exitCode: r.exit_code === undefined ? null : r.exit_code,
    ...(r.totals ? { totals: r.totals } : {}),
    seq: r.seq,
    tree: typeof r.tree === 'string' ? r.tree : undefined,
  }));
}

/** The test command found in the project's files now. */
export const foundIn = (repo: Repo): FoundTestCommand | undefined => findTestCommand(repoFileReader(repo));

/** What the command runs that the repository holds, now. */
export const sourcesNow = (repo: Repo, command: string): VerifySources => verifySources(command, repoFileReader(repo));

/** The pin a run takes where it holds none: the settings' command (not `none`), else one found in the project's files. */
export function pinToTake(repo: Repo, settings: Pick<Settings, 'verify'>): { command: string; by: 'settings' | 'found'; where: string } | undefined {
  if (settings.verify !== undefined && settings.verify !== NO_TESTS) return { command: settings.verify, by: 'settings', where: '.autopilot/config.yml' };
  const found = foundIn(repo);
  return found ? { command: found.command, by: 'found', where: found.where } : undefined;
}

/** The journal entry that pins `command` (or none, with why) at `position`. */
export function pinEntry(repo: Repo, position: Position, pin: { command: string | null; by: 'settings' | 'found' | 'person'; reason?: string }): JournalEntry {
  const sources = pin.command === null ? {} : sourcesNow(repo, pin.command);
  return entry('verify_pinned', position, { command: pin.command, reason: pin.reason, sources, by: pin.by });
}

/** The test command as a run stands: pinned (and what changed since), or to be pinned now, or unknown. */
export interface VerifyNow {
  pinned?: VerifyPin;
  /** No pin yet: the one the run would take now. */
  toTake?: { command: string; by: 'settings' | 'found'; where: string };
  /** What the pinned command runs that differs now, in words. */
  changed: string[];
  /** The settings name another command than the pin (the run goes on with the pin until a person repins). */
  configured?: string;
}

export function verifyNow(loaded: Loaded, settings: Pick<Settings, 'verify'>): VerifyNow {
  const pinned = pinOf(loaded);
  if (!pinned) {
    const toTake = pinToTake(loaded.repo, settings);
    return { toTake, changed: [] };
  }
  const changed = pinned.command === null ? [] : sourceChanges(pinned.sources, sourcesNow(loaded.repo, pinned.command));
  const configured = settings.verify !== undefined && settings.verify !== (pinned.command ?? NO_TESTS) ? settings.verify : undefined;
  return { pinned, changed, configured };
}

/** What the judges of a test result need of it: the command the run is held to, and what changed. */
export function verifyFacts(now: VerifyNow): VerifyFacts {
  if (now.pinned) return { command: now.pinned.command, reason: now.pinned.reason, changed: now.changed };
  return { command: now.toTake?.command, changed: [] };
}

/** Where a test run's snapshots of the work tree are kept: autopilot's cache folder, which git ignores (`git/run-snapshot.ts`). */
const storeOf = (repo: Repo) => join(repo.autopilotDir, 'cache', 'run-trees');

/** The docs folder as a path below autopilot's root. */
const docsOf = (repo: Repo) => repo.docsName.replace(/^\.\/+/, '').replace(/\/+$/, '');

/** The work tree outside the docs folder as a run begins, as a git tree object, so what changes after it can be told; undefined without git. */
export async function workTreeNow(repo: Repo): Promise<string | undefined> {
  const { openGit } = await import('../../git/repository.js');
  const { handle } = await openGit(repo.root);
  if (!handle) return undefined;
  const { snapshotRun } = await import('../../git/run-snapshot.js');
  gatePath(repo, storeOf(repo));
  return snapshotRun(handle, storeOf(repo), docsOf(repo));
}

/**
 * The files outside the docs folder (tracked, or not ignored) that changed
 * since the work tree was `tree`; undefined where git cannot tell (no git
 * any more). A tree no longer kept counts as a change: nothing then shows
 * the code was not changed.
 */
export async function changedOutsideDocs(repo: Repo, tree: string): Promise<string[] | undefined> {
  const { openGit } = await import('../../git/repository.js');
  const { handle } = await openGit(repo.root);
  if (!handle) return undefined;
  const { changedSinceRun, SnapshotGone } = await import('../../git/run-snapshot.js');
  try {
    return await changedSinceRun(handle, storeOf(repo), tree, docsOf(repo));
  } catch (error) {
    if (error instanceof SnapshotGone) return [`(the work tree as the run began: ${tree.slice(0, 12)} is no longer kept)`];
    throw error;
  }
}
