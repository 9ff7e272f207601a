/**
 * `uninstall --remove-docs` (docs/commands.md): the docs folder sorted into
 * autopilot's files and a person's. Autopilot's: the pointer, everything
 * under `_autopilot/` (journal, lease, lock, checkpoints, caches), a write's
 * leftover temporary file, and what the run's journal makes its own
 * (`engine/run-outputs.ts`: the files it names, the outputs of the steps it
 * records, the task files of their task indexes). Everything else is a
 * person's, kept and listed. Removing takes out autopilot's files and then
 * the folders left empty, the docs folder too when nothing is left in it.
 */
import { readdirSync, rmdirSync, rmSync, unlinkSync, type Dirent } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import picomatch from 'picomatch';
import { runOutputs, taskFilePrefixes } from '../../engine/run-outputs.js';
import { pinnedCopy } from '../../engine/pin.js';
import { TEMP_MARK } from '../../io/atomic-write.js';
import { readJournal } from '../../io/journal.js';
import { readBounded } from '../../io/read-bounded.js';
import { displayPath, openRepo, type Repo } from '../../io/repo.js';
import { listRuns, sharedRunFolder } from '../../io/run.js';
import { TASK_INDEX_MAX_BYTES } from '../../limits.js';
import { loadRepoFlows } from '../transaction/flows.js';

export interface SortedDocs {
  /** Autopilot's files, relative to the repository. */
  ours: string[];
  /** A person's files, relative to the repository: kept. */
  persons: string[];
}

/** Every file under `folder` (a link is a file: never followed), relative to it, `/`-separated. */
function filesUnder(folder: string, at = ''): string[] {
  let names: Dirent[];
  try {
    names = readdirSync(join(folder, at), { withFileTypes: true });
  } catch {
    return [];
  }
  return names.flatMap((d) => {
    const rel = at === '' ? d.name : `${at}/${d.name}`;
    return d.isDirectory() ? filesUnder(folder, rel) : [rel];
  });
}

/** A pattern's test of a file under the docs folder: a folder pattern holds what is under it; a glob as the judges read it. */
function matcher(pattern: string): (file: string) => boolean {
  if (pattern.endsWith('/')) return (file) => file.startsWith(pattern);
  const glob = picomatch(pattern, { dot: false });
  return (file) => file === pattern || glob(file);
}

/** What the journal makes autopilot's: a test of each file under the docs folder. */
async function journalOwns(repo: Repo, files: readonly string[]): Promise<(file: string) => boolean> {
  const { entries } = readJournal(repo.journalFile, displayPath(repo.journalFile, repo.root));
  if (entries.length === 0) return () => false;
  // An older journal pins no flow: the run's flow as it is now.
  const runFlow = async () => {
    const flows = await loadRepoFlows(repo, false).catch(() => []);
    const flow = flows.find((f) => f.id === entries.at(-1)!.flow);
    return flow ? pinnedCopy(flow) : undefined;
  };
  const outputs = runOutputs(
    entries,
    repo.docsName,
    entries.some((e) => e.event === 'run_started' || e.event === 'run_repinned') ? undefined : await runFlow(),
  );
  const named = new Set(outputs.files);
  const patterns = outputs.patterns.map(matcher);
  const owned = (file: string) => named.has(file) || patterns.some((m) => m(file));
  // The task files each task index among them names, beside it.
  const prefixes = outputs.indexes.flatMap((pattern) =>
    files
      .filter((f) => matcher(pattern)(f) && owned(f))
      .flatMap((index) => {
        const read = readBounded(join(repo.docs, index), `${repo.docsName}/${index}`, 'task index', TASK_INDEX_MAX_BYTES);
        return 'text' in read ? taskFilePrefixes(index, read.text) : [];
      }),
  );
  return (file) => owned(file) || (file.endsWith('.md') && prefixes.some((p) => file.startsWith(p) && !file.slice(p.length).includes('/')));
}

/** Whether a file of run `run` (relative to its docs folder) is autopilot's: its pointer, its own folder, a leftover temporary file, what its journal owns. */
async function runOwns(run: Repo, files: readonly string[]): Promise<(file: string) => boolean> {
  const own = relative(run.docs, run.autopilotDir).split(sep).join('/');
  const pointer = relative(run.docs, run.pointerFile).split(sep).join('/');
  const journal = await journalOwns(run, files);
  return (file) => file === pointer || file.startsWith(`${own}/`) || file.includes(TEMP_MARK) || journal(file);
}

/**
 * The docs folder's files, autopilot's and a person's, for every run of the
 * repository (docs/runs.md): a named run's files are judged by its own
 * journal, under its own folder. `repo`: the repository's (its default run).
 */
export async function sortDocs(repo: Repo): Promise<SortedDocs> {
  const files = filesUnder(repo.docs);
  const tests: ((file: string) => boolean)[] = [await runOwns(repo, files)];
  for (const name of listRuns(repo.docs).filter((r) => r !== repo.run)) {
    const run = runOf(repo, name);
    const prefix = `${relative(repo.docs, run.docs).split(sep).join('/')}/`;
    const owns = await runOwns(
      run,
      files.filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length)),
    );
    tests.push((file) => file.startsWith(prefix) && owns(file.slice(prefix.length)));
  }
  const ours = (file: string) => tests.some((test) => test(file));
  const shown = (file: string) => displayPath(join(repo.docs, file), repo.root);
  return { ours: files.filter(ours).map(shown), persons: files.filter((f) => !ours(f)).map(shown) };
}

/** Run `name` of the repository whose default run is `repo`. */
const runOf = (repo: Repo, name: string): Repo => (name === repo.run ? repo : openRepo({ dir: repo.root, docs: repo.docsName, run: name }));

/** Takes out autopilot's files, then each folder that removing them left empty, up to the docs folder itself; a folder that was empty before stays. */
export function removeOurs(repo: Repo, sorted: SortedDocs): void {
  // Listed before their pointers and journals go: a run is known by them.
  const runs = [repo.run, ...listRuns(repo.docs).filter((r) => r !== repo.run)];
  const folders = new Set<string>();
  for (const file of sorted.ours) {
    const path = join(repo.root, file);
    unlinkSync(path);
    for (let folder = dirname(path); folder.startsWith(repo.docs); folder = dirname(folder)) folders.add(folder);
  }
  // Everything under a run's own folder is autopilot's, empty folders (a cache's) too: every run's.
  // A named run's lease lives in the common git folder (io/run.ts): it goes with the run.
  for (const run of runs) {
    rmSync(runOf(repo, run).autopilotDir, { recursive: true, force: true });
    const shared = sharedRunFolder(repo.root, run);
    if (shared) rmSync(shared, { recursive: true, force: true });
  }
  // Deepest first: a folder's emptiness is known once the folders in it are gone.
  for (const folder of [...folders].sort((a, b) => b.length - a.length)) {
    try {
      if (readdirSync(folder).length === 0) rmdirSync(folder);
    } catch {
      // Gone already, or not a folder: nothing to do.
    }
  }
}
